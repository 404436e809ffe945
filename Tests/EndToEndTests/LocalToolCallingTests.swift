import Foundation
import LocalBackend
import LoomSupport
import Provider
import Testing

/// A tool the model calls with a city name.
struct GetWeather: Tool {
    struct Arguments: Decodable, Generable {
        var city: String
        static var generationSchema: GenerationSchema {
            GenerationSchema(type: Arguments.self, properties: [.init(name: "city", type: String.self)])
        }
    }
    let name = "getWeather"
    let description = "Returns the current weather for a city."
    final class Log: Sendable { let cities = Locked<[String]>([]) }
    let log = Log()
    func call(arguments: Arguments) async throws -> String {
        log.cities.withLock { $0.append(arguments.city) }
        return "It is sunny and 21 °C in \(arguments.city)."
    }
}

/// Tool calls through the session's tool loop on SmolLM2, whose template has no tool support:
/// the fallback dialect describes the tool in the system message and the grammar makes the call
/// well formed.
@Suite(.serialized, .timeLimit(.minutes(30))) struct LocalToolCallingTests {
    @Test func getWeatherRoundTrip() async throws {
        let tool = GetWeather()
        let session = LanguageModelSession(
            model: E2EData.smol(), tools: [tool],
            instructions: "You help with the weather. Call getWeather once; when its result arrives, answer the user in one sentence.")
        // SmolLM2-135M tends to call the tool again after reading its output until the session's
        // step limit; that one error is the known issue, and the grammar-guaranteed call, the tool
        // run and the second step are covered deterministically by `executorStepsOfARoundTrip`.
        try await withKnownIssue("SmolLM2-135M may keep calling the tool until the step limit", isIntermittent: true) {
            let response = try await session.respond(
                to: "What is the weather in Paris?",
                options: GenerationOptions(samplingMode: .greedy, maximumResponseTokens: 40, toolCallingMode: .required))
            var sawCall = false, sawOutput = false
            for entry in response.transcriptEntries {
                switch entry {
                case .toolCalls(let calls):
                    sawCall = true
                    #expect(calls.calls.allSatisfy { $0.toolName == "getWeather" })
                case .toolOutput(let output):
                    sawOutput = true
                    #expect(output.toolName == "getWeather")
                default: break
                }
            }
            #expect(sawCall && sawOutput)
            #expect(!response.content.isEmpty)
            #expect(!response.content.contains("<tool_call>"))
        } matching: { issue in
            isStepLimitExceeded(issue)
        }
        let cities = tool.log.cities.withLock { $0 }
        #expect(cities.count >= 1)
        #expect(cities.allSatisfy { !$0.isEmpty })
    }

    /// The two steps of a round trip driven directly: a required call (grammar-guaranteed and
    /// parsed into a `.toolCalls` event), then the answer once the tool's output is in the transcript.
    @Test func executorStepsOfARoundTrip() async throws {
        let model = E2EData.smol()
        let executor = try LocalLanguageModel.Executor(configuration: model.executorConfiguration)
        let tool = Transcript.ToolDefinition(tool: GetWeather())
        let prompt = Transcript.Entry.prompt(.init(segments: [.text(.init(content: "What is the weather in Paris?"))]))
        let log = EventLog()
        try await executor.respond(
            to: LanguageModelExecutorGenerationRequest(
                transcript: Transcript(entries: [prompt]), enabledTools: [tool],
                generationOptions: GenerationOptions(samplingMode: .greedy, maximumResponseTokens: 40, toolCallingMode: .required)),
            model: model, streamingInto: log.channel)
        var calls: [(id: String, name: String, arguments: String)] = []
        for event in log.all {
            if case .toolCalls(let t) = event.kind.storage, case .toolCall(let id, let name, .appendArguments(let args, _)) = t.action {
                calls.append((id, name, args))
            }
        }
        let call = try #require(calls.first)
        #expect(call.name == "getWeather")
        let arguments = try GeneratedContent(json: call.arguments)
        let city = try #require(try arguments.properties()["city"]?.value(String.self))
        #expect(!city.isEmpty)
        #expect(log.texts.isEmpty)

        let answer = EventLog()
        let history = Transcript(entries: [
            prompt,
            .toolCalls(.init([Transcript.ToolCall(id: call.id, toolName: call.name, arguments: arguments)])),
            .toolOutput(.init(id: call.id, toolName: call.name, segments: [.text(.init(content: "Sunny, 21 °C in \(city)."))])),
        ])
        try await executor.respond(
            to: LanguageModelExecutorGenerationRequest(
                transcript: history, enabledTools: [tool],
                generationOptions: GenerationOptions(samplingMode: .greedy, maximumResponseTokens: 24, toolCallingMode: .disallowed)),
            model: model, streamingInto: answer.channel)
        #expect(!answer.texts.joined().isEmpty)
        #expect(!answer.texts.joined().contains("<tool_call>"))
        // The second step's prompt starts with the first step's: its KV cache is reused.
        #expect((answer.usage?.0.cachedTokenCount ?? 0) > 0)
    }

    @Test func disallowedModeNeverCalls() async throws {
        let tool = GetWeather()
        let session = LanguageModelSession(model: E2EData.smol(), tools: [tool])
        let response = try await session.respond(
            to: "Call getWeather for Rome.",
            options: GenerationOptions(samplingMode: .greedy, maximumResponseTokens: 24, toolCallingMode: .disallowed))
        #expect(tool.log.cities.withLock { $0 }.isEmpty)
        #expect(response.toolCalls.isEmpty)
    }
}

/// True for the one issue the SmolLM2 tool-loop tests expect: the session's tool-calling step
/// limit was reached. Any other error or failed expectation is a real failure.
func isStepLimitExceeded(_ issue: Issue) -> Bool {
    if case .stepLimitExceeded? = issue.error as? LanguageModelSession.ToolLoopError { return true }
    return false
}
