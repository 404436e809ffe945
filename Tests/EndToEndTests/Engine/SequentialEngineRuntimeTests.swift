import Engine
import LoomSupport
import Testing

/// `SequentialEngine` as a runtime: prefix reuse through the scheduler's pool (exact), the context
/// limit checked before any compute, cancellation bounded in scheduler steps, rollback.
@Suite(.serialized, .timeLimit(.minutes(30))) struct SequentialEngineRuntimeTests {
    let model: Model
    init() throws { model = try ModelStore.shared.model(path: RuntimeFixtures.stories) }

    private var vocab: Int { model.config.vocabularySize }

    /// Reusing a prefix gives the same logits as evaluating the whole prompt cold. With micro-
    /// batches aligned to the shared prefix (maxBatch 8, a 40-token prefix) both runs push the
    /// same batches through the same kernels, so the logits are bitwise equal; with other splits
    /// a batched pass may round differently (sgemm vs quantized dot products), within 1e-4.
    // stories260K's heads are 8 values, too short for Q8_0 blocks: QuantizedKVCacheTests runs Q8_0.
    @Test(arguments: [KVCacheType.f32, .f16])
    func prefixReuseIsExact(kv: KVCacheType) throws {
        let config = TransformerConfiguration(threads: 2, maxBatch: 8, contextLength: 128, kvCacheType: kv)
        let shared = RuntimeFixtures.prompt(40, vocabulary: vocab)
        let first = shared + RuntimeFixtures.prompt(5, vocabulary: vocab, salt: 1)
        let second = shared + RuntimeFixtures.prompt(11, vocabulary: vocab, salt: 2)

        let warm = try SequentialEngine(model: model, configuration: config)
        try warm.prefill(first)
        let result = try warm.prefill(second)
        #expect(result.cachedTokenCount == 40 && result.evaluatedTokenCount == 11)
        #expect(warm.tokens == second)
        let reused = Array(warm.logits)

        let cold = try SequentialEngine(model: model, configuration: config)
        #expect(try cold.prefill(second).cachedTokenCount == 0)
        #expect(reused == Array(cold.logits))

        // One 51-token batch (sgemm path) against the reused 40 + 11 split: close, maybe not
        // bitwise (measured 1.6e-4 with F16 keys and values, below 1e-4 with F32).
        var wide = config
        wide.maxBatch = 64
        let oneBatch = try SequentialEngine(model: model, configuration: wide)
        try oneBatch.prefill(second)
        let delta = zip(reused, oneBatch.logits).map { abs($0 - $1) }.max()!
        #expect(delta < (kv == .f32 ? 1e-4 : 1e-3))
    }

    /// The same prompt again evaluates only its last token (its logits are the answer) and
    /// reproduces the logits bitwise; `reusePrefix: false` evaluates everything.
    @Test func identicalPromptReevaluatesOnlyTheLastToken() throws {
        let engine = try SequentialEngine(model: model, configuration: TransformerConfiguration(maxBatch: 8, contextLength: 64))
        let prompt = RuntimeFixtures.prompt(17, vocabulary: vocab)
        try engine.prefill(prompt)
        let before = Array(engine.logits)
        let again = try engine.prefill(prompt)
        #expect(again.cachedTokenCount == 16 && again.evaluatedTokenCount == 1)
        #expect(Array(engine.logits) == before)
        let cold = try engine.prefill(prompt, reusePrefix: false)
        #expect(cold.cachedTokenCount == 0 && cold.evaluatedTokenCount == 17)
    }

    /// A prompt past the context window is refused before any forward pass: the engine's tokens
    /// and the step counter are untouched.
    @Test func contextLimitRefusedBeforeCompute() throws {
        let engine = try SequentialEngine(model: model, configuration: TransformerConfiguration(maxBatch: 8, contextLength: 32))
        try engine.prefill(RuntimeFixtures.prompt(10, vocabulary: vocab))
        let passes = engine.scheduler.statistics.steps, tokens = engine.tokens
        #expect(throws: EngineError.contextLimitExceeded(contextSize: 32, tokenCount: 33)) {
            try engine.prefill(RuntimeFixtures.prompt(33, vocabulary: vocab))
        }
        #expect(throws: EngineError.contextLimitExceeded(contextSize: 32, tokenCount: 40)) {
            try engine.generate(prompt: RuntimeFixtures.prompt(40, vocabulary: vocab), sampling: .greedy, maxTokens: 4) { _ in }
        }
        #expect(engine.scheduler.statistics.steps == passes && engine.tokens == tokens)
        #expect(throws: EngineError.tokenOutOfRange(id: vocab, vocabularySize: vocab)) {
            try engine.prefill([1, Int32(vocab)])
        }
        #expect(engine.scheduler.statistics.steps == passes)
    }

    /// Cancelling during a prompt: the flag raised after the 3rd chunk stops the prefill before
    /// the 4th (the scheduler checks it before every step).
    @Test func prefillCancelsBetweenMicroBatches() throws {
        let engine = try SequentialEngine(model: model, configuration: TransformerConfiguration(maxBatch: 4, contextLength: 64))
        let flag = CancellationFlag()
        engine.scheduler.stepObserver = { n in if n == 3 { flag.cancel() } }
        #expect(throws: EngineError.cancelled) {
            try engine.prefill(RuntimeFixtures.prompt(32, vocabulary: vocab), cancellation: flag)
        }
        #expect(engine.scheduler.statistics.steps == 3)
        #expect(engine.tokens.isEmpty && engine.scheduler.statistics.pool.blocksInUse == 0)
    }

    /// Cancelling during decoding: raised after the 5th step (the prompt is one step), generation
    /// ends with `.cancelled` without another step; the tokens emitted so far stand.
    @Test func generationCancelsBetweenTokens() throws {
        let engine = try SequentialEngine(model: model, configuration: TransformerConfiguration(contextLength: 64))
        let flag = CancellationFlag()
        engine.scheduler.stepObserver = { n in if n == 5 { flag.cancel() } }
        var emitted: [Int32] = []
        let outcome = try engine.generate(prompt: RuntimeFixtures.prompt(6, vocabulary: vocab), sampling: .greedy,
                                          maxTokens: 40, cancellation: flag) { emitted.append($0) }
        #expect(outcome.finishReason == .cancelled)
        #expect(engine.scheduler.statistics.steps == 5)
        // 1 prompt step + 4 decode steps: 4 tokens were emitted and evaluated.
        #expect(emitted.count == 4 && outcome.tokenCount == 4)
    }

    /// Rolling back forgets positions; evaluating the same token again gives the same logits.
    @Test func rollbackRestoresEarlierState() throws {
        let engine = try SequentialEngine(model: model, configuration: TransformerConfiguration(contextLength: 64))
        let prompt = RuntimeFixtures.prompt(9, vocabulary: vocab)
        try engine.prefill(prompt)
        let afterFirst = try Array(engine.step(100))
        _ = try engine.step(200)
        #expect(engine.tokens.count == 11)
        engine.rollback(2)
        #expect(engine.tokens == prompt && engine.logits.isEmpty)
        #expect(try Array(engine.step(100)) == afterFirst)
        // Forced runs append like steps.
        _ = try engine.force([5, 6, 7])
        #expect(engine.tokens == prompt + [100, 5, 6, 7])
    }

    /// Stop tokens end generation without being emitted or evaluated; maxTokens caps it; a full
    /// context ends it as `.maxTokens`.
    @Test func generationStopsOnStopTokenBudgetAndContext() throws {
        let engine = try SequentialEngine(model: model, configuration: TransformerConfiguration(contextLength: 24))
        let prompt = RuntimeFixtures.prompt(8, vocabulary: vocab)
        var free: [Int32] = []
        let a = try engine.generate(prompt: prompt, sampling: .greedy, maxTokens: 6) { free.append($0) }
        #expect(a.finishReason == .maxTokens && free.count == 6 && a.tokenCount == 6)

        var stopped: [Int32] = []
        let stop = free[3], first = free.firstIndex(of: stop)!
        let b = try engine.generate(prompt: prompt, sampling: .greedy, stopTokens: [stop], maxTokens: 6) { stopped.append($0) }
        #expect(b.finishReason == .stopToken(stop) && stopped == Array(free[0..<first]))
        // The last prompt token is always evaluated; the rest come from the pool.
        #expect(b.prefill.cachedTokenCount == 7)

        var filled: [Int32] = []
        let c = try engine.generate(prompt: prompt, sampling: .greedy, maxTokens: 100) { filled.append($0) }
        #expect(c.finishReason == .maxTokens && filled.count == 24 - 8 + 1)
    }
}
