import Foundation
import HTTPServer
import LoomJSON
import LoomSupport
import Provider
import LoomTestSupport
import Testing
import ChatCompletions

struct CityWeatherTool: Tool {
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

/// ChatCompletionsLanguageModel driven through LanguageModelSession against a scripted
/// loopback server.
@Suite(.timeLimit(.minutes(2))) struct ChatCompletionsSessionTests {
    /// The server sends the first delta and then waits until the session has surfaced it as a
    /// snapshot: a client that buffered the response would never get past the first event.
    @Test func streamingIsIncrementalThroughTheSession() async throws {
        let clientSawFirst = Gate()
        try await withChatServer({ _, _ in
            .eventStream { w in
                try await w.sendEvent(Chunk.content("Hel"))
                guard await clientSawFirst.wait() else { throw CancellationError() }
                try await w.sendEvent(Chunk.content("lo"))
                try await w.sendEvent(Chunk.finish("stop"))
                try await w.sendEvent("[DONE]")
            }
        }) { server in
            let session = LanguageModelSession(model: server.model())
            var snapshots: [String] = []
            for try await snapshot in session.streamResponse(to: "Hi") {
                snapshots.append(snapshot.content)
                if snapshots.count == 1 { clientSawFirst.open() }
            }
            #expect(snapshots.first == "Hel")
            #expect(snapshots.last == "Hello")
            let r = try #require(session.transcript.last?.responseValue, "last entry is not a response")
            #expect(r.metadata["model"]?.jsonValue == .string("served-model"))
            #expect(r.metadata["finishReason"]?.jsonValue == .string("stop"))
        }
    }

    @Test func plainResponseWithUsage() async throws {
        try await withChatServer({ _, _ in
            stream([Chunk.content("Hello"), Chunk.content(", world"), Chunk.finish("stop"),
                    Chunk.usage(prompt: 12, completion: 3, cached: 4, reasoning: 0)], headers: ["X-Request-Id": "srv-7"])
        }) { server in
            let session = LanguageModelSession(model: server.model())
            let response = try await session.respond(to: "Hi")
            #expect(response.content == "Hello, world")
            if case .response(let r)? = session.transcript.last {
                #expect(r.metadata["requestID"]?.jsonValue == .string("srv-7"))
                #expect(r.metadata["responseID"]?.jsonValue == .string("chatcmpl-1"))
            } else {
                Issue.record("last entry is not a response")
            }
            #expect(response.usage?.input.totalTokenCount == 12)
            #expect(response.usage?.input.cachedTokenCount == 4)
            #expect(response.usage?.output.totalTokenCount == 3)
        }
    }

    @Test func reasoningContentBecomesAReasoningEntry() async throws {
        try await withChatServer({ _, _ in
            stream([Chunk.reasoning("Two plus "), Chunk.reasoning("two is four."), Chunk.content("4"), Chunk.finish("stop"),
                    Chunk.usage(prompt: 5, completion: 9, reasoning: 7)])
        }) { server in
            let session = LanguageModelSession(model: server.model())
            session.reasoningLevel = .light
            let response = try await session.respond(to: "2+2?")
            #expect(response.content == "4")
            let reasoning = session.transcript.compactMap { entry -> String? in
                if case .reasoning(let r) = entry, case .text(let t)? = r.segments.first { return t.content }
                return nil
            }
            #expect(reasoning == ["Two plus two is four."])
            #expect(response.usage?.output.reasoningTokenCount == 7)
            #expect(server.captured.first?.body["reasoning_effort"] == .string("low"))
        }
    }

    /// Tool-call fragments spread over chunks (the first also carrying text) are assembled by
    /// index, the session runs the tool, and the second request carries the call and output.
    @Test func toolRoundTripThroughTheSession() async throws {
        let tool = CityWeatherTool()
        try await withChatServer({ n, _ in
            if n == 0 {
                return stream([
                    Chunk.toolCall(index: 0, id: "call_1", name: "weather", arguments: "{\"ci", content: "Let me check."),
                    Chunk.toolCall(index: 0, id: "call_1", arguments: "ty\":\"Pa"),
                    Chunk.toolCall(index: 0, arguments: "ris\"}"),
                    Chunk.finish("tool_calls"),
                ])
            }
            return stream([Chunk.content("It is sunny in Paris."), Chunk.finish("stop")])
        }) { server in
            let session = LanguageModelSession(model: server.model(), tools: [tool], instructions: Instructions("Be brief."))
            let response = try await session.respond(to: "Weather in Paris?")
            #expect(response.content == "It is sunny in Paris.")
            #expect(tool.log.cities.withLock { $0 } == ["Paris"])
            #expect(response.toolCalls.map(\.id) == ["call_1"])
            #expect(response.toolCalls.first?.arguments.jsonValue == .object(JSONObject([("city", "Paris")])))
            // Text sent in the same chunk as a tool call is kept.
            let texts = session.transcript.compactMap { entry -> String? in
                if case .response(let r) = entry, case .text(let t)? = r.segments.first { return t.content }
                return nil
            }
            #expect(texts.contains("Let me check."))

            let requests = server.captured
            try #require(requests.count == 2)
            let first = requests[0].body
            #expect(first["tool_choice"] == .string("auto"))
            #expect(first["tools"]?.arrayValue?.first?["function"]?["name"] == .string("weather"))
            #expect(first["tools"]?.arrayValue?.first?["function"]?["parameters"]?["properties"]?["city"] != nil)
            let messages = try #require(requests[1].body["messages"]?.arrayValue)
            #expect(messages.first?["role"] == .string("system"))
            #expect(messages.first?["content"] == .string("Be brief."))
            // system, user, one assistant message holding both the text and the call, tool.
            #expect(messages.count == 4)
            let assistant = try #require(messages.first { $0["tool_calls"] != nil })
            #expect(assistant["role"] == .string("assistant"))
            #expect(assistant["content"] == .string("Let me check."))
            let call = try #require(assistant["tool_calls"]?.arrayValue?.first)
            #expect(call["id"] == .string("call_1"))
            #expect(call["type"] == .string("function"))
            #expect(call["function"]?["name"] == .string("weather"))
            let args = try JSONValue(parsing: try #require(call["function"]?["arguments"]?.stringValue))
            #expect(args == .object(JSONObject([("city", "Paris")])))
            let output = try #require(messages.last)
            #expect(output["role"] == .string("tool"))
            #expect(output["tool_call_id"] == .string("call_1"))
            #expect(output["content"] == .string("Sunny in Paris"))
        }
    }

    @Test func structuredOutputSendsStrictResponseFormat() async throws {
        let schema = try GenerationSchema(jsonSchema: """
            {"title":"Answer","type":"object","properties":{"answer":{"type":"integer"}},"required":["answer"],"additionalProperties":false}
            """)
        try await withChatServer({ _, _ in
            stream([Chunk.content("{\"answer\":"), Chunk.content(" 42}"), Chunk.finish("stop")])
        }) { server in
            let response = try await LanguageModelSession(model: server.model()).respond(to: "Answer.", schema: schema)
            #expect(response.content.jsonValue["answer"]?.intValue == 42)
            let format = try #require(server.captured.first?.body["response_format"])
            #expect(format["type"] == .string("json_schema"))
            #expect(format["json_schema"]?["name"] == .string("Answer"))
            #expect(format["json_schema"]?["strict"] == .bool(true))
            #expect(format["json_schema"]?["schema"] == schema.jsonSchema)
        }
    }

    @Test func guidedGenerationIsOnlyDeclaredWhenPromised() async throws {
        let url = URL(string: "http://127.0.0.1:1/v1")!
        #expect(ChatCompletionsLanguageModel(name: "m", url: url).capabilities.contains(.guidedGeneration))
        let unstrict = ChatCompletionsLanguageModel(name: "m", url: url, supportsGuidedGeneration: false)
        #expect(!unstrict.capabilities.contains(.guidedGeneration))
        for c in [LanguageModelCapabilities.Capability.toolCalling, .reasoning, .vision] {
            #expect(unstrict.capabilities.contains(c))
        }
        let schema = try GenerationSchema(jsonSchema: "{\"type\":\"object\"}")
        await #expect(throws: LanguageModelError.self) {
            _ = try await LanguageModelSession(model: unstrict).respond(to: "x", schema: schema)
        }
    }

    /// A server that ignores `stream: true` and answers with one completion object still works.
    @Test func nonStreamingJSONAnswerIsAccepted() async throws {
        try await withChatServer({ _, _ in
            .json(.object(JSONObject([("id", "chatcmpl-9"), ("model", "m"), ("choices", .array([.object(JSONObject([
                ("index", 0), ("message", .object(JSONObject([("role", "assistant"), ("content", "whole answer")]))), ("finish_reason", "stop"),
            ]))])), ("usage", .object(JSONObject([("prompt_tokens", 2), ("completion_tokens", 2)])))])))
        }) { server in
            let response = try await LanguageModelSession(model: server.model()).respond(to: "Hi")
            #expect(response.content == "whole answer")
            #expect(response.usage?.output.totalTokenCount == 2)
        }
    }

    /// A streamed event whose data is not UTF-8 throws upstream's `RequestError.invalidStreamData`.
    @Test func streamDataThatIsNotUTF8IsInvalidStreamData() async throws {
        let body = Array("data: ".utf8) + [0xC3, 0x28] + Array("\n\ndata: [DONE]\n\n".utf8)
        try await withChatServer({ _, _ in
            HTTPResponse(headers: ["Content-Type": "text/event-stream"], body: body)
        }) { server in
            let session = LanguageModelSession(model: server.model())
            let error = await #expect(throws: ChatCompletionsLanguageModel.RequestError.self) { try await session.respond(to: "Hi") }
            if case .invalidStreamData? = error {} else { Issue.record("expected invalidStreamData, got \(String(describing: error))") }
        }
    }

    /// Cancelling the consuming task mid-stream closes the connection; the server sees the
    /// disconnect as cancellation of its producer.
    @Test func cancellingTheStreamClosesTheConnection() async throws {
        let firstSeen = Gate()
        let producerCancelled = Gate()
        try await withChatServer({ _, _ in
            .eventStream { w in
                try await w.sendEvent(Chunk.content("first"))
                do {
                    try await untilCancelled()
                } catch {
                    producerCancelled.open()
                    throw error
                }
            }
        }) { server in
            let session = LanguageModelSession(model: server.model())
            let consumer = Task {
                for try await _ in session.streamResponse(to: "Hi") { firstSeen.open() }
            }
            #expect(await firstSeen.wait())
            consumer.cancel()
            #expect(await producerCancelled.wait())
            _ = await consumer.result
        }
    }
}
