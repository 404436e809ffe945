@testable import ChatTemplate
import LoomJSON
import Testing

/// Inputs the fuzzers (Fuzz/, `scripts/fuzz template`) found problems with, kept as regressions.
@Suite struct ChatTemplateRegressionTests {
    static let now = TemplateDateTime(year: 2026, month: 11, day: 30)

    /// Renders `source` the way `ChatTemplate.render(context:)` does, but keeps weak references
    /// to the top-level scope and to the namespace `ns`, to see whether the render freed them.
    func renderTracking(_ source: String) throws -> (output: String, scope: Scope?, namespace: Namespace?) {
        let template = try ChatTemplate(source: source)
        weak var scope: Scope?
        weak var namespace: Namespace?
        let output: String
        do {
            let root = Scope(parent: nil)
            scope = root
            let interpreter = TemplateInterpreter(limits: .standard, now: Self.now, frames: template.frames.frames)
            defer { interpreter.releaseCycles() }
            try interpreter.execute(template.nodes, root)
            if case .namespace(let ns)? = root["ns"] { namespace = ns }
            output = interpreter.output
        }
        return (output, scope, namespace)
    }

    /// Found by the template fuzzer (LeakSanitizer) on Kimi-K2's template: a macro is bound in the
    /// scope it closes over, a reference cycle that leaked the whole top-level scope on every render.
    @Test func macroDefiningScopeIsFreedAfterRender() throws {
        let r = try renderTracking("{% macro wrap(x) %}[{{ x }}]{% endmacro %}{{ wrap(1) }}{{ wrap('a') }}")
        #expect(r.output == "[1][a]")
        #expect(r.scope == nil, "the scope holding the macro outlived the render")
    }

    /// `{% call %}` hands the callee a `caller` macro closed over the call site.
    @Test func callerMacroScopeIsFreedAfterRender() throws {
        let r = try renderTracking("{% macro m() %}<{{ caller() }}>{% endmacro %}{% call m() %}body{% endcall %}")
        #expect(r.output == "<body>")
        #expect(r.scope == nil)
    }

    /// A namespace that holds itself (directly, or through a macro or loop) is emptied at the end.
    @Test func selfReferencingNamespaceIsFreedAfterRender() throws {
        let r = try renderTracking("{% set ns = namespace(n=1) %}{% set ns.me = ns %}{% macro f() %}{{ ns.n }}{% endmacro %}{% set ns.f = f %}{{ ns.f() }}")
        #expect(r.output == "1")
        #expect(r.namespace == nil, "the namespace outlived the render")
        #expect(r.scope == nil)
    }

    /// Freeing happens only after the output is complete: macros calling macros, and macros
    /// kept in a namespace, render normally, and a second render starts from nothing.
    @Test func macrosStillWorkUntilTheRenderEnds() throws {
        let source = """
        {% macro inner(x) %}<{{ x }}>{% endmacro %}{% macro outer(x) %}{{ inner(x) }}{{ inner(x * 2) }}{% endmacro %}\
        {% set ns = namespace(f=outer) %}{{ outer(1) }}{{ ns.f(2) }}
        """
        let template = try ChatTemplate(source: source)
        #expect(try template.render(context: JSONObject(), now: Self.now) == "<1><2><2><4>")
        #expect(try template.render(context: JSONObject(), now: Self.now) == "<1><2><2><4>")
    }
}
