import Engine
import Testing

/// Prefix reuse on a sliding-window model (the gemma3 fixture: 16-position window on five of six
/// layers): a conversation that outgrows the window evaluates only each turn's new tokens, and
/// its logits equal a cold evaluation's bit for bit.
@Suite(.serialized) struct SlidingWindowPrefixReuseTests {
    let model: Model
    init() throws { model = try ModelStore.shared.model(path: SharedData.path("models/fixtures/synth-gemma3-q4_k_m.gguf")) }

    /// Prompts in chunks of 8, aligned with the 16-position blocks, so warm and cold passes cut
    /// the conversation at the same places.
    private func scheduler() throws -> Scheduler {
        try Scheduler(model: model, configuration: TransformerConfiguration(threads: 1, contextLength: 128, kvCacheType: .f32),
                      policy: SchedulerPolicy(maxSequences: 2, prefillChunk: 8, maxPrefillTokensPerStep: 8, blockSize: 16))
    }

    @Test func threeTurnsEvaluateOnlyTheirNewTokens() throws {
        let window = model.config.slidingWindow
        #expect(window == 16)
        let vocab = model.config.vocabularySize
        let warm = SequentialEngine(scheduler: try scheduler())
        var conversation: [Int32] = []
        for (turn, count) in [32, 16, 16].enumerated() {
            let before = conversation.count
            conversation += RuntimeFixtures.prompt(count, vocabulary: vocab, salt: turn + 1)
            let result = try warm.prefill(conversation)
            #expect(result.cachedTokenCount == before && result.evaluatedTokenCount == count, "turn \(turn + 1): \(result)")
            let cold = SequentialEngine(scheduler: try scheduler())
            #expect(try cold.prefill(conversation).evaluatedTokenCount == conversation.count)
            #expect(Array(warm.logits) == Array(cold.logits), "turn \(turn + 1)")
            // Global layers hold every position, local layers only their window and the margin.
            let held = warm.scheduler.statistics
            let local = try #require(held.localPool)
            #expect(held.pool.blocksInUse == (conversation.count + 15) / 16, "turn \(turn + 1)")
            #expect(local.blocksInUse <= Self.localBlocksHeld(window: window), "turn \(turn + 1): \(local)")
        }
        #expect(conversation.count > 3 * window)
    }

    /// Local-pool blocks a sequence of this policy holds: the window and the rollback margin
    /// (one prompt chunk, 8) rounded out to 16-position blocks, and one more for a step's rows
    /// (the counters may be read before the step's blocks behind the window go back).
    static func localBlocksHeld(window: Int) -> Int { (window - 1 + 8 + 15) / 16 + 2 }

    /// A long sequence decoded token by token holds a bounded number of local blocks, and its
    /// logits equal a cold evaluation's all along (the released blocks were never read again).
    @Test func decodingPastTheWindowReleasesLocalBlocksBehindIt() throws {
        let window = model.config.slidingWindow
        let vocab = model.config.vocabularySize
        let prompt = RuntimeFixtures.prompt(24, vocabulary: vocab, salt: 7)
        let engine = SequentialEngine(scheduler: try scheduler())
        try engine.prefill(prompt)
        var most = 0
        for i in 0..<72 {
            _ = try engine.step(Int32((i * 37 + 5) % vocab))
            most = max(most, try #require(engine.scheduler.statistics.localPool).blocksInUse)
        }
        #expect(engine.tokens.count == 96)
        #expect(most <= Self.localBlocksHeld(window: window))
        let cold = SequentialEngine(scheduler: try scheduler())
        try cold.prefill(engine.tokens)
        #expect(Array(engine.logits) == Array(cold.logits))
    }

    /// Rolling back within the margin (a rejected speculation) keeps the window; rolling back
    /// past it finds the prefix again and recomputes the rest: either way the next logits equal
    /// a cold evaluation's.
    @Test(arguments: [5, 40]) func rollbackKeepsLogitsExact(depth: Int) throws {
        let vocab = model.config.vocabularySize
        let engine = SequentialEngine(scheduler: try scheduler())
        let prompt = RuntimeFixtures.prompt(64, vocabulary: vocab, salt: 11)
        try engine.prefill(prompt)
        for i in 0..<8 { _ = try engine.step(Int32((i * 13 + 3) % vocab)) }
        engine.rollback(depth)
        let next = Int32(42 % vocab)
        _ = try engine.step(next)
        let cold = SequentialEngine(scheduler: try scheduler())
        try cold.prefill(engine.tokens)
        #expect(engine.tokens.count == 72 - depth + 1)
        #expect(Array(engine.logits) == Array(cold.logits))
    }
}
