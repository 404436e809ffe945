import Engine
import LoomSupport
import Testing

/// `PipelinedEngine`: the same tokens as `SequentialEngine.generate` on three models and one of
/// each further architecture (greedy and seeded sampling), back-pressure through a small ring, errors before compute, cancellation
/// within one forward pass, prefix reuse across generations.
@Suite(.serialized, .timeLimit(.minutes(30))) struct PipelinedEngineRuntimeTests {
    private func config() -> TransformerConfiguration {
        TransformerConfiguration(threads: 2, maxBatch: 32, contextLength: 256, kvCacheType: .f16)
    }

    @Test(arguments: RuntimeFixtures.modelPaths + RuntimeFixtures.familyPaths)
    func bothEnginesProduceIdenticalStreams(path: String) async throws {
        let model = try ModelStore.shared.model(path: path)
        let vocab = model.config.vocabularySize
        let prompt = RuntimeFixtures.prompt(20, vocabulary: vocab)
        let sequential = try SequentialEngine(model: model, configuration: config())
        // A 2-token ring makes the producer wait for the consumer most of the time.
        let pipelined = try PipelinedEngine(model: model, configuration: config(), bufferCapacity: 2)
        #expect(!pipelined.supportsLogits && !PipelinedEngine.supportsLogits)
        for sampling in [SamplingParameters.greedy, RuntimeFixtures.seeded] {
            var expected: [Int32] = []
            let outcome = try sequential.generate(prompt: prompt, sampling: sampling, maxTokens: 24) { expected.append($0) }
            let stream = try pipelined.start(prompt: prompt, sampling: sampling, stopTokens: [], maxTokens: 24,
                                             cancellation: CancellationFlag())
            let got = try await RuntimeFixtures.collect(stream)
            #expect(got == expected, "\(path) \(sampling)")
            #expect(stream.finishReason == .maxTokens && outcome.finishReason == .maxTokens)
            #expect(stream.prefill == outcome.prefill)
        }
        // Stop tokens: the same first stop, not emitted.
        var free: [Int32] = []
        try sequential.generate(prompt: prompt, sampling: RuntimeFixtures.seeded, maxTokens: 12) { free.append($0) }
        let stop = free[6]
        var expected: [Int32] = []
        let outcome = try sequential.generate(prompt: prompt, sampling: RuntimeFixtures.seeded, stopTokens: [stop],
                                              maxTokens: 12) { expected.append($0) }
        let stream = try pipelined.start(prompt: prompt, sampling: RuntimeFixtures.seeded, stopTokens: [stop], maxTokens: 12,
                                         cancellation: CancellationFlag())
        #expect(try await RuntimeFixtures.collect(stream) == expected)
        #expect(stream.finishReason == .stopToken(stop) && outcome.finishReason == .stopToken(stop))
    }

    /// Errors the prompt can be judged by come from `start`, before the producer runs.
    @Test func refusesBeforeCompute() throws {
        let model = try ModelStore.shared.model(path: RuntimeFixtures.stories)
        let engine = try PipelinedEngine(model: model, configuration: TransformerConfiguration(contextLength: 16))
        #expect(throws: EngineError.contextLimitExceeded(contextSize: 16, tokenCount: 17)) {
            try engine.start(prompt: RuntimeFixtures.prompt(17, vocabulary: 512), sampling: .greedy, stopTokens: [],
                             maxTokens: 4, cancellation: CancellationFlag())
        }
        #expect(throws: EngineError.emptyBatch) {
            try engine.start(prompt: [], sampling: .greedy, stopTokens: [], maxTokens: 4, cancellation: CancellationFlag())
        }
        #expect(throws: EngineError.self) {
            try engine.start(prompt: [1], sampling: .greedy, stopTokens: [], maxTokens: -1, cancellation: CancellationFlag())
        }
        #expect(engine.scheduler.statistics.steps == 0)
    }

    /// The flag raised on the scheduler's thread after the 4th step (prompt + 3 decodes) stops the
    /// sequence before a 5th; the consumer sees the tokens emitted before and `.cancelled`.
    @Test func cancellationStopsWithinOneToken() async throws {
        let model = try ModelStore.shared.model(path: RuntimeFixtures.stories)
        let engine = try PipelinedEngine(model: model, configuration: TransformerConfiguration(contextLength: 64))
        let flag = CancellationFlag()
        engine.scheduler.stepObserver = { n in if n == 4 { flag.cancel() } }
        let stream = try engine.start(prompt: RuntimeFixtures.prompt(5, vocabulary: 512), sampling: .greedy, stopTokens: [],
                                      maxTokens: 50, cancellation: flag)
        let tokens = try await RuntimeFixtures.collect(stream)
        #expect(stream.finishReason == .cancelled)
        #expect(tokens.count == 3)
        engine.waitUntilIdle()
        #expect(engine.scheduler.statistics.steps == 4)
        engine.scheduler.stepObserver = nil

        // A cancelled prompt: raised after the 2nd of 4 chunks.
        let small = try PipelinedEngine(model: model, configuration: TransformerConfiguration(maxBatch: 4, contextLength: 64))
        let flag2 = CancellationFlag()
        small.scheduler.stepObserver = { n in if n == 2 { flag2.cancel() } }
        let s2 = try small.start(prompt: RuntimeFixtures.prompt(16, vocabulary: 512), sampling: .greedy, stopTokens: [],
                                 maxTokens: 5, cancellation: flag2)
        #expect(try await RuntimeFixtures.collect(s2).isEmpty)
        #expect(s2.finishReason == .cancelled)
        small.waitUntilIdle()
        #expect(small.scheduler.statistics.steps == 2)
    }

    /// A new `start` supersedes a stream still producing (it ends as cancelled); an abandoned
    /// stream stops its producer; a second turn reuses the first turn's prefix.
    @Test func supersedingAbandoningAndReuse() async throws {
        let model = try ModelStore.shared.model(path: RuntimeFixtures.stories)
        let engine = try PipelinedEngine(model: model, configuration: TransformerConfiguration(contextLength: 128),
                                         bufferCapacity: 1)
        let prompt = RuntimeFixtures.prompt(10, vocabulary: 512)
        let first = try engine.start(prompt: prompt, sampling: .greedy, stopTokens: [], maxTokens: 100,
                                     cancellation: CancellationFlag())
        var it = first.makeAsyncIterator()
        let t0 = try await it.next()
        #expect(t0 != nil)
        let second = try engine.start(prompt: prompt, sampling: .greedy, stopTokens: [], maxTokens: 8,
                                      cancellation: CancellationFlag())
        #expect(first.finishReason == .cancelled)
        let answer = try await RuntimeFixtures.collect(second)
        #expect(answer.count == 8 && answer.first == t0)
        #expect(second.prefill.cachedTokenCount == 9)

        // Turn two: prompt + answer + more; everything before the last answer token is reused
        // (the last emitted token is evaluated with the new prompt).
        let turn2 = prompt + answer + RuntimeFixtures.prompt(4, vocabulary: 512, salt: 3)
        let third = try engine.start(prompt: turn2, sampling: .greedy, stopTokens: [], maxTokens: 2,
                                     cancellation: CancellationFlag())
        _ = try await RuntimeFixtures.collect(third)
        #expect(third.prefill.cachedTokenCount == prompt.count + answer.count - 1 && third.prefill.evaluatedTokenCount == 5)

        // Dropping a stream mid-way ends its sequence (its full ring of 1 would otherwise hold it).
        do {
            let dropped = try engine.start(prompt: prompt, sampling: .greedy, stopTokens: [], maxTokens: 100,
                                           cancellation: CancellationFlag())
            var i = dropped.makeAsyncIterator()
            _ = try await i.next()
        }
        engine.waitUntilIdle()
        #expect(engine.scheduler.statistics.running == 0 && engine.scheduler.statistics.pool.blocksInUse == 0)
    }
}
