import Foundation
import LocalBackend
import Provider
import Testing

/// `historyTransform` on the real default model: trimming the oldest turns changes the
/// conversation from its first history entry on, so the KV cache serves the instructions (and
/// no more than the unchanged prefix) and the engine evaluates the rest.
@Suite(.serialized, .timeLimit(.minutes(10))) struct HistoryTransformTests {
    static let instructions = """
        You are a terse assistant. Answer every question in as few words as possible, without \
        preamble, without repeating the question, and without any closing remarks or offers of help.
        """

    private struct LastTurn: DynamicProfile {
        var model: LocalLanguageModel
        var body: some DynamicProfile {
            Profile { HistoryTransformTests.instructions }
                .model(model)
                .historyTransform { history in history.suffix(2) }
        }
    }

    @Test func trimmingReusesTheCacheUpToTheFirstChangedEntry() async throws {
        let model = E2EData.smol()
        let session = LanguageModelSession(profile: LastTurn(model: model), defaultModel: model)
        let options = GenerationOptions(samplingMode: .greedy, maximumResponseTokens: 4)
        let instructions = try await session.tokenCount(for: Instructions(Self.instructions))
        #expect(instructions > 32)

        _ = try await session.respond(to: "Name a fruit.", options: options)
        // Nothing trimmed yet: the whole previous request is a prefix of this one.
        let unchangedPrefix = try await session.tokenCount(for: session.transcript.prefix(2))
        let second = try await session.respond(to: "Name a vegetable.", options: options)
        let secondCached = try #require(second.localMetadata.cachedTokenCount)
        #expect(secondCached >= unchangedPrefix - 1)

        // The transform drops the first turn: the entry after the instructions changes.
        let dropped = try await session.tokenCount(for: session.transcript.prefix(2))
        let third = try await session.respond(to: "Name a grain.", options: options)
        #expect(session.transcript.count == 5)
        let cached = try #require(third.localMetadata.cachedTokenCount)
        let total = try #require(third.usage?.input.totalTokenCount)
        #expect(cached >= instructions)
        #expect(cached < dropped)
        #expect(total == (try await session.tokenCount(for: session.transcript.prefix(3)))
            + (try await session.tokenCount(for: "Name a grain.")))
    }
}
