import Engine
import Foundation
import LoomSupport
import Testing

/// The persistent prompt cache through the scheduler: a restarted scheduler (a new process, as
/// far as the pool knows) loads a prompt's blocks instead of evaluating them — fewer steps, and
/// logits equal to a cold evaluation's bit for bit — and a request cancelled mid-prompt leaves
/// the blocks it evaluated cacheable.
@Suite(.serialized) struct PromptCachePersistenceTests {
    let model: Model
    init() throws { model = try ModelStore.shared.model(path: RuntimeFixtures.stories) }

    private var vocab: Int { model.config.vocabularySize }

    /// Prompts in chunks of 8, blocks of 16; with `directory`, a prompt cache there.
    private func scheduler(_ kv: KVCacheType = .f32, directory: String?) throws -> Scheduler {
        try Scheduler(model: model, configuration: TransformerConfiguration(threads: 1, contextLength: 128, kvCacheType: kv),
                      policy: SchedulerPolicy(maxSequences: 2, prefillChunk: 8, maxPrefillTokensPerStep: 8, blockSize: 16),
                      promptCache: directory.map { PromptCacheOptions(directory: $0) })
    }

    private static func temporaryDirectory() throws -> String {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("loom-pcache-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
        return path
    }

    @Test(arguments: [KVCacheType.f32, .f16])  // stories260K's 8-value heads cannot be Q8_0
    func aRestartedSchedulerLoadsThePromptInsteadOfEvaluatingIt(kv: KVCacheType) throws {
        let dir = try Self.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let system = RuntimeFixtures.prompt(48, vocabulary: vocab)
        do {
            let first = try scheduler(kv, directory: dir)
            let e = SequentialEngine(scheduler: first)
            #expect(try e.prefill(system + RuntimeFixtures.prompt(5, vocabulary: vocab, salt: 1)).cachedTokenCount == 0)
            e.release()
            first.flushPromptCache()
            // Three full blocks lie inside the prompt; the fourth is partly answer, never persisted.
            #expect(first.promptCache?.statistics.writes == 3)
        }
        // The first scheduler and its pool are gone: a new one is a restarted process.
        let question = system + RuntimeFixtures.prompt(9, vocabulary: vocab, salt: 2)
        let restarted = try scheduler(kv, directory: dir)
        let warm = SequentialEngine(scheduler: restarted)
        let steps = restarted.statistics.steps
        let result = try warm.prefill(question)
        #expect(result.cachedTokenCount == 48 && result.evaluatedTokenCount == 9)
        #expect(restarted.statistics.steps - steps == 2)  // 9 tokens in chunks of 8: the 48 were loaded
        let stats = try #require(restarted.promptCache?.statistics)
        #expect(stats.hits == 3 && stats.rejected == 0)

        let cold = SequentialEngine(scheduler: try scheduler(kv, directory: nil))
        #expect(try cold.prefill(question).cachedTokenCount == 0)
        #expect(Array(warm.logits) == Array(cold.logits))
        var warmTokens: [Int32] = [], coldTokens: [Int32] = []
        try warm.generate(prompt: question, sampling: RuntimeFixtures.seeded, maxTokens: 8) { warmTokens.append($0) }
        try cold.generate(prompt: question, sampling: RuntimeFixtures.seeded, maxTokens: 8) { coldTokens.append($0) }
        #expect(warmTokens == coldTokens)
    }

    @Test func aRequestCancelledMidPromptLeavesItsEvaluatedBlocksCached() async throws {
        let dir = try Self.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let prompt = RuntimeFixtures.prompt(60, vocabulary: vocab, salt: 3)
        var written = 0
        do {
            let first = try scheduler(directory: dir)
            let flag = CancellationFlag()
            // Cancelled after the third 8-token chunk: block 0 is full, the prompt is not done.
            first.stepObserver = { n in if n == 3 { flag.cancel() } }
            let stream = try first.generate(prompt: prompt, sampling: RuntimeFixtures.seeded, maxTokens: 4, cancellation: flag)
            var emitted = 0
            do { for try await _ in stream { emitted += 1 } } catch {}
            #expect(emitted == 0)
            first.flushPromptCache()
            written = try #require(first.promptCache?.statistics.writes)
            #expect(written >= 1 && written < 3)
        }
        let restarted = try scheduler(directory: dir)
        let e = SequentialEngine(scheduler: restarted)
        #expect(try e.prefill(prompt).cachedTokenCount == 16 * written)
    }

    @Test func reusePrefixFalseNeitherLoadsNorWrites() throws {
        let dir = try Self.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let prompt = RuntimeFixtures.prompt(40, vocabulary: vocab, salt: 4)
        let s = try scheduler(directory: dir)
        let e = SequentialEngine(scheduler: s)
        try e.prefill(prompt, reusePrefix: false)
        e.release()
        s.flushPromptCache()
        #expect(s.promptCache?.statistics.writes == 0)
    }

    /// A sliding-window model's local layers may drop positions outside their window, so its
    /// blocks are not complete records: it persists nothing and creates no files.
    @Test func aSlidingWindowModelPersistsNothing() throws {
        let dir = try Self.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let gemma = try ModelStore.shared.model(path: SharedData.path("models/fixtures/synth-gemma3-q4_k_m.gguf"))
        #expect(gemma.config.slidingWindow > 0)
        let s = try Scheduler(model: gemma, configuration: TransformerConfiguration(threads: 1, contextLength: 128, kvCacheType: .f32),
                              policy: SchedulerPolicy(maxSequences: 2, prefillChunk: 8, maxPrefillTokensPerStep: 8, blockSize: 16),
                              promptCache: PromptCacheOptions(directory: dir))
        #expect(s.promptCache == nil)
        try SequentialEngine(scheduler: s).prefill(RuntimeFixtures.prompt(40, vocabulary: gemma.config.vocabularySize))
        #expect(try FileManager.default.contentsOfDirectory(atPath: dir).isEmpty)
    }
}
