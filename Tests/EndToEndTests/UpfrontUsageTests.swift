import Foundation
import LocalBackend
import Provider
import Testing

/// Session 339's event order on the local backend: metadata, then usage with the prompt's token
/// count, then text deltas, then the authoritative totals — and the typed reading of the
/// metadata keys the backend writes.
@Suite(.serialized, .timeLimit(.minutes(10))) struct UpfrontUsageTests {
    private enum Seen: Equatable {
        case metadata
        case usage(input: Int, cached: Int, output: Int)
        case text
    }

    private func responseEvents(_ log: EventLog) -> [Seen] {
        log.all.compactMap { event in
            guard case .response(let r) = event.kind.storage else { return nil }
            switch r.action {
            case .updateMetadata: return .metadata
            case .updateUsage(let i, let o, _): return .usage(input: i.totalTokenCount, cached: i.cachedTokenCount, output: o.totalTokenCount)
            case .appendText: return .text
            default: return nil
            }
        }
    }

    @Test(arguments: [LocalLanguageModel.Variant.sequential, .pipelined])
    func usageWithThePromptCountPrecedesTheFirstDelta(variant: LocalLanguageModel.Variant) async throws {
        let model = E2EData.smol(variant)
        let executor = try LocalLanguageModel.Executor(configuration: model.executorConfiguration)
        let transcript = Transcript(entries: [.prompt(.init(segments: [.text(.init(content: "Tell me about the sea."))]))])
        let log = EventLog()
        try await executor.respond(
            to: LanguageModelExecutorGenerationRequest(
                transcript: transcript, generationOptions: GenerationOptions(samplingMode: .greedy, maximumResponseTokens: 8)),
            model: model, streamingInto: log.channel)
        let seen = responseEvents(log)
        let final = try #require(log.usage)
        let promptTokens = final.0.totalTokenCount
        #expect(promptTokens > 0)
        try #require(seen.count >= 5)
        #expect(seen[0] == .metadata)
        #expect(seen[1] == .usage(input: promptTokens, cached: final.0.cachedTokenCount, output: 0))
        #expect(seen[2] == .text)
        #expect(seen.last == .usage(input: promptTokens, cached: final.0.cachedTokenCount, output: final.1.totalTokenCount))
        #expect(final.1.totalTokenCount == 8)
    }

    @Test func typedMetadataReadsWhatTheBackendWrites() async throws {
        let session = LanguageModelSession(model: E2EData.smol())
        let schema = try GenerationSchema(jsonSchema: #"{"type": "object", "properties": {"ok": {"type": "boolean"}}, "required": ["ok"]}"#)
        let response = try await session.respond(to: "Answer with JSON.", schema: schema,
                                                 options: GenerationOptions(samplingMode: .greedy, maximumResponseTokens: 20))
        let metadata = response.localMetadata
        #expect(metadata.modelID?.isEmpty == false)
        #expect(metadata.requestID != nil)
        #expect(metadata.variant == .sequential)
        #expect(try #require(metadata.timeToFirstToken) > 0)
        #expect(try #require(metadata.tokensPerSecond) >= 0)
        #expect(metadata.cachedTokenCount != nil)
        #expect(metadata.stopReason != nil)
        // `{"ok": ` is forced by the grammar: only one token is valid at those steps.
        #expect(try #require(metadata.forcedTokens) > 0)
        #expect(try #require(metadata.sampledTokens) > 0)
        for key in LocalGenerationMetadata.Key.allCases {
            #expect(response.transcriptEntries.contains { entry in
                if case .response(let r) = entry { return r.metadata[key.rawValue] != nil }
                return false
            }, "missing \(key.rawValue)")
        }
    }

    @Test func theSystemModelStandInRunsTheDefaultModel() async throws {
        let system = SystemLanguageModel(localModel: E2EData.smol())
        #expect(system.availability == .available)
        #expect(system.contextSize == 1024)
        let session = LanguageModelSession(model: system, instructions: "You are terse.")
        let answer = try await session.respond(to: "Say hi.", options: GenerationOptions(samplingMode: .greedy, maximumResponseTokens: 4))
        #expect(!answer.content.isEmpty)
        #expect(try await session.tokenCount(for: "Say hi.") > 3)
    }
}
