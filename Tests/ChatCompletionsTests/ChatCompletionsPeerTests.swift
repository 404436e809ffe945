import Foundation
import Provider
import Testing
import ChatCompletions

/// The peer check: the client against a real third-party server (llama.cpp's, from PyPI
/// `llama-cpp-python[server]`). Not part of the default run: `scripts/peer-check-chat-completions`
/// starts the server and runs this suite with `LOOM_PEER_CHAT_URL` set.
@Suite(.serialized, .enabled(if: ProcessInfo.processInfo.environment["LOOM_PEER_CHAT_URL"] != nil),
       .timeLimit(.minutes(5)))
struct ChatCompletionsPeerTests {
    var model: ChatCompletionsLanguageModel {
        let env = ProcessInfo.processInfo.environment
        // llama-cpp-python enforces `response_format` only as `json_object` + `schema`, not the
        // `json_schema` form, so guided generation must not be promised for it.
        var m = ChatCompletionsLanguageModel(name: env["LOOM_PEER_CHAT_MODEL"] ?? "default",
                                             url: URL(string: env["LOOM_PEER_CHAT_URL"]!)!, supportsGuidedGeneration: false)
        m.maximumTokensField = .maxTokens  // llama-cpp-python reads only `max_tokens`
        return m
    }

    @Test func plainText() async throws {
        let response = try await LanguageModelSession(model: model)
            .respond(to: "Say hello in one short sentence.", options: GenerationOptions(temperature: 0, maximumResponseTokens: 24))
        #expect(!response.content.isEmpty)
    }

    @Test func streamsInSeveralSnapshots() async throws {
        var snapshots: [String] = []
        let stream = LanguageModelSession(model: model)
            .streamResponse(to: "Count from one to five in words.", options: GenerationOptions(temperature: 0, maximumResponseTokens: 24))
        for try await snapshot in stream { snapshots.append(snapshot.content) }
        #expect(snapshots.count >= 2)
        #expect(!(snapshots.last ?? "").isEmpty)
        for (a, b) in zip(snapshots, snapshots.dropFirst()) { #expect(b.hasPrefix(a)) }
    }

    @Test func seededTopKIsReproducible() async throws {
        let options = GenerationOptions(samplingMode: .random(top: 20, seed: 42), temperature: 1, maximumResponseTokens: 16)
        let a = try await LanguageModelSession(model: model).respond(to: "Name a colour.", options: options)
        let b = try await LanguageModelSession(model: model).respond(to: "Name a colour.", options: options)
        #expect(a.content == b.content)
    }

    @Test func structuredOutputIsRefusedWithoutThePromise() async throws {
        let schema = try GenerationSchema(jsonSchema: "{\"type\":\"object\",\"properties\":{\"a\":{\"type\":\"integer\"}}}")
        await #expect(throws: LanguageModelError.self) {
            _ = try await LanguageModelSession(model: model).respond(to: "x", schema: schema)
        }
    }
}
