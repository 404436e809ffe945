import Foundation
import Testing
import ChatTemplate
import Engine
import LoomJSON
@testable import LocalBackend
@testable import Provider

/// Fixtures for the tool-calling suites: ../shared templates and the default model.
enum ToolCallingFixtures {
    /// A chat template from ../shared/chat-templates/templates (fails when missing).
    static func template(_ name: String) throws -> ChatTemplate {
        let url = SharedData.root.appendingPathComponent("chat-templates/templates/\(name)")
        return try ChatTemplate(source: String(contentsOf: url, encoding: .utf8))
    }


    static let weatherSchema = try! GenerationSchema(jsonSchema: #"""
        {"type": "object", "properties": {"city": {"type": "string"}, "unit": {"enum": ["celsius", "fahrenheit"]}},
         "required": ["city"], "additionalProperties": false}
        """#)
    static let searchSchema = try! GenerationSchema(jsonSchema: #"""
        {"type": "object", "properties": {"query": {"type": "string"}, "limit": {"type": "integer", "minimum": 1, "maximum": 10}},
         "required": ["query", "limit"]}
        """#)
    static let tools = [
        Transcript.ToolDefinition(name: "getWeather", description: "Current weather in a city.", parameters: weatherSchema),
        Transcript.ToolDefinition(name: "search", description: "Search the web.", parameters: searchSchema),
    ]
}

@Suite struct ToolCallingDialectTests {
    @Test(arguments: [
        ("Qwen-Qwen2.5-7B-Instruct.jinja", ToolCallDialect.Family.hermes),
        ("Qwen-Qwen3-0.6B.jinja", .hermes),
        ("NousResearch-Hermes-3-Llama-3.1-8B-tool_use.jinja", .hermes),
        ("meta-llama-Llama-3.1-8B-Instruct.jinja", .llama3),
        ("meta-llama-Llama-3.3-70B-Instruct.jinja", .llama3),
        ("mistralai-Mistral-Nemo-Instruct-2407.jinja", .mistral),
        // Mistral Small 3.2 writes `[TOOL_CALLS]name[CALL_ID]…[ARGS]{…}`, a syntax not handled: fallback.
        ("Mistral-Small-3.2-24B-Instruct-2506.jinja", .fallback),
    ])
    func detectsFamilyFromTemplate(name: String, family: ToolCallDialect.Family) throws {
        let dialect = ToolCallDialect.detect(template: try ToolCallingFixtures.template(name))
        #expect(dialect.family == family, "\(name): \(dialect)")
        #expect(dialect.rendersToolsNatively == (family != .fallback))
        #expect(dialect.toolOutputRole == .tool)
    }

    @Test func mistralNeedsItsMarkerTokenWhenTheVocabularyIsKnown() throws {
        let t = try ToolCallingFixtures.template("mistralai-Mistral-Nemo-Instruct-2407.jinja")
        #expect(ToolCallDialect.detect(template: t, specialTokens: ["[TOOL_CALLS]", "[INST]"]).family == .mistral)
        #expect(ToolCallDialect.detect(template: t, specialTokens: ["<s>", "</s>"]).family == .fallback)
    }

    @Test func smolLM2GetsTheFallbackWithAToolRole() throws {
        let file = try GGUFFile(path: SharedData.defaultModel)
        let template = try #require(try file.chatTemplate())
        let tokenizer = try Tokenizer(gguf: file)
        let dialect = ToolCallDialect.detect(template: template, specialTokens: ToolCallingVocabulary.specialTokenTexts(of: tokenizer))
        #expect(dialect == .fallback)
        #expect(dialect.toolOutputRole == .tool)
        #expect(ReasoningMarkers.detect(specialTokens: ToolCallingVocabulary.specialTokenTexts(of: tokenizer)) == nil)
    }

    @Test func noTemplateMeansFallback() {
        #expect(ToolCallDialect.detect(template: nil).family == .fallback)
    }

    @Test func templateWithoutToolRoleFeedsOutputsAsUserText() throws {
        // A template that only knows user and assistant turns.
        let t = try ChatTemplate(source: """
            {% for m in messages %}{% if m.role == 'user' %}U: {{ m.content }}\n{% elif m.role == 'assistant' %}A: {{ m.content }}\n{% endif %}{% endfor %}
            """)
        let d = ToolCallDialect.detect(template: t)
        #expect(d.family == .fallback)
        #expect(d.toolOutputRole == .user)
        let msg = d.toolOutputMessage(callID: "c1", toolName: "getWeather", content: "18C")
        #expect(msg["role"]?.stringValue == "user")
        #expect(msg["content"]?.stringValue == "<tool_response>\n18C\n</tool_response>")
    }

    @Test func templateWithoutSystemRoleGetsToolsInTheFirstUserMessage() throws {
        let t = try ChatTemplate(source: """
            {% for m in messages %}{% if m.role == 'system' %}{{ raise_exception('System role not supported') }}{% endif %}<{{ m.role }}>{{ m.content }}\n{% endfor %}
            """)
        let d = ToolCallDialect.detect(template: t)
        #expect(d.family == .fallback && !d.hasSystemRole)
        let messages = d.injectingTools(ToolCallingFixtures.tools, into: [["role": "user", "content": "Hi"]])
        let text = try t.render(messages: messages, addGenerationPrompt: true, bosToken: "", eosToken: "")
        #expect(text.hasPrefix("<user>You can call tools."))
        #expect(text.hasSuffix("\n\nHi\n"))
    }

    /// What each template writes for an assistant call is exactly what the parser reads back.
    @Test(arguments: [
        "Qwen-Qwen2.5-7B-Instruct.jinja", "Qwen-Qwen3-0.6B.jinja", "NousResearch-Hermes-3-Llama-3.1-8B-tool_use.jinja",
        "meta-llama-Llama-3.1-8B-Instruct.jinja", "mistralai-Mistral-Nemo-Instruct-2407.jinja",
    ])
    func parserReadsTheTemplatesOwnCallSyntax(name: String) throws {
        let template = try ToolCallingFixtures.template(name)
        let dialect = ToolCallDialect.detect(template: template)
        let probe = TemplateProbe(template)
        let full = try #require(probe.toolCallText)
        // From the opener on (the turn starts with the template's assistant header).
        let opener = dialect.family == .llama3 ? "{\"name\"" : dialect.callOpener
        let written = String(full[try #require(full.range(of: opener)).lowerBound...])
        var parser = ToolCallStreamParser(dialect: dialect, makeCallID: { "generated\($0)" })
        var events = try parser.consume(written)
        events += try parser.finish()
        let calls = events.compactMap { if case .toolCall(let c) = $0 { return c } else { return nil } }
        #expect(calls.count == 1, "\(name): \(written)")
        #expect(calls.first?.toolName == TemplateProbe.toolName)
        #expect(calls.first?.arguments.jsonValue == ["q": .string(TemplateProbe.argumentText)])
    }

    @Test func nativeTranscriptMessagesRenderThroughTheTemplate() throws {
        let template = try ToolCallingFixtures.template("Qwen-Qwen2.5-7B-Instruct.jinja")
        let d = ToolCallDialect.detect(template: template)
        let call = Transcript.ToolCall(id: "call1", toolName: "getWeather", arguments: GeneratedContent(jsonValue: ["city": "Paris"]))
        let messages: [JSONValue] = [
            ["role": "user", "content": "Weather in Paris?"],
            d.assistantMessage(calls: [call]),
            d.toolOutputMessage(callID: "call1", toolName: "getWeather", content: "18C, sunny"),
        ]
        let text = try template.render(messages: messages, tools: d.templateTools(ToolCallingFixtures.tools),
                                       addGenerationPrompt: true, bosToken: "", eosToken: "")
        #expect(text.contains(#""name": "getWeather""#))
        #expect(text.contains("<tool_call>\n{\"name\": \"getWeather\", \"arguments\": {\"city\": \"Paris\"}}\n</tool_call>"))
        #expect(text.contains("<tool_response>\n18C, sunny\n</tool_response>"))
        #expect(d.systemPrompt(for: ToolCallingFixtures.tools) == nil)
    }

    @Test func fallbackTranscriptMessagesRenderThroughSmolLM2() throws {
        let file = try GGUFFile(path: SharedData.defaultModel)
        let template = try #require(try file.chatTemplate())
        let d = ToolCallDialect.detect(template: template)
        #expect(d.templateTools(ToolCallingFixtures.tools) == nil)
        let call = Transcript.ToolCall(id: "call1", toolName: "getWeather", arguments: GeneratedContent(jsonValue: ["city": "Paris"]))
        var messages: [JSONValue] = [
            ["role": "system", "content": "You are terse."],
            ["role": "user", "content": "Weather in Paris?"],
            d.assistantMessage(calls: [call]),
            d.toolOutputMessage(callID: "call1", toolName: "getWeather", content: "18C, sunny"),
        ]
        messages = d.injectingTools(ToolCallingFixtures.tools, into: messages)
        #expect(messages.count == 4)
        let text = try template.render(messages: messages, addGenerationPrompt: true, bosToken: "", eosToken: "")
        #expect(text.hasPrefix("<|im_start|>system\nYou are terse.\n\nYou can call tools."))
        #expect(text.contains(#"{"type": "function", "function": {"name": "getWeather", "description": "Current weather in a city.""#))
        #expect(text.contains("<|im_start|>assistant\n<tool_call>{\"name\": \"getWeather\", \"arguments\": {\"city\":\"Paris\"}}</tool_call><|im_end|>"))
        #expect(text.contains("<|im_start|>tool\n18C, sunny<|im_end|>"))
        #expect(text.hasSuffix("<|im_start|>assistant\n"))
        // Without a system message the description becomes the first message.
        let injected = d.injectingTools(ToolCallingFixtures.tools, into: [["role": "user", "content": "Hi"]])
        #expect(injected.count == 2 && injected[0]["role"]?.stringValue == "system")
    }

    @Test func renderedCallsMatchTheGrammarsSyntax() throws {
        let calls = [
            Transcript.ToolCall(id: "a", toolName: "getWeather", arguments: GeneratedContent(jsonValue: ["city": "Paris"])),
            Transcript.ToolCall(id: "b", toolName: "search", arguments: GeneratedContent(jsonValue: ["query": "x", "limit": 2])),
        ]
        #expect(ToolCallDialect.hermes.renderCalls(calls) == """
            <tool_call>
            {"name": "getWeather", "arguments": {"city":"Paris"}}
            </tool_call>
            <tool_call>
            {"name": "search", "arguments": {"query":"x","limit":2}}
            </tool_call>
            """)
        #expect(ToolCallDialect.mistral.renderCalls(calls) ==
                #"[TOOL_CALLS][{"name": "getWeather", "arguments": {"city":"Paris"}}, {"name": "search", "arguments": {"query":"x","limit":2}}]"#)
        #expect(ToolCallDialect.llama3.renderCalls(Array(calls.prefix(1))) == #"{"name": "getWeather", "parameters": {"city":"Paris"}}"#)
    }
}

@Suite struct ToolCallingReasoningTests {
    @Test func detectsMarkersFromSpecialTokens() {
        #expect(ReasoningMarkers.detect(specialTokens: ["<think>", "</think>", "<|im_end|>"]) == .think)
        #expect(ReasoningMarkers.detect(specialTokens: ["[THINK]", "[/THINK]"])?.open == "[THINK]")
        #expect(ReasoningMarkers.detect(specialTokens: ["<think>"]) == nil)
        #expect(ReasoningMarkers.detect(specialTokens: []) == nil)
    }

    @Test func noThinkDisablesThinkingThroughQwen3sSwitch() throws {
        let template = try ToolCallingFixtures.template("Qwen-Qwen3-0.6B.jinja")
        let config = ReasoningConfiguration.resolve(level: .custom("no_think"), templateSource: template.source, markers: .think)
        #expect(!config.thinkingEnabled)
        #expect(config.templateVariables["enable_thinking"] == .bool(false))
        let prompt = try template.render(messages: [["role": "user", "content": "Hi"]], addGenerationPrompt: true,
                                         bosToken: "", eosToken: "", extra: config.templateVariables)
        #expect(prompt.hasSuffix("<|im_start|>assistant\n<think>\n\n</think>\n\n"))
        #expect(!ReasoningMarkers.think.promptOpensReasoning(prompt))

        let on = ReasoningConfiguration.resolve(level: .deep, templateSource: template.source, markers: .think)
        #expect(on.thinkingEnabled && on.templateVariables["enable_thinking"] == .bool(true))
        let byDefault = ReasoningConfiguration.resolve(level: nil, templateSource: template.source, markers: .think)
        #expect(byDefault.thinkingEnabled && byDefault.templateVariables.isEmpty)
        let none = ReasoningConfiguration.resolve(level: nil, templateSource: template.source, markers: nil)
        #expect(!none.thinkingEnabled)
    }

    @Test func effortLevelsMapToReasoningEffort() throws {
        let template = try ToolCallingFixtures.template("openai-gpt-oss-120b.jinja")
        let light = ReasoningConfiguration.resolve(level: .light, templateSource: template.source, markers: .think)
        #expect(light.templateVariables["reasoning_effort"] == "low")
        let deep = ReasoningConfiguration.resolve(level: .deep, templateSource: template.source, markers: .think)
        #expect(deep.templateVariables["reasoning_effort"] == "high")
    }

    @Test func promptThatOpensReasoning() throws {
        let template = try ToolCallingFixtures.template("llama-cpp-deepseek-r1.jinja")
        let prompt = try template.render(messages: [["role": "user", "content": "Hi"]], addGenerationPrompt: true,
                                         bosToken: "<s>", eosToken: "</s>")
        #expect(ReasoningMarkers.think.promptOpensReasoning(prompt) == prompt.hasSuffix("<think>\n"))
        #expect(ReasoningMarkers.think.promptOpensReasoning("x<think>\n"))
        #expect(!ReasoningMarkers.think.promptOpensReasoning("x<think>a</think>\n"))
    }
}

@Suite struct ToolCallingTemplateSweepTests {
    static let names: [String] = {
        let dir = SharedData.root.appendingPathComponent("chat-templates/templates")
        return ((try? FileManager.default.contentsOfDirectory(atPath: dir.path)) ?? []).filter { $0.hasSuffix(".jinja") }.sorted()
    }()

    @Test func suiteIsPresent() {
        #expect(Self.names.count >= 45)
    }

    /// Every template of the suite gets a dialect: a native one only when the parser reads the
    /// template's own rendering of a call, otherwise the fallback, which renders nothing natively.
    @Test(arguments: names) func nativeDialectsParseTheirOwnCalls(name: String) throws {
        let template = try ToolCallingFixtures.template(name)
        let dialect = ToolCallDialect.detect(template: template)
        if dialect.family == .fallback {
            #expect(!dialect.rendersToolsNatively && !dialect.rendersToolCallsNatively, "\(name) as \(dialect)")
        } else {
            let written = try #require(TemplateProbe(template).toolCallText)
            #expect(TemplateProbe.parsesProbeCall(written, as: dialect.family), "\(name) as \(dialect): \(written)")
        }
    }
}
