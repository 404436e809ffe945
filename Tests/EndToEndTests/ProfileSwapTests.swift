import ChatCompletions
import ChatCompletionsServer
import Foundation
import HTTPServer
import LocalBackend
import Provider
import Testing

/// A profile choosing between two models by a flag, as seed 003 §9.4 writes one.
private struct SwapProfile: DynamicProfile {
    var useSecond: Bool
    var first: any LanguageModel
    var second: any LanguageModel

    var body: some DynamicProfile {
        if useSecond {
            Profile { Instructions { "Be brief." } }.model(second)
        } else {
            Profile { Instructions { "Be brief." } }.model(first)
        }
    }
}

/// Mid-conversation model swaps through a `DynamicProfile`: the transcript carries over and the
/// new model re-renders all of it with its own chat format (evaluated prompt tokens match that
/// model's own count of the transcript).
@Suite(.serialized, .timeLimit(.minutes(20))) struct ProfileSwapTests {
    static let greedy = GenerationOptions(samplingMode: .greedy, maximumResponseTokens: 4)

    /// Asks `prompt` and checks the model that answered evaluated exactly its own rendering of
    /// the transcript so far plus the prompt.
    private func ask(_ session: LanguageModelSession, _ prompt: String) async throws -> LanguageModelSession.Response<String> {
        let expected = try await session.tokenCount(for: session.transcript) + session.tokenCount(for: prompt)
        let response = try await session.respond(to: prompt, options: Self.greedy)
        #expect(response.usage?.input.totalTokenCount == expected)
        return response
    }

    @Test func swapBetweenAChatMLModelAndAPlainFormatModelKeepsTheTranscript() async throws {
        // SmolLM2 renders with its ChatML template; stories260K has no template and renders in
        // the plain "role: text" format, with another tokenizer.
        let smol = E2EData.smol()
        let stories = LocalLanguageModel(path: SharedData.stories, variant: .sequential, contextSize: 512)
        let session = LanguageModelSession(profile: SwapProfile(useSecond: false, first: smol, second: stories),
                                           defaultModel: smol)
        let first = try await ask(session, "Hi.")
        #expect(first.localMetadata.modelID != nil)

        session.profile = SwapProfile(useSecond: true, first: smol, second: stories)
        let second = try await ask(session, "Go on.")
        #expect(second.localMetadata.modelID != first.localMetadata.modelID)
        #expect(session.transcript.map(\.kind) == ["instructions", "prompt", "response", "prompt", "response"])

        session.profile = SwapProfile(useSecond: false, first: smol, second: stories)
        let third = try await ask(session, "Thanks.")
        #expect(third.localMetadata.modelID == first.localMetadata.modelID)
        #expect(session.transcript.count == 7)
    }

    @Test func swapBetweenALocalModelAndAChatCompletionsServer() async throws {
        let service = ChatCompletionsService(model: E2EData.smol(.automatic), modelID: "default")
        try await service.load()
        let server = HTTPServer(configuration: HTTPServerConfiguration(host: "127.0.0.1", port: 0, parallel: 2, queue: 4),
                                router: service.router)
        let port = try server.start()
        defer { Task { await server.stop(gracePeriod: .seconds(1)) } }
        var remote = ChatCompletionsLanguageModel(name: "default", url: URL(string: "http://127.0.0.1:\(port)/v1")!)
        remote.timeouts = .init(request: 3600, resource: 3600)

        let local = E2EData.smol()
        let session = LanguageModelSession(profile: SwapProfile(useSecond: false, first: local, second: remote),
                                           defaultModel: local)
        let first = try await session.respond(to: "Name a colour.", options: Self.greedy)
        session.profile = SwapProfile(useSecond: true, first: local, second: remote)
        let second = try await session.respond(to: "Name another.", options: Self.greedy)
        #expect(!second.content.isEmpty)
        // The server rendered the whole conversation for the same model: the prompt tokens it
        // reports are the local model's own count of what was sent.
        let sent = Transcript(entries: session.transcript.prefix(4))
        session.profile = SwapProfile(useSecond: false, first: local, second: remote)
        let expected = try await session.tokenCount(for: Transcript(entries: sent.prefix(3)))
            + session.tokenCount(for: "Name another.")
        #expect(second.usage?.input.totalTokenCount == expected)
        #expect(session.transcript.count == 5)
        _ = first
        let back = try await session.respond(to: "One more.", options: Self.greedy)
        #expect(back.localMetadata.modelID != nil)
    }
}

extension Transcript.Entry {
    /// The entry's kind, for comparing transcript shapes.
    fileprivate var kind: String {
        switch self {
        case .instructions: "instructions"
        case .prompt: "prompt"
        case .response: "response"
        case .reasoning: "reasoning"
        case .toolCalls: "toolCalls"
        case .toolOutput: "toolOutput"
        }
    }
}
