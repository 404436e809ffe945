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
        }
        #expect(conversation.count > 3 * window)
    }
}
