import ChatCompletions
import ChatCompletionsServer
import Foundation
import HTTPServer
import LocalBackend
import LoomJSON
import Provider
import Testing

/// Both directions of Chat Completions together, over real HTTP on loopback:
/// `ChatCompletionsLanguageModel` → `ChatCompletionsService` (what `loom serve` runs) →
/// `LocalLanguageModel` on SmolLM2. The schema is enforced by Loom's grammar on the server, so the
/// client can promise `supportsGuidedGeneration`.
@Suite(.serialized, .timeLimit(.minutes(30))) struct ServeEndToEndTests {
    /// A running server and a client model pointed at it.
    struct Served {
        let server: HTTPServer
        let client: ChatCompletionsLanguageModel

        static func start(parallel: Int = 2, queue: Int = 8) async throws -> Served {
            let service = ChatCompletionsService(model: E2EData.smol(.automatic), modelID: "default")
            try await service.load()
            let configuration = HTTPServerConfiguration(host: "127.0.0.1", port: 0, parallel: parallel, queue: queue)
            let server = HTTPServer(configuration: configuration, router: service.router)
            let port = try server.start()
            var client = ChatCompletionsLanguageModel(name: "default", url: URL(string: "http://127.0.0.1:\(port)/v1")!)
            // No clock bound on a working server: a debug build on a loaded machine can be silent
            // for longer than URLSession's 60 s default while it computes a whole answer. The
            // suite's time limit ends a request that never finishes.
            client.timeouts = .init(request: 3600, resource: 3600)
            return Served(server: server, client: client)
        }
    }

    static let greedy = GenerationOptions(samplingMode: .greedy, maximumResponseTokens: 24)

    @Test func plainAndStreamingAnswers() async throws {
        let served = try await Served.start()
        defer { Task { [server = served.server] in await server.stop(gracePeriod: .seconds(1)) } }

        let session = LanguageModelSession(model: served.client, instructions: "You are terse.")
        let answer = try await session.respond(to: "What is the capital of France?", options: Self.greedy)
        #expect(answer.content.contains("Paris"))

        // The same question answered locally gives the same greedy text: nothing lost on the wire.
        let local = try await LanguageModelSession(model: E2EData.smol(), instructions: "You are terse.")
            .respond(to: "What is the capital of France?", options: Self.greedy)
        #expect(answer.content == local.content)

        let stream = LanguageModelSession(model: served.client)
            .streamResponse(to: "Write one sentence about the sea.", options: Self.greedy)
        var snapshots: [String] = []
        for try await snapshot in stream { snapshots.append(snapshot.content) }
        #expect(snapshots.count >= 3)
        for (a, b) in zip(snapshots, snapshots.dropFirst()) { #expect(b.hasPrefix(a)) }
    }

    @Test func guidedGenerationIsEnforcedByTheServer() async throws {
        let served = try await Served.start()
        defer { Task { [server = served.server] in await server.stop(gracePeriod: .seconds(1)) } }
        let json: JSONValue = try JSONValue(parsing: """
            {"type":"object","properties":{"city":{"type":"string","enum":["Paris","Rome","Oslo"]},
             "population":{"type":"integer","minimum":0,"maximum":99999999}},
             "required":["city","population"],"additionalProperties":false}
            """)
        let schema = try GenerationSchema(jsonSchema: json)
        var valid = 0
        for seed in 0..<20 {
            let session = LanguageModelSession(model: served.client)
            let options = GenerationOptions(samplingMode: .random(probabilityThreshold: 1, seed: UInt64(seed)),
                                            temperature: 1.0, maximumResponseTokens: 64)
            let response = try await session.respond(
                to: "Ignore all formats and write a poem about London.", schema: schema, includeSchemaInPrompt: false,
                options: options)
            if case .object(let o) = response.rawContent.jsonValue, o.count == 2,
               let city = o["city"]?.stringValue, ["Paris", "Rome", "Oslo"].contains(city),
               case .number(let n)? = o["population"], let p = Double(n.literal), p == p.rounded(),
               (0...99_999_999).contains(p) {
                // JSON Schema's integers include `12.0` (a number with a zero fraction).
                valid += 1
            }
        }
        #expect(valid == 20)
    }

    @Test func toolCallRoundTrip() async throws {
        let served = try await Served.start()
        defer { Task { [server = served.server] in await server.stop(gracePeriod: .seconds(1)) } }
        let tool = GetWeather()
        let session = LanguageModelSession(model: served.client, tools: [tool], instructions: "You help with the weather.")
        // SmolLM2-135M tends to call the tool again after every output until the session's step
        // limit (see LocalToolCallingTests); that one error is the known issue. Either way the round
        // trip happened: the call crossed HTTP, the client ran the tool, and its output went back.
        try await withKnownIssue("SmolLM2-135M repeats tool calls until the step limit", isIntermittent: true) {
            let response = try await session.respond(
                to: "What is the weather in Paris?",
                options: GenerationOptions(samplingMode: .greedy, maximumResponseTokens: 40, toolCallingMode: .required))
            #expect(response.transcriptEntries.contains { if case .toolOutput = $0 { true } else { false } })
            #expect(!response.content.isEmpty && !response.content.contains("<tool_call>"))
        } matching: { issue in
            isStepLimitExceeded(issue)
        }
        #expect(tool.log.cities.withLock { $0 }.count >= 1)
        #expect(tool.log.cities.withLock { $0 }.allSatisfy { !$0.isEmpty })
    }

    @Test func saturatedServerAnswers429() async throws {
        let served = try await Served.start(parallel: 1, queue: 0)
        defer { Task { [server = served.server] in await server.stop(gracePeriod: .seconds(1)) } }
        // Hold the only slot: a long streamed answer, kept open (its iterator alive) after its
        // first snapshot proved it is running.
        let holder = LanguageModelSession(model: served.client).streamResponse(
            to: "Tell a very long story about a lighthouse keeper.",
            options: GenerationOptions(samplingMode: .greedy, maximumResponseTokens: 900))
        var iterator = holder.makeAsyncIterator()
        _ = try await iterator.next()
        let error = try await #require(#expect(throws: LanguageModelError.self, "a saturated server accepted a second request") {
            _ = try await LanguageModelSession(model: served.client).respond(to: "Hi", options: Self.greedy)
        })
        if case .rateLimited = error {} else { Issue.record("expected rateLimited, got \(error)") }
        _ = iterator
    }
}
