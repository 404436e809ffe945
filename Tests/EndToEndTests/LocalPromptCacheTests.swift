import Engine
import Foundation
import LocalBackend
import LoomMetrics
import Provider
import Testing

/// `LocalLanguageModel.promptCache` on SmolLM2: a second runtime (as after a restart) answers a
/// prompt with the same instructions by loading their blocks — they count as cached prompt
/// tokens in the response's usage and in the metrics — and answers exactly as a cold runtime.
@Suite(.serialized, .timeLimit(.minutes(20))) struct LocalPromptCacheTests {
    @Test func aSecondRuntimeLoadsTheInstructionsAndAnswersTheSame() async throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("loom-pcache-\(UUID().uuidString)").path
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let instructions = String(repeating: "You answer questions about the old harbour town and its bridges, tersely. ", count: 12)
        let options = GenerationOptions(samplingMode: .greedy, maximumResponseTokens: 8)

        // Each model gets its own registry: equal configurations would share one runtime.
        var first = E2EData.smol(.automatic)
        first.kvCacheType = .f32
        first.promptCache = PromptCacheOptions(directory: dir)
        first.metrics = MetricsRegistry()
        // Held, so the first runtime (and its cache's counters) outlives the session.
        let executor = try await LocalLanguageModel.Executor.load(configuration: first.executorConfiguration)
        defer { withExtendedLifetime(executor) {} }
        let cold = try await LanguageModelSession(model: first, instructions: instructions)
            .respond(to: "Name a bridge.", options: options)
        #expect(try #require(cold.usage).input.cachedTokenCount == 0)
        await first.flushPromptCache()
        let written = try #require(first.promptCacheStatistics).writes
        #expect(written >= 10)

        var restarted = first
        let metrics = MetricsRegistry()
        restarted.metrics = metrics
        // Held too: the cache's counters read the runtime, which would otherwise go with the session.
        let restartedExecutor = try await LocalLanguageModel.Executor.load(configuration: restarted.executorConfiguration)
        defer { withExtendedLifetime(restartedExecutor) {} }
        let warm = try await LanguageModelSession(model: restarted, instructions: instructions)
            .respond(to: "Name a bridge.", options: options)
        let usage = try #require(warm.usage)
        #expect(usage.input.cachedTokenCount >= 16 * written - 16)
        #expect(warm.content == cold.content)
        let snapshot = metrics.snapshot()
        #expect(snapshot.value("loom_prompt_cache_hits_total") == Double(usage.input.cachedTokenCount / 16))
        #expect(snapshot.value("loom_prompt_cache_rejected_total") == 0)
        #expect(snapshot.value("loom_prompt_tokens_cached_total") == Double(usage.input.cachedTokenCount))
    }
}
