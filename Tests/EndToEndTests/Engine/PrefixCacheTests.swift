import Engine
import Testing

/// The cross-sequence prefix cache: hits restore exact state, the byte budget evicts the least
/// recently used snapshot, snapshots never cross models or KV types.
@Suite(.serialized, .timeLimit(.minutes(30))) struct PrefixCacheTests {
    let model: Model
    init() throws { model = try ModelStore.shared.model(path: RuntimeFixtures.stories) }

    private var vocab: Int { model.config.vocabularySize }
    private func config(_ kv: KVCacheType = .f32) -> TransformerConfiguration {
        TransformerConfiguration(threads: 1, maxBatch: 8, contextLength: 128, kvCacheType: kv)
    }

    /// A system prompt stored by one engine is copied, not recomputed, by another; the logits
    /// equal a cold evaluation's bitwise (batches aligned with the prefix).
    @Test(arguments: KVCacheType.allCases)
    func storedPrefixServesAnotherEngine(kv: KVCacheType) throws {
        let cache = PrefixCache(byteBudget: 1 << 20)
        let system = RuntimeFixtures.prompt(32, vocabulary: vocab)
        let a = try SequentialEngine(model: model, configuration: config(kv), prefixCache: cache)
        let first = try a.prefill(system + RuntimeFixtures.prompt(6, vocabulary: vocab, salt: 1), storePrefixLength: 32)
        #expect(first.restoredTokenCount == 0 && first.cachedTokenCount == 0)
        #expect(cache.statistics.entryCount == 1 && cache.statistics.insertions == 1)

        let question = system + RuntimeFixtures.prompt(9, vocabulary: vocab, salt: 2)
        let b = try SequentialEngine(model: model, configuration: config(kv), prefixCache: cache)
        let passes = b.forwardPassCount
        let result = try b.prefill(question)
        #expect(result == PrefillResult(cachedTokenCount: 32, evaluatedTokenCount: 9, restoredTokenCount: 32))
        #expect(b.forwardPassCount - passes == 2)  // 9 tokens in micro-batches of 8
        #expect(cache.statistics.hits == 1 && cache.statistics.restoredTokenCount == 32)

        let cold = try SequentialEngine(model: model, configuration: config(kv))
        try cold.prefill(question)
        #expect(Array(b.logits) == Array(cold.logits))
        // Generation after a restore continues exactly like the cold sequence.
        var warmTokens: [Int32] = [], coldTokens: [Int32] = []
        try b.generate(prompt: question, sampling: RuntimeFixtures.seeded, maxTokens: 8) { warmTokens.append($0) }
        try cold.generate(prompt: question, sampling: RuntimeFixtures.seeded, maxTokens: 8) { coldTokens.append($0) }
        #expect(warmTokens == coldTokens)
    }

    /// A snapshot serves prompts that share only part of it; the sequence's own prefix wins when
    /// it is at least as long; `reusePrefix: false` ignores the store.
    @Test func partialMatchesAndOwnPrefix() throws {
        let cache = PrefixCache(byteBudget: 1 << 20)
        let stored = RuntimeFixtures.prompt(24, vocabulary: vocab)
        let a = try SequentialEngine(model: model, configuration: config(), prefixCache: cache)
        try a.prefill(stored)
        #expect(a.storePrefix(count: 24))

        let b = try SequentialEngine(model: model, configuration: config(), prefixCache: cache)
        var diverging = stored
        diverging[10] = (diverging[10] + 1) % Int32(vocab)
        #expect(try b.prefill(diverging).restoredTokenCount == 10)
        // b now holds 24 tokens sharing 10 with `stored`: the store gives 24 - 1 (the last is evaluated).
        #expect(try b.prefill(stored) == PrefillResult(cachedTokenCount: 23, evaluatedTokenCount: 1, restoredTokenCount: 13))
        // Its own sequence already covers as much as the store: a miss, no copy.
        let misses = cache.statistics.misses
        #expect(try b.prefill(stored + [3, 4]).restoredTokenCount == 0)
        #expect(cache.statistics.misses == misses + 1)
        #expect(try b.prefill(stored, reusePrefix: false).cachedTokenCount == 0)
    }

    /// Over budget, the least recently used snapshot goes; a prefix larger than the whole budget
    /// is not stored; a longer prefix replaces the one it extends; a covered one is a no-op.
    @Test func lruEvictionWithinBudget() throws {
        let engine = try SequentialEngine(model: model, configuration: config())
        let perPosition = engine.sequence.cache.byteCount(positions: 1) + 4
        let cache = PrefixCache(byteBudget: perPosition * 40)  // two 16-token snapshots, not three
        let e = try SequentialEngine(model: model, configuration: config(), prefixCache: cache)
        let p1 = RuntimeFixtures.prompt(16, vocabulary: vocab, salt: 1)
        let p2 = RuntimeFixtures.prompt(16, vocabulary: vocab, salt: 2)
        let p3 = RuntimeFixtures.prompt(16, vocabulary: vocab, salt: 3)
        try e.prefill(p1, storePrefixLength: 16)
        try e.prefill(p2, storePrefixLength: 16)
        #expect(cache.statistics.entryCount == 2 && cache.statistics.byteCount == 2 * 16 * perPosition)
        // Touch p1 so that p2 is the least recently used.
        let reader = try SequentialEngine(model: model, configuration: config(), prefixCache: cache)
        #expect(try reader.prefill(p1 + [7]).restoredTokenCount == 16)
        try e.prefill(p3, storePrefixLength: 16)
        #expect(cache.statistics.evictions == 1 && cache.statistics.entryCount == 2)
        let probe = try SequentialEngine(model: model, configuration: config(), prefixCache: cache)
        #expect(try probe.prefill(p2 + [7]).restoredTokenCount == 0)
        #expect(try probe.prefill(p1 + [7]).restoredTokenCount == 16)
        #expect(try probe.prefill(p3 + [7]).restoredTokenCount == 16)

        // Covered: storing a prefix of a held snapshot changes nothing.
        let insertions = cache.statistics.insertions
        #expect(e.storePrefix(count: 8))
        #expect(cache.statistics.insertions == insertions)
        // Too large for the whole budget.
        try e.prefill(RuntimeFixtures.prompt(48, vocabulary: vocab, salt: 4))
        #expect(!e.storePrefix(count: 48))
        #expect(cache.statistics.byteCount <= cache.byteBudget)
        cache.removeAll()
        #expect(cache.statistics == PrefixCache.Statistics())
    }

    /// Snapshots are tied to the model instance and the KV element type.
    @Test func neverCrossesModelsOrTypes() throws {
        let cache = PrefixCache(byteBudget: 1 << 20)
        let prompt = RuntimeFixtures.prompt(16, vocabulary: vocab)
        let f32 = try SequentialEngine(model: model, configuration: config(.f32), prefixCache: cache)
        try f32.prefill(prompt, storePrefixLength: 16)
        let f16 = try SequentialEngine(model: model, configuration: config(.f16), prefixCache: cache)
        #expect(try f16.prefill(prompt + [1]).restoredTokenCount == 0)
        let synth = try Model(path: SharedData.path("models/fixtures/synth-llama-q8_0.gguf"))
        let other = try SequentialEngine(model: synth, configuration: config(), prefixCache: cache)
        #expect(try other.prefill(prompt + [1]).restoredTokenCount == 0)
    }
}
