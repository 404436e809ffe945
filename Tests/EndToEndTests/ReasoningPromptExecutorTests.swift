import Foundation
import Testing
import LoomJSON
@testable import LocalBackend
@testable import Provider

/// Through `LocalLanguageModel`'s executor: a model whose chat template ends the generation
/// prompt with `<think>\n` (DeepSeek-R1-Distill's) starts its output inside a reasoning block,
/// so the grammar the executor compiles must let it finish the thoughts and close them before a
/// call or the schema's JSON, also with reasoning switched off (`no_think`, which this template
/// ignores): a grammar that forced the call at once would have the parser read it as thoughts,
/// and the required call would be lost.
///
/// The model is `Tests/Fixtures/reasoning/tiny-r1-think.gguf` (`make_reasoning_fixture.py`):
/// one layer of random weights over a byte-level vocabulary with `<think>`/`</think>` tokens.
/// Its choices are noise; the grammar and the completion planner make the output's shape, which
/// is what these tests check.
@Suite(.serialized, .timeLimit(.minutes(30))) struct ReasoningPromptExecutorTests {
    static var fixture: String {
        SharedData.packageRoot.appendingPathComponent("Tests/Fixtures/reasoning/tiny-r1-think.gguf").path
    }

    static let question = Transcript.Entry.prompt(.init(segments: [.text(.init(content: "What is the weather in Paris?"))]))

    func run(tools: [Transcript.ToolDefinition] = [], schema: GenerationSchema? = nil, mode: GenerationOptions.ToolCallingMode?,
             level: ContextOptions.ReasoningLevel?) async throws -> EventLog {
        let model = LocalLanguageModel(path: Self.fixture, variant: .sequential, contextSize: 2048, threads: 1)
        let executor = try LocalLanguageModel.Executor(configuration: model.executorConfiguration)
        let recording = EventLog()
        try await executor.respond(
            to: LanguageModelExecutorGenerationRequest(
                transcript: Transcript(entries: [Self.question]), enabledTools: tools, schema: schema,
                generationOptions: GenerationOptions(samplingMode: .greedy, maximumResponseTokens: 200, toolCallingMode: mode),
                contextOptions: ContextOptions(reasoningLevel: level)),
            model: model, streamingInto: recording.channel)
        return recording
    }

    @Test func theFixtureOpensReasoningInItsPrompt() throws {
        let model = LocalLanguageModel(path: Self.fixture, variant: .sequential, contextSize: 2048, threads: 1)
        let executor = try LocalLanguageModel.Executor(configuration: model.executorConfiguration)
        #expect(executor.reasoning == .think)
        let prompt = try executor.preparePrompt(Transcript(entries: [Self.question]), schema: nil,
                                                contextOptions: ContextOptions(reasoningLevel: .custom("no_think")))
        #expect(prompt.text.hasSuffix("<think>\n"))
        #expect(prompt.startsInReasoning)
    }

    @Test(arguments: [nil, ContextOptions.ReasoningLevel.custom("no_think")])
    func requiredCallComesAfterTheThoughts(level: ContextOptions.ReasoningLevel?) async throws {
        let tool = Transcript.ToolDefinition(name: "getWeather", description: "Current weather in a city.",
                                             parameters: E2EData.weatherSchema)
        let recording = try await run(tools: [tool], mode: .required, level: level)
        let entries = recording.entries
        #expect(entries.first?.assembledKind == "reasoning", "entries: \(entries.map(\.assembledKind))")
        let calls = try #require(entries.compactMap(\.assembledToolCalls).first, "the required call was lost; entries: \(entries.map(\.assembledKind))")
        #expect(calls.calls.map(\.toolName) == ["getWeather"])
        let city = try calls.calls[0].arguments.properties()["city"]?.value(String.self)
        #expect(city != nil)
    }

    @Test func schemaAnswerComesAfterTheThoughts() async throws {
        let schema = try GenerationSchema(jsonSchema: #"{"type":"object","properties":{"city":{"type":"string","maxLength":12}},"required":["city"],"additionalProperties":false}"#)
        let recording = try await run(schema: schema, mode: nil, level: .custom("no_think"))
        let entries = recording.entries
        #expect(entries.first?.assembledKind == "reasoning", "entries: \(entries.map(\.assembledKind))")
        let response = try #require(entries.compactMap(\.assembledResponse).last)
        // Whichever way the assembler keeps it: streamed text, or a structured segment.
        let json = response.segments.map { segment -> String in
            switch segment {
            case .text(let t): return t.content
            case .structure(let s): return s.content.jsonString
            default: return ""
            }
        }.joined()
        let value = try JSONValue(parsing: json)
        #expect(value["city"]?.stringValue != nil, "the answer is not the schema's object: \(json)")
    }
}

extension EventLog {
    /// The events assembled into transcript entries, as a session would.
    var entries: [Transcript.Entry] {
        var assembler = TranscriptAssembler()
        for event in all { assembler.apply(event) }
        return assembler.finalEntries()
    }
}

private extension Transcript.Entry {
    var assembledKind: String {
        switch self {
        case .instructions: "instructions"
        case .prompt: "prompt"
        case .toolCalls: "toolCalls"
        case .toolOutput: "toolOutput"
        case .response: "response"
        case .reasoning: "reasoning"
        }
    }
    var assembledToolCalls: Transcript.ToolCalls? { if case .toolCalls(let t) = self { return t }; return nil }
    var assembledResponse: Transcript.Response? { if case .response(let r) = self { return r }; return nil }
}
