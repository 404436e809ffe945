import Engine
import Testing

/// Prefix reuse through the scheduler's KV pool: a prompt that starts like one evaluated before
/// reuses its blocks (exactly: the logits equal a cold evaluation's), a divergence inside a block
/// copies the matching positions, cached blocks go least recently used first, and
/// `reusePrefix: false` ignores the pool.
@Suite(.serialized) struct PrefixReuseTests {
    let model: Model
    init() throws { model = try ModelStore.shared.model(path: RuntimeFixtures.stories) }

    private var vocab: Int { model.config.vocabularySize }

    /// A scheduler whose prompts go in chunks of 8 (aligned with the 16-position blocks).
    private func scheduler(_ kv: KVCacheType = .f32, budgetPositions: Int? = nil) throws -> Scheduler {
        let bytes = budgetPositions.map { 2 * model.config.blockCount * kv.rowBytes(elements: model.config.kvLength) * $0 }
        return try Scheduler(model: model,
                             configuration: TransformerConfiguration(threads: 1, contextLength: 128, kvCacheType: kv),
                             policy: SchedulerPolicy(maxSequences: 2, prefillChunk: 8, maxPrefillTokensPerStep: 8,
                                                     blockSize: 16, kvBudgetBytes: bytes))
    }

    /// A system prompt evaluated by one engine serves another; the logits equal a cold
    /// evaluation's bit for bit, and generation after the reuse continues exactly as cold.
    // stories260K's heads are 8 values, too short for Q8_0 blocks: QuantizedKVCacheTests runs Q8_0.
    @Test(arguments: [KVCacheType.f32, .f16])
    func sharedPrefixServesAnotherEngine(kv: KVCacheType) throws {
        let shared = try scheduler(kv)
        let system = RuntimeFixtures.prompt(32, vocabulary: vocab)
        let a = SequentialEngine(scheduler: shared)
        let first = try a.prefill(system + RuntimeFixtures.prompt(6, vocabulary: vocab, salt: 1))
        #expect(first.cachedTokenCount == 0)
        a.release()

        let question = system + RuntimeFixtures.prompt(9, vocabulary: vocab, salt: 2)
        let b = SequentialEngine(scheduler: shared)
        let steps = shared.statistics.steps
        let result = try b.prefill(question)
        #expect(result == PrefillResult(cachedTokenCount: 32, evaluatedTokenCount: 9, restoredTokenCount: 32))
        #expect(shared.statistics.steps - steps == 2)  // 9 tokens in chunks of 8
        #expect(shared.statistics.pool.hits >= 1)

        let cold = SequentialEngine(scheduler: try scheduler(kv))
        try cold.prefill(question)
        #expect(Array(b.logits) == Array(cold.logits))
        var warmTokens: [Int32] = [], coldTokens: [Int32] = []
        try b.generate(prompt: question, sampling: RuntimeFixtures.seeded, maxTokens: 8) { warmTokens.append($0) }
        try cold.generate(prompt: question, sampling: RuntimeFixtures.seeded, maxTokens: 8) { coldTokens.append($0) }
        #expect(warmTokens == coldTokens)
    }

    /// A prompt that diverges inside a block copies the matching positions of the cached block;
    /// a later prompt equal to the first reuses everything but its last token; `reusePrefix:
    /// false` evaluates everything.
    @Test func divergenceInsideABlockCopiesThePrefix() throws {
        let shared = try scheduler()
        let stored = RuntimeFixtures.prompt(24, vocabulary: vocab)
        let a = SequentialEngine(scheduler: shared)
        try a.prefill(stored)
        a.release()
        var diverging = stored
        diverging[20] = (diverging[20] + 1) % Int32(vocab)
        let b = SequentialEngine(scheduler: shared)
        let copied = shared.statistics.pool.copiedTokenCount
        #expect(try b.prefill(diverging).cachedTokenCount == 20)
        #expect(shared.statistics.pool.copiedTokenCount - copied == 4)  // positions 16..<20
        #expect(try b.prefill(stored).cachedTokenCount == 23)
        #expect(try b.prefill(stored, reusePrefix: false).cachedTokenCount == 0)
    }

    /// A pool of three contexts' blocks: cached blocks are given up least recently used first.
    @Test func cachedBlocksGoLeastRecentlyUsedFirst() throws {
        // 8 blocks of 16: one 128-position context.
        let shared = try scheduler(budgetPositions: 128)
        let e = SequentialEngine(scheduler: shared)
        let p1 = RuntimeFixtures.prompt(48, vocabulary: vocab, salt: 1)
        let p2 = RuntimeFixtures.prompt(48, vocabulary: vocab, salt: 2)
        let p3 = RuntimeFixtures.prompt(48, vocabulary: vocab, salt: 3)
        try e.prefill(p1)  // 3 full blocks + 1 for the next token
        try e.prefill(p2)
        e.release()
        // Touch p1 (its blocks move to the most recent end), then p3 needs room: p2's go.
        #expect(try e.prefill(p1 + [7]).cachedTokenCount == 48)
        try e.prefill(p3)
        e.release()
        #expect(shared.statistics.pool.evictions > 0)
        #expect(try e.prefill(p1 + [7]).cachedTokenCount == 48)
        e.release()
        #expect(try e.prefill(p2 + [7]).cachedTokenCount < 48)
        #expect(shared.statistics.pool.blocksInUse <= 4)
    }
}
