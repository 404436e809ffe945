import ChatTemplate
import LoomJSON
import Testing

/// Malformed and hostile templates end in a typed error: never a crash, a hang or a silent result.
@Suite struct ChatTemplateRobustnessTests {
    static let now = TemplateDateTime(year: 2026, month: 11, day: 30)

    func renderError(_ source: String, limits: TemplateLimits = .standard, context: JSONObject = JSONObject()) -> TemplateError? {
        do {
            _ = try ChatTemplate(source: source, limits: limits).render(context: context, now: Self.now)
            return nil
        } catch {
            return error
        }
    }

    @Test func syntaxErrorsCarryLineAndColumn() {
        let error = renderError("line one\n  {{ x + }}")
        #expect(error?.kind == .syntax)
        #expect(error?.line == 2)
        #expect(error?.column == 10)
    }

    @Test func unclosedBlocksAndUnknownTagsAreSyntaxErrors() {
        #expect(renderError("{% if x %}yes")?.kind == .syntax)
        #expect(renderError("{% for x in y %}")?.kind == .syntax)
        #expect(renderError("{% frobnicate %}")?.kind == .syntax)
        #expect(renderError("{{ 'unterminated }}")?.kind == .syntax)
        #expect(renderError("{# never closed")?.kind == .syntax)
        #expect(renderError("{% endif %}")?.kind == .syntax)
        #expect(renderError("{{ }}")?.kind == .syntax)
    }

    @Test func raiseExceptionCarriesTheTemplatesMessage() {
        let error = renderError("{{ raise_exception('Conversation roles must alternate') }}")
        #expect(error == TemplateError(.raised, "Conversation roles must alternate"))
        #expect(error?.description == "TemplateError: Conversation roles must alternate")
    }

    @Test func deeplyNestedSourceIsRefusedAtParseTime() {
        let parens = String(repeating: "(", count: 10_000) + "1" + String(repeating: ")", count: 10_000)
        #expect(renderError("{{ \(parens) }}")?.kind == .syntax)
        let ifs = String(repeating: "{% if true %}", count: 5_000) + String(repeating: "{% endif %}", count: 5_000)
        #expect(renderError(ifs)?.kind == .syntax)
        let sum = (0..<10_000).map(String.init).joined(separator: " + ")
        #expect(renderError("{{ \(sum) }}")?.kind == .syntax)
        let attributes = "x" + String(repeating: ".a", count: 10_000)
        #expect(renderError("{{ \(attributes) }}")?.kind == .syntax)
        let filters = "x" + String(repeating: "|trim", count: 10_000)
        #expect(renderError("{{ \(filters) }}")?.kind == .syntax)
    }

    @Test func nestingWithinTheParserLimitRenders() throws {
        let parens = String(repeating: "(", count: 40) + "1" + String(repeating: ")", count: 40)
        #expect(try ChatTemplate(source: "{{ \(parens) }}").render(context: JSONObject(), now: Self.now) == "1")
        let sum = (1...60).map(String.init).joined(separator: " + ")
        #expect(try ChatTemplate(source: "{{ \(sum) }}").render(context: JSONObject(), now: Self.now) == "1830")
    }

    @Test func unboundedMacroRecursionHitsTheCallLimit() {
        let source = "{% macro f(n) %}{{ f(n + 1) }}{% endmacro %}{{ f(0) }}"
        #expect(renderError(source)?.kind == .limit)
    }

    @Test func nestingLimitHoldsEvenWithAHugeCallLimit() {
        // With the call limit out of the way, the evaluation-nesting limit must stop the
        // recursion well before the native stack runs out.
        let limits = TemplateLimits(maximumCallDepth: 1_000_000)
        let source = "{% macro f(n) %}{% if n < 100000 %}{% for i in [1] %}{{ (f((n + 1))) ~ '' }}{% endfor %}{% endif %}{% endmacro %}{{ f(0) }}"
        #expect(renderError(source, limits: limits)?.kind == .limit)
    }

    @Test func runawayLoopsHitTheStepBudget() {
        let limits = TemplateLimits(maximumSteps: 10_000)
        let source = "{% for i in range(100000) %}{% for j in range(100000) %}{% endfor %}{% endfor %}"
        #expect(renderError(source, limits: limits)?.kind == .limit)
    }

    @Test func hugeOutputHitsTheOutputLimit() {
        let limits = TemplateLimits(maximumOutputBytes: 1 << 20)
        let source = "{% for i in range(100000) %}{{ 'x' * 1000 }}{% endfor %}"
        #expect(renderError(source, limits: limits)?.kind == .limit)
        #expect(renderError("{{ 'x' * 1000000000000 }}")?.kind == .limit)
        #expect(renderError("{{ range(1000000000)|length }}")?.kind == .limit)
    }

    @Test func hugeWidthsAndCountsAreRefused() {
        for source in ["{{ '{:>99999999999999999999}'.format('x') }}", "{{ 'x'.center(1000000000) }}",
                       "{{ 'x'|indent(1000000000) }}", "{{ [1]|batch(1000000000, 0)|list }}",
                       "{{ 'x'.zfill(1000000000) }}", "{{ '{:.99999}'.format(1.5) }}", "{{ [1] * 1000000000 }}",
                       "{{ 'ab' * 9223372036854775807 }}", "{{ range(-9000000000000000000, 9000000000000000000, 4000000000000000000) }}"] {
            #expect(renderError(source)?.kind == .limit, "\(source)")
        }
        #expect(renderError("{{ '%d' % (1e300 * 1e300,) }}")?.kind == .arithmetic)
    }

    @Test func namespacesCannotGrowUnboundedlyDeepValues() {
        let source = "{% set ns = namespace(v=[]) %}{% for i in range(10000) %}{% set ns.v = [ns.v] %}{% endfor %}{{ ns.v|length }}"
        #expect(renderError(source)?.kind == .limit)
    }

    @Test func selfReferencingNamespacePrintsLikePython() throws {
        let source = "{% set ns = namespace(a=1) %}{% set ns.me = ns %}{{ ns }}"
        let output = try ChatTemplate(source: source).render(context: JSONObject(), now: Self.now)
        #expect(output == "<Namespace {'a': 1, 'me': <Namespace {...}>}>")
    }

    @Test func integerOverflowIsAnError() {
        #expect(renderError("{{ 9223372036854775807 + 1 }}")?.kind == .arithmetic)
        #expect(renderError("{{ 2 ** 100 }}")?.kind == .arithmetic)
        #expect(renderError("{{ 1 // 0 }}")?.kind == .arithmetic)
    }
}
