import Foundation
import LoomSupport
import Testing
@testable import Provider

struct WeatherTool: Tool {
    struct Arguments: Decodable, Generable {
        var city: String
        static var generationSchema: GenerationSchema {
            GenerationSchema(type: Arguments.self, properties: [.init(name: "city", type: String.self)])
        }
    }
    let name = "weather"
    let description = "Current weather for a city."
    final class Log: Sendable { let cities = Locked<[String]>([]) }
    let log = Log()
    func call(arguments: Arguments) async throws -> String {
        log.cities.withLock { $0.append(arguments.city) }
        return "Sunny in \(arguments.city)"
    }
}

/// Two calls that each wait for the other prove the tools run concurrently.
struct RendezvousTool: Tool {
    struct Arguments: Decodable, Generable {
        var me: String
        var other: String
        static var generationSchema: GenerationSchema {
            GenerationSchema(type: Arguments.self, properties: [.init(name: "me", type: String.self), .init(name: "other", type: String.self)])
        }
    }
    let name = "meet"
    let description = "Waits for a peer."
    func call(arguments: Arguments) async throws -> GeneratedContent {
        await Gates.shared.signal(arguments.me)
        await Gates.shared.wait(arguments.other)
        return GeneratedContent(properties: ["met": arguments.other])
    }
}

struct FailingTool: Tool {
    struct Arguments: Decodable, Generable {
        static var generationSchema: GenerationSchema { GenerationSchema(type: Arguments.self, properties: []) }
    }
    struct Broken: Error {}
    let name = "broken"
    let description = "Always fails."
    func call(arguments: Arguments) async throws -> String { throw Broken() }
}

@Suite(.timeLimit(.minutes(2))) struct ToolLoopTests {
    @Test func `tool-call streaming assembles one call, runs the tool and continues to a response`() async throws {
        let model = MockLanguageModel(steps: [
            [.toolCall(id: "c1", name: "weather", arguments: ""), .toolCall(id: "c1", name: "weather", arguments: "{\"city\":"),
             .toolCall(id: "c1", name: "weather", arguments: "\"Paris\"}")],
            [.text("It is sunny.")],
        ])
        let tool = WeatherTool()
        let session = LanguageModelSession(model: model, tools: [tool])
        let response = try await session.respond(to: "Weather in Paris?")
        #expect(response.content == "It is sunny.")
        #expect(response.toolCalls.count == 1)
        #expect(response.toolCalls.first?.arguments.jsonString == #"{"city":"Paris"}"#)
        #expect(tool.log.cities.withLock { $0 } == ["Paris"])
        #expect(session.transcript.map(\.kindName) == ["instructions", "prompt", "toolCalls", "toolOutput", "response"])
        let output = try #require(session.transcript[3].toolOutputValue)
        #expect(output.id == "c1")
        #expect(text(of: output.segments) == "Sunny in Paris")
        // The second executor call saw the call and its output.
        let requests = MockRegistry.get(model.tag).requests
        #expect(requests.count == 2)
        #expect(requests[1].transcript.map(\.kindName) == ["instructions", "prompt", "toolCalls", "toolOutput"])
        #expect(requests[0].enabledToolDefinitions.map(\.name) == ["weather"])
        #expect(requests[0].enabledToolDefinitions.first?.parameters.jsonSchema["properties"]?["city"] != nil)
    }

    @Test func `parallel tool calls run concurrently and outputs keep call order`() async throws {
        let a = UUID().uuidString, b = UUID().uuidString
        let model = MockLanguageModel(steps: [
            [.toolCall(id: "1", name: "meet", arguments: "{\"me\":\"\(a)\",\"other\":\"\(b)\"}"),
             .toolCall(id: "2", name: "meet", arguments: "{\"me\":\"\(b)\",\"other\":\"\(a)\"}")],
            [.text("done")],
        ])
        let session = LanguageModelSession(model: model, tools: [RendezvousTool()])
        let response = try await session.respond(to: "go")
        #expect(response.content == "done")
        let outputs = session.transcript.compactMap(\.toolOutputValue)
        #expect(outputs.map(\.id) == ["1", "2"])
        let s = try #require(outputs.first?.segments.first?.structureValue)
        #expect(s.content.jsonString == "{\"met\":\"\(b)\"}")
    }

    @Test func `required tool calling applies to the first step only`() async throws {
        let model = MockLanguageModel(steps: [
            [.toolCall(id: "c", name: "weather", arguments: "{\"city\":\"Oslo\"}")],
            [.text("Cold.")],
        ])
        let session = LanguageModelSession(model: model, tools: [WeatherTool()])
        _ = try await session.respond(to: "x", options: GenerationOptions(toolCallingMode: .required))
        let modes = MockRegistry.get(model.tag).requests.map { $0.generationOptions.toolCallingMode?.kind }
        #expect(modes == [.required, .allowed])
    }

    @Test func `a throwing tool surfaces as ToolCallError and the transcript reverts`() async throws {
        let model = MockLanguageModel(steps: [[.toolCall(id: "c", name: "broken", arguments: "{}")], [.text("x")]])
        let session = LanguageModelSession(model: model, tools: [FailingTool()])
        let before = session.transcript
        do {
            _ = try await session.respond(to: "x")
            Issue.record("expected ToolCallError")
        } catch let error as LanguageModelSession.ToolCallError {
            #expect(error.tool.name == "broken")
            #expect(error.underlyingError is FailingTool.Broken)
        }
        #expect(session.transcript == before)
    }

    @Test func `unparseable tool arguments surface as ToolCallError wrapping a ParsingError`() async throws {
        let model = MockLanguageModel(steps: [[.toolCall(id: "c", name: "weather", arguments: "{\"town\":1}")], [.text("x")]])
        let session = LanguageModelSession(model: model, tools: [WeatherTool()])
        do {
            _ = try await session.respond(to: "x")
            Issue.record("expected ToolCallError")
        } catch let error as LanguageModelSession.ToolCallError {
            #expect(error.underlyingError is GeneratedContent.ParsingError)
        }
    }

    @Test func `a model that never stops calling tools hits the step limit`() async throws {
        let model = MockLanguageModel(steps: [[.toolCall(id: "c", name: "weather", arguments: "{\"city\":\"A\"}")]])
        let session = LanguageModelSession(model: model, tools: [WeatherTool()])
        session.toolCallingStepLimit = 3
        await #expect(throws: LanguageModelSession.ToolLoopError.stepLimitExceeded(limit: 3)) {
            try await session.respond(to: "x")
        }
        #expect(MockRegistry.get(model.tag).requests.count == 3)
    }

    @Test func `a call to an unknown tool is a clear error`() async throws {
        let model = MockLanguageModel(steps: [[.toolCall(id: "c", name: "nope", arguments: "{}")]])
        let session = LanguageModelSession(model: model, tools: [WeatherTool()])
        await #expect(throws: LanguageModelSession.ToolLoopError.unknownTool(name: "nope")) {
            try await session.respond(to: "x")
        }
    }

    @Test func `tool-only step usage goes to the tool-calls entry, not an empty response`() async throws {
        let model = MockLanguageModel(steps: [
            [.responseUsage(input: 14, output: 0), .toolCall(id: "c", name: "weather", arguments: "{\"city\":\"Rome\"}")],
            [.text("Warm.")],
        ])
        let session = LanguageModelSession(model: model, tools: [WeatherTool()])
        _ = try await session.respond(to: "x")
        #expect(session.transcript.map(\.kindName) == ["instructions", "prompt", "toolCalls", "toolOutput", "response"])
        #expect(session.transcript[2].toolCallsValue?.usage?.input.totalTokenCount == 14)
    }

    @Test func `text sent with tool calls does not end the turn`() async throws {
        let model = MockLanguageModel(steps: [
            [.text("Let me check. "), .toolCall(id: "c", name: "weather", arguments: "{\"city\":\"Lima\"}")],
            [.text("Mild.")],
        ])
        let session = LanguageModelSession(model: model, tools: [WeatherTool()])
        let response = try await session.respond(to: "x")
        #expect(response.content == "Mild.")
        #expect(session.transcript.map(\.kindName) ==
                ["instructions", "prompt", "response", "toolCalls", "toolOutput", "response"])
    }

    @Test func `with tool calling disallowed, calls are returned without running tools`() async throws {
        let model = MockLanguageModel(steps: [[.toolCall(id: "c", name: "weather", arguments: "{\"city\":\"Lima\"}")], [.text("no")]])
        let tool = WeatherTool()
        let session = LanguageModelSession(model: model, tools: [tool])
        let response = try await session.respond(to: "x", options: GenerationOptions(toolCallingMode: .disallowed))
        #expect(response.content == "")
        #expect(response.toolCalls.map(\.toolName) == ["weather"])
        #expect(tool.log.cities.withLock { $0 }.isEmpty)
        #expect(MockRegistry.get(model.tag).requests.count == 1)
    }

    @Test func `a session without tools returns the model's tool calls`() async throws {
        let model = MockLanguageModel(steps: [[.toolCall(id: "c", name: "search", arguments: "{\"q\":\"swift\"}")]])
        let response = try await LanguageModelSession(model: model).respond(to: "x")
        #expect(response.toolCalls.first?.arguments.jsonString == #"{"q":"swift"}"#)
    }

    @Test func `a LanguageModelError thrown inside a tool arrives wrapped in ToolCallError`() async throws {
        struct Nested: Tool {
            struct Arguments: Decodable, Generable {
                static var generationSchema: GenerationSchema { GenerationSchema(type: Arguments.self, properties: []) }
            }
            let name = "nested"
            let description = "Calls a model that times out."
            func call(arguments: Arguments) async throws -> String {
                throw LanguageModelError.timeout(.init(debugDescription: "inner"))
            }
        }
        let model = MockLanguageModel(steps: [[.toolCall(id: "c", name: "nested", arguments: "")], [.text("x")]])
        do {
            _ = try await LanguageModelSession(model: model, tools: [Nested()]).respond(to: "x")
            Issue.record("expected ToolCallError")
        } catch let error as LanguageModelSession.ToolCallError {
            let underlying = try #require(error.underlyingError as? LanguageModelError)
            if case .timeout = underlying {} else { Issue.record("underlying error lost: \(underlying)") }
        }
    }
}
