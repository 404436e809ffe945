import Foundation
import Provider
import Synchronization
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
    final class Log: Sendable { let cities = Mutex<[String]>([]) }
    let log = Log()
    func call(arguments: Arguments) async throws -> String {
        log.cities.withLock { $0.append(arguments.city) }
        return "It is sunny and 21 °C in \(arguments.city)."
    }
}

/// Tool calls through the session's tool loop on SmolLM2, whose template has no tool support:
/// the fallback dialect describes the tool in the system message and the grammar makes the call
/// well formed.
@Suite(.serialized) struct LocalToolCallingTests {
    @Test func getWeatherRoundTrip() async throws {
        let tool = GetWeather()
        let session = LanguageModelSession(model: E2EData.smol(), tools: [tool], instructions: "You help with the weather.")
        let response = try await session.respond(
            to: "What is the weather in Paris?",
            options: GenerationOptions(samplingMode: .greedy, maximumResponseTokens: 40, toolCallingMode: .required))
        let cities = tool.log.cities.withLock { $0 }
        #expect(cities.count >= 1)
        #expect(cities.allSatisfy { !$0.isEmpty })
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
