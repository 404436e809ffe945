import ChatTemplate
import Foundation
import LoomJSON
import Testing

/// The `ChatTemplate` facade: message normalisation, the plain-text fallback, dates and typed
/// errors.
@Suite struct ChatTemplateAPITests {
    static let now = TemplateDateTime(year: 2026, month: 11, day: 30)

    /// Every suite case renders identically through the messages-level API, given the
    /// conversation's parts instead of the recorded context.
    @Test func messagesAPIReproducesTheSuite() throws {
        var compared = 0
        var templates = TemplateFileCache()
        for c in try ChatTemplateSuiteTests.loadCases() {
            guard let expected = c.expected else { continue }
            let template = try templates.template(at: SharedData.path("chat-templates/templates/\(c.template)"))
            var extra = JSONObject()
            for (key, value) in c.context where !["messages", "tools", "documents", "add_generation_prompt", "bos_token", "eos_token"].contains(key) {
                extra[key] = value
            }
            let output = try template.render(
                messages: c.context["messages"]?.arrayValue ?? [], tools: c.context["tools"]?.arrayValue,
                addGenerationPrompt: c.context["add_generation_prompt"]?.boolValue ?? false,
                bosToken: c.context["bos_token"]?.stringValue ?? "", eosToken: c.context["eos_token"]?.stringValue ?? "",
                extra: extra, now: ChatTemplateAPITests.now)
            #expect(output == expected, "\(c.template) / \(c.conversation)")
            compared += 1
        }
        #expect(compared == 408)
    }

    @Test func continueFinalMessageCutsAfterTheLastContent() throws {
        let messages: [JSONValue] = [["role": "user", "content": "Hi"], ["role": "assistant", "content": "Sure, "]]
        let keeping = try ChatTemplate(source: "{% for m in messages %}<{{ m.role }}>{{ m.content }}</{{ m.role }}>{% endfor %}")
        #expect(try keeping.render(messages: messages, addGenerationPrompt: false, bosToken: "", eosToken: "",
                                   continueFinalMessage: true, now: Self.now) == "<user>Hi</user><assistant>Sure, ")
        let trimming = try ChatTemplate(source: "{% for m in messages %}<{{ m.role }}>{{ m.content|trim }}</{{ m.role }}>{% endfor %}")
        #expect(try trimming.render(messages: messages, addGenerationPrompt: false, bosToken: "", eosToken: "",
                                    continueFinalMessage: true, now: Self.now) == "<user>Hi</user><assistant>Sure,")
        #expect(throws: TemplateError.self) {
            try keeping.render(messages: messages, addGenerationPrompt: true, bosToken: "", eosToken: "",
                               continueFinalMessage: true, now: Self.now)
        }
        let dropping = try ChatTemplate(source: "{% for m in messages %}{{ m.role }}{% endfor %}")
        #expect(throws: TemplateError.self) {
            try dropping.render(messages: messages, addGenerationPrompt: false, bosToken: "", eosToken: "",
                                continueFinalMessage: true, now: Self.now)
        }
    }

    @Test func normalisationDropsNullsAndCopiesReasoning() throws {
        let messages: [JSONValue] = [
            ["role": "user", "content": "hi", "name": nil],
            ["role": "assistant", "content": "ok", "reasoning_content": "because"],
        ]
        let context = ChatTemplate.normalizedContext(messages: messages, tools: nil, addGenerationPrompt: true,
                                                     bosToken: "<s>", eosToken: "</s>", extra: JSONObject([("enable_thinking", .bool(false))]))
        #expect(context.keys == ["messages", "tools", "documents", "add_generation_prompt", "bos_token", "eos_token", "enable_thinking"])
        let normalized = context["messages"]?.arrayValue ?? []
        #expect(normalized[0].objectValue?.keys == ["role", "content"])
        #expect(normalized[1]["thinking"] == "because")
        #expect(context["tools"] == .null)
        #expect(context["documents"] == .null)
    }

    @Test func renderKeepsKeyOrderOfContextObjects() throws {
        let template = try ChatTemplate(source: "{{ tool|tojson }}{% for k, v in tool|items %}{{ k }}{% endfor %}")
        let context = try JSONValue(parsing: #"{"tool": {"zeta": 1, "alpha": {"y": 2, "b": 3}}}"#).objectValue!
        #expect(try template.render(context: context, now: Self.now) == #"{"zeta": 1, "alpha": {"y": 2, "b": 3}}zetaalpha"#)
        #expect(try template.render(variables: ["tool": ["q": 1]], now: Self.now) == #"{"q": 1}q"#)
    }

    @Test func plainFormatForModelsWithoutTemplates() {
        let messages: [JSONValue] = [
            ["role": "system", "content": "Be brief."],
            ["role": "user", "content": [["type": "text", "text": "Hi"], ["type": "text", "text": "!"]]],
            ["role": "assistant", "content": nil],
        ]
        #expect(PlainChatFormat.render(messages: messages, addGenerationPrompt: true)
                == "system: Be brief.\nuser: Hi!\nassistant: \nassistant:")
        #expect(PlainChatFormat.render(messages: Array(messages.prefix(1)), addGenerationPrompt: false) == "system: Be brief.\n")
    }

    @Test func dateParsingAndFormatting() throws {
        let date = try #require(TemplateDateTime(iso8601: "2026-03-05T07:08:09Z"))
        #expect(date == TemplateDateTime(year: 2026, month: 3, day: 5, hour: 7, minute: 8, second: 9))
        #expect(date.format("%Y-%m-%d %H:%M:%S %a %A %b %B %j") == "2026-03-05 07:08:09 Thu Thursday Mar March 064")
        #expect(TemplateDateTime(iso8601: "2026-13-01") == nil)
        #expect(TemplateDateTime(iso8601: "yesterday") == nil)
    }

    @Test func errorsAreTyped() {
        func error(_ source: String, _ context: JSONObject = JSONObject()) -> TemplateError? {
            do { _ = try ChatTemplate(source: source).render(context: context, now: Self.now); return nil } catch { return error }
        }
        #expect(error("{{ x.y }}")?.kind == .undefined)
        #expect(error("{{ 'a' + 1 }}")?.kind == .type)
        #expect(error("{{ [1].append(2) }}")?.kind == .security)
        #expect(error("{{ 1|nope }}")?.kind == .assertion)
        #expect(error("{% if true %}{{ 1|nope }}{% endif %}")?.kind == .runtime)
        #expect(error("{{ raise_exception('boom') }}") == TemplateError(.raised, "boom"))
        #expect(error("{{ x is frob }}")?.kind == .assertion)
        #expect(error("{% for a, b in [[1]] %}{% endfor %}")?.kind == .value)
    }

    @Test func templateIsReusableAcrossRendersAndThreads() async throws {
        let template = try ChatTemplate(source: "{% set ns = namespace(n=0) %}{% for m in messages %}{% set ns.n = ns.n + 1 %}{% endfor %}{{ ns.n }}")
        let messages: [JSONValue] = [["role": "user", "content": "a"], ["role": "user", "content": "b"]]
        let outputs = try await withThrowingTaskGroup(of: String.self) { group in
            for _ in 0..<8 {
                group.addTask {
                    try template.render(messages: messages, addGenerationPrompt: false, bosToken: "", eosToken: "", now: Self.now)
                }
            }
            return try await group.reduce(into: []) { $0.append($1) }
        }
        #expect(outputs == Array(repeating: "2", count: 8))
    }
}
