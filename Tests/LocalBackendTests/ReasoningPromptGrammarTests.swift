import Testing
import ChatTemplate
import Engine
import Grammar
import LoomJSON
@testable import LocalBackend
@testable import Provider

/// When the rendered generation prompt already opened a reasoning block (Qwen3-style
/// templates end it with `<think>\n`), the grammar the executor builds must start inside that
/// block, exactly as the parser does; otherwise a call (or the schema's JSON) may start inside
/// the thoughts, where the parser reads it as reasoning and the call is lost.
///
/// The prompts here are rendered from the real templates in ../shared/chat-templates, and the
/// grammars come from `ToolCallGrammar.forRequest`, the function `LocalLanguageModel`'s executor
/// compiles its tool and schema grammars with (`LocalExecutor.toolGrammar`). Calls use the Hermes
/// envelope throughout: what is checked is where the reasoning block ends, which is the same
/// for every dialect.
@Suite struct ReasoningPromptGrammarTests {
    let r = ToolCallingReplay.small
    let tools = ToolCallingFixtures.tools
    static let call = "<tool_call>\n" + ToolCallingGrammarTests.weather + "\n</tool_call>"

    func render(_ template: ChatTemplate, _ configuration: ReasoningConfiguration, tools: [Transcript.ToolDefinition] = []) throws -> String {
        try template.render(messages: [["role": "user", "content": "Weather in Paris?"]],
                            tools: tools.isEmpty ? nil : ToolCallDialect.hermes.templateTools(tools),
                            addGenerationPrompt: true, bosToken: "", eosToken: "",
                            extra: configuration.templateVariables)
    }

    /// Calls read back from `output` by the parser the executor uses for that prompt.
    func parsedCalls(_ output: String, startsInReasoning: Bool) throws -> [String] {
        var parser = ToolCallStreamParser(dialect: .hermes, reasoning: .think, startsInReasoning: startsInReasoning,
                                          makeCallID: { "c\($0)" })
        let events = try parser.consume(output) + parser.finish()
        return events.compactMap { if case .toolCall(let c) = $0 { return c.toolName } else { return nil } }
    }

    @Test func qwen3PromptThatOpensThinkingMakesTheGrammarCloseItFirst() throws {
        let template = try ToolCallingFixtures.template("Qwen3.5-4B.jinja")
        let thinking = ReasoningConfiguration.resolve(level: nil, templateSource: template.source, markers: .think)
        let prompt = try render(template, thinking, tools: tools)
        #expect(prompt.hasSuffix("<|im_start|>assistant\n<think>\n"))
        let opened = ReasoningMarkers.think.promptOpensReasoning(prompt)
        #expect(opened)

        for mode: GenerationOptions.ToolCallingMode? in [nil, .required] {
            let g = try ToolCallGrammar.forRequest(tools: tools, dialect: .hermes, mode: mode, response: nil,
                                                   reasoning: .think, thinking: thinking.thinkingEnabled,
                                                   startsInReasoning: opened)
            let closed = "I should look it up.</think>\n\n" + Self.call
            #expect(r.accepts(g, closed))
            #expect(try parsedCalls(closed, startsInReasoning: opened) == ["getWeather"])
            // What the grammar built without the prompt's state admitted: a call straight away,
            // which the parser, inside the open block, takes for thoughts.
            #expect(!r.accepts(g, Self.call))
            #expect(try parsedCalls(Self.call, startsInReasoning: opened).isEmpty)
            #expect(!r.accepts(g, "<think>again</think>" + Self.call))
            #expect(r.accepts(g, "thoughts</think>\n\nIt is sunny.") == (mode == nil))
        }
        let before = try ToolCallGrammar.forRequest(tools: tools, dialect: .hermes, mode: .required, response: nil,
                                                    reasoning: .think, thinking: true, startsInReasoning: false)
        #expect(r.accepts(before, Self.call))
    }

    @Test func qwen3WithThinkingSwitchedOffStartsOutsideReasoning() throws {
        let template = try ToolCallingFixtures.template("Qwen3.5-4B.jinja")
        let off = ReasoningConfiguration.resolve(level: .custom("no_think"), templateSource: template.source, markers: .think)
        let prompt = try render(template, off, tools: tools)
        #expect(prompt.hasSuffix("<think>\n\n</think>\n\n"))
        let opened = ReasoningMarkers.think.promptOpensReasoning(prompt)
        #expect(!opened)
        let g = try ToolCallGrammar.forRequest(tools: tools, dialect: .hermes, mode: .required, response: nil,
                                               reasoning: .think, thinking: off.thinkingEnabled, startsInReasoning: opened)
        #expect(r.accepts(g, Self.call))
        #expect(!r.accepts(g, "x</think>" + Self.call))
        #expect(!r.accepts(g, "<think>x</think>" + Self.call))
    }

    /// DeepSeek-R1's template opens `<think>` whatever the request says: a prompt that opened the
    /// block wins over thinking switched off, and a schema's JSON comes after the block closes.
    @Test func schemaAfterAReasoningBlockThePromptOpened() throws {
        let template = try ToolCallingFixtures.template("deepseek-ai-DeepSeek-R1-Distill-Llama-8B.jinja")
        let off = ReasoningConfiguration.resolve(level: .custom("no_think"), templateSource: template.source, markers: .think)
        #expect(!off.thinkingEnabled)
        let prompt = try render(template, off)
        let opened = ReasoningMarkers.think.promptOpensReasoning(prompt)
        #expect(opened)
        let response = try Grammar(jsonSchema: #"{"type":"object","properties":{"city":{"type":"string"}},"required":["city"]}"#)
        let g = try ToolCallGrammar.forRequest(tools: [], dialect: .hermes, mode: .disallowed, response: response,
                                               reasoning: .think, thinking: off.thinkingEnabled, startsInReasoning: opened)
        #expect(r.accepts(g, #"Paris, then.</think>{"city":"Paris"}"#))
        #expect(!r.accepts(g, #"{"city":"Paris"}"#))
        #expect(!r.accepts(g, #"x</think>Paris"#))
        // ModelToolSupport (the public helper) builds the same grammar from the rendered prompt.
        let support = ModelToolSupport(dialect: .hermes, reasoningMarkers: .think, templateSource: template.source)
        let helper = try #require(try support.grammar(tools: [], mode: nil, response: response,
                                                      thinking: off.thinkingEnabled, renderedPrompt: prompt))
        #expect(r.accepts(helper, #"Paris, then.</think>{"city":"Paris"}"#))
        #expect(!r.accepts(helper, #"{"city":"Paris"}"#))
    }

    /// A model without reasoning markers has nothing to close, whatever the prompt ends with.
    @Test func noMarkersNoReasoning() throws {
        let g = try ToolCallGrammar.forRequest(tools: tools, dialect: .hermes, mode: .required, response: nil,
                                               reasoning: nil, thinking: true, startsInReasoning: true)
        #expect(r.accepts(g, Self.call))
        #expect(!r.accepts(g, "x</think>" + Self.call))
    }
}
