import Engine
import LoomSupport
import Testing

/// Continuous batching: sequences that share forward passes produce exactly what they produce
/// alone, blocks are shared and freed as the pool's counters say, and pressure is absorbed by
/// preemption rather than failures.
@Suite(.serialized, .timeLimit(.minutes(10)))
struct SchedulerTests {
    static let models = [SharedData.defaultModel, SharedData.path("models/fixtures/synth-llama-q4_k_m.gguf"),
                         SharedData.path("models/fixtures/synth-gemma3-q4_k_m.gguf")]

    static func load(_ path: String) throws -> Model { try Model(file: GGUFFile(path: path)) }

    static func scheduler(_ model: Model, policy: SchedulerPolicy = SchedulerPolicy(), context: Int = 256) throws -> Scheduler {
        try Scheduler(model: model, configuration: TransformerConfiguration(threads: 2, contextLength: context),
                      policy: policy)
    }

    /// A deterministic prompt of `count` in-vocabulary ids, varied by `salt`.
    static func prompt(_ count: Int, vocabulary: Int, salt: Int) -> [Int32] {
        (0..<count).map { Int32(($0 * 7919 + 13 + salt * 104_729) % vocabulary) }
    }

    static let seeded = SamplingParameters(temperature: 0.8, topK: 40, topP: 0.95, minP: 0.02, repeatPenalty: 1.1,
                                           penaltyWindow: 32, seed: 42)

    /// Eight requests: different prompt lengths (one spans several prompt chunks), greedy and
    /// seeded sampling with different seeds, different budgets.
    static func requests(vocabulary: Int) -> [(prompt: [Int32], sampling: SamplingParameters, maxTokens: Int)] {
        (0..<8).map { i in
            var sampling = i % 2 == 0 ? SamplingParameters.greedy : seeded
            sampling.seed = UInt64(100 + i)
            return (prompt(3 + i * 23, vocabulary: vocabulary, salt: i), sampling, 12 + i)
        }
    }

    static func collect(_ stream: PipelinedStream) async throws -> [Int32] {
        var out: [Int32] = []
        for try await t in stream { out.append(t) }
        return out
    }

    @Test("Eight sequences together, and staggered, produce what each produces alone", arguments: models)
    func batchInvariance(path: String) async throws {
        let model = try Self.load(path)
        let requests = Self.requests(vocabulary: model.config.vocabularySize)
        var alone: [[Int32]] = []
        do {
            let scheduler = try Self.scheduler(model)
            for r in requests {
                alone.append(try await Self.collect(scheduler.generate(prompt: r.prompt, sampling: r.sampling,
                                                                      maxTokens: r.maxTokens)))
            }
            #expect(scheduler.statistics.maxSequencesInStep == 1)
        }
        // Together: all submitted before the first step.
        let scheduler = try Self.scheduler(model)
        let streams = try requests.map { try scheduler.generate(prompt: $0.prompt, sampling: $0.sampling, maxTokens: $0.maxTokens) }
        var together: [[Int32]] = []
        for s in streams { together.append(try await Self.collect(s)) }
        #expect(together == alone)
        #expect(scheduler.statistics.maxSequencesInStep > 1)

        // Staggered: each new sequence joins while the earlier ones are decoding. A ring of four
        // tokens holds each earlier sequence back until its tokens are read, so none can finish
        // before the next one joins however fast the model decodes (12+ tokens each, 2 read per
        // round).
        let staggered = try Self.scheduler(model)
        var pending: [PipelinedStream] = []
        var outputs: [[Int32]] = Array(repeating: [], count: requests.count)
        var iterators: [PipelinedStream.AsyncIterator] = []
        for (i, r) in requests.enumerated() {
            let stream = try staggered.generate(prompt: r.prompt, sampling: r.sampling, maxTokens: r.maxTokens,
                                                bufferCapacity: 4)
            pending.append(stream)
            iterators.append(stream.makeAsyncIterator())
            // Read two tokens of every stream started so far before starting the next one.
            for j in 0...i {
                for _ in 0..<2 { if let t = try await iterators[j].next() { outputs[j].append(t) } }
            }
        }
        for j in iterators.indices {
            while let t = try await iterators[j].next() { outputs[j].append(t) }
        }
        #expect(outputs == alone)
        #expect(staggered.statistics.maxSequencesInStep > 1)
    }

    @Test("Default prompt chunks share the step's fused products; chunks of the prompt path's length run on their own")
    func promptChunksJoinTheFusedProducts() async throws {
        let model = try Self.load(SharedData.defaultModel)
        let vocab = model.config.vocabularySize
        let fused = try Self.scheduler(model)
        _ = try await Self.collect(fused.generate(prompt: Self.prompt(100, vocabulary: vocab, salt: 1),
                                                  sampling: .greedy, maxTokens: 2))
        #expect(fused.statistics.promptRows == 100)
        #expect(fused.statistics.promptPathRows == 0)

        let long = try Self.scheduler(model, policy: SchedulerPolicy(prefillChunk: 256, maxPrefillTokensPerStep: 256),
                                      context: 512)
        _ = try await Self.collect(long.generate(prompt: Self.prompt(300, vocabulary: vocab, salt: 1),
                                                 sampling: .greedy, maxTokens: 2))
        #expect(long.statistics.promptRows == 300)
        #expect(long.statistics.promptPathRows == 256)  // the 44-token rest joins the fused rows
    }

    @Test("While nothing decodes, a prompt takes several whole chunks a step and gets the logits one chunk a step gives")
    func lonePromptTakesSeveralChunksAStep() async throws {
        let model = try Self.load(SharedData.defaultModel)
        let prompt = Self.prompt(100, vocabulary: model.config.vocabularySize, salt: 5)
        func firstLogits(_ policy: SchedulerPolicy) async throws -> (logits: [Float], steps: Int, rows: Int) {
            let scheduler = try Self.scheduler(model, policy: policy)
            let logits = try await offPool {
                let session = try scheduler.open(prompt: prompt)
                defer { session.close() }
                return Array(try session.logits())
            }
            let stats = scheduler.statistics
            #expect(stats.promptRows == 100)
            #expect(stats.maxSequencesInStep == 1)
            return (logits, stats.steps, stats.rows)
        }
        // 17 rows a step hold one 16-token chunk; 65 hold four: 64 + 32 + the 4-token tail.
        let one = try await firstLogits(SchedulerPolicy(maxSequences: 1, prefillChunk: 16, maxPrefillTokensPerStep: 16))
        let several = try await firstLogits(SchedulerPolicy(maxSequences: 1, prefillChunk: 16, maxPrefillTokensPerStep: 64))
        #expect(one.steps == 7)
        #expect(several.steps == 3)
        #expect(one.rows == 100 && several.rows == 100)
        #expect(several.logits == one.logits)
    }

    @Test("A caller-driven sequence beside sampled ones sees the logits it sees alone")
    func callerDrivenSequenceIsBatchInvariant() async throws {
        let model = try Self.load(SharedData.defaultModel)
        let vocabulary = model.config.vocabularySize
        let prompt = Self.prompt(40, vocabulary: vocabulary, salt: 9)
        func drive(_ scheduler: Scheduler) async throws -> [Int32] {
            try await offPool {
                let session = try scheduler.open(prompt: prompt)
                var chosen: [Int32] = []
                var logits = try session.logits()
                for _ in 0..<10 {
                    // Argmax over odd ids only: a stand-in for a grammar mask.
                    var best: Int32 = 1
                    for i in stride(from: 1, to: logits.count, by: 2) where logits[i] > logits[Int(best)] { best = Int32(i) }
                    chosen.append(best)
                    logits = try session.step(best)
                }
                session.close()
                return chosen
            }
        }
        let alone = try await drive(Self.scheduler(model))
        let scheduler = try Self.scheduler(model)
        let others = try (0..<4).map {
            try scheduler.generate(prompt: Self.prompt(20 + $0, vocabulary: vocabulary, salt: $0), sampling: .greedy,
                                   maxTokens: 30)
        }
        let beside = try await drive(scheduler)
        for s in others { _ = try await Self.collect(s) }
        #expect(beside == alone)
        #expect(scheduler.statistics.maxSequencesInStep > 1)
    }

    @Test("A shared 300-token prefix is allocated once; the divergent block is copied")
    func blockSharing() async throws {
        let model = try Self.load(SharedData.defaultModel)
        let vocabulary = model.config.vocabularySize
        let policy = SchedulerPolicy(maxSequences: 4, blockSize: 16)
        let scheduler = try Self.scheduler(model, policy: policy, context: 512)
        let prefix = Self.prompt(300, vocabulary: vocabulary, salt: 1)
        let a = prefix + Self.prompt(20, vocabulary: vocabulary, salt: 2)
        let b = prefix + Self.prompt(20, vocabulary: vocabulary, salt: 3)
        _ = try await Self.collect(scheduler.generate(prompt: a, sampling: .greedy, maxTokens: 1))
        let before = scheduler.statistics.pool
        let stream = try scheduler.generate(prompt: b, sampling: .greedy, maxTokens: 1)
        _ = try await Self.collect(stream)
        let after = scheduler.statistics.pool
        // 288 positions in 18 shared blocks, 12 copied from the block where the prompts diverge.
        #expect(stream.prefill.cachedTokenCount == 300)
        #expect(stream.prefill.evaluatedTokenCount == 20)
        #expect(after.copiedTokenCount - before.copiedTokenCount == 12)
        // B holds positions 0..<320 (its one token is not evaluated): 20 blocks, 18 of them
        // shared; of its 2 own blocks one received the 12 copied positions.
        #expect(after.allocations - before.allocations == 2)
        #expect(after.blocksInUse == 0)
    }

    @Test("A pool too small for every request completes them all by preemption, with their solo outputs")
    func pressure() async throws {
        let model = try Self.load(SharedData.defaultModel)
        let vocabulary = model.config.vocabularySize
        let requests = (0..<4).map { Self.prompt(90 + $0, vocabulary: vocabulary, salt: 20 + $0) }
        func bytes(_ positions: Int) -> Int {
            2 * model.config.blockCount * model.config.kvLength * 4 * positions
        }
        let solo = try Self.scheduler(model, context: 256)
        var alone: [[Int32]] = []
        for p in requests { alone.append(try await Self.collect(solo.generate(prompt: p, sampling: .greedy, maxTokens: 60))) }
        // One context (256 positions) of blocks: four sequences of ~150 positions cannot all fit.
        let tight = try Self.scheduler(model, policy: SchedulerPolicy(maxSequences: 4, kvBudgetBytes: bytes(256)), context: 256)
        let streams = try requests.map { try tight.generate(prompt: $0, sampling: .greedy, maxTokens: 60) }
        var together: [[Int32]] = []
        for s in streams { together.append(try await Self.collect(s)) }
        #expect(together == alone)
        let stats = tight.statistics
        #expect(stats.preemptions > 0 || stats.maxSequencesInStep < 4)
        #expect(stats.pool.blocksInUse == 0)
    }

    @Test("Cancelling mid-prompt and mid-decode frees the blocks and leaves the others' outputs unchanged")
    func cancellation() async throws {
        let model = try Self.load(SharedData.defaultModel)
        let vocabulary = model.config.vocabularySize
        let keep = Self.prompt(30, vocabulary: vocabulary, salt: 5)
        let solo = try Self.scheduler(model)
        let expected = try await Self.collect(solo.generate(prompt: keep, sampling: .greedy, maxTokens: 40))

        let scheduler = try Self.scheduler(model, policy: SchedulerPolicy(prefillChunk: 16, maxPrefillTokensPerStep: 16))
        let kept = try scheduler.generate(prompt: keep, sampling: .greedy, maxTokens: 40)
        let midPrompt = CancellationFlag()
        let long = try scheduler.generate(prompt: Self.prompt(200, vocabulary: vocabulary, salt: 6), sampling: .greedy,
                                          maxTokens: 40, cancellation: midPrompt)
        let midDecode = CancellationFlag()
        let decoding = try scheduler.generate(prompt: Self.prompt(10, vocabulary: vocabulary, salt: 7), sampling: .greedy,
                                              maxTokens: 200, cancellation: midDecode)
        var iterator = kept.makeAsyncIterator()
        var got: [Int32] = []
        // After the first kept token, the 200-token prompt (13 chunks of 16) is still being read.
        if let t = try await iterator.next() { got.append(t) }
        midPrompt.cancel()
        var decoded = 0
        for try await _ in decoding {
            decoded += 1
            if decoded == 3 { midDecode.cancel() }
        }
        _ = try await Self.collect(long)
        #expect(long.finishReason == .cancelled)
        #expect(decoding.finishReason == .cancelled)
        #expect(decoded < 200)
        while let t = try await iterator.next() { got.append(t) }
        #expect(got == expected)
        #expect(scheduler.statistics.pool.blocksInUse == 0)
    }

    @Test("A passed deadline ends a sampled stream and a caller-driven sequence with the typed error")
    func deadlines() async throws {
        let model = try Self.load(SharedData.defaultModel)
        let scheduler = try Self.scheduler(model, context: 256)
        let prompt = Self.prompt(8, vocabulary: model.config.vocabularySize, salt: 4)
        // Filling the context takes hundreds of steps, far longer than a millisecond: the
        // deadline comes first, whatever the machine.
        let stream = try scheduler.generate(prompt: prompt, sampling: .greedy, maxTokens: 10_000,
                                            timeout: .milliseconds(1))
        await #expect(throws: EngineError.deadlineExceeded) { _ = try await Self.collect(stream) }
        let session = try scheduler.open(prompt: prompt, timeout: .milliseconds(1))
        let ended = try await offPool { () -> EngineError? in
            do {
                _ = try session.logits()
                for _ in 0..<10_000 { _ = try session.step(1) }
                return nil
            } catch let error as EngineError {
                return error
            }
        }
        #expect(ended == .deadlineExceeded)
        #expect(scheduler.statistics.pool.blocksInUse == 0)
    }

    @Test("A caller's next token wakes the scheduler at once, not at its housekeeping timer")
    func callerTokensWakeTheScheduler() async throws {
        let model = try Self.load(SharedData.path("models/fixtures/synth-llama-q4_k_m.gguf"))
        // A timer far longer than any step: a step that waited for it would show in the count
        // (and take 20 s), whatever the machine's speed.
        let scheduler = try Self.scheduler(model, policy: SchedulerPolicy(housekeepingIntervalMicroseconds: 20_000_000))
        let prompt = Self.prompt(5, vocabulary: model.config.vocabularySize, salt: 3)
        try await offPool {
            let session = try scheduler.open(prompt: prompt)
            var logits = try session.logits()
            for _ in 0..<3 {
                var best = 0
                for i in logits.indices where logits[i] > logits[best] { best = i }
                logits = try session.step(Int32(best))
            }
            session.close()
        }
        #expect(scheduler.statistics.steps >= 4)
        #expect(scheduler.statistics.timerWakeups == 0)
    }

    @Test("A prompt longer than the context is refused before any compute")
    func oversizePrompt() throws {
        let model = try Self.load(SharedData.defaultModel)
        let scheduler = try Self.scheduler(model, context: 64)
        #expect(throws: EngineError.contextLimitExceeded(contextSize: 64, tokenCount: 65)) {
            _ = try scheduler.generate(prompt: Self.prompt(65, vocabulary: 100, salt: 0), sampling: .greedy, maxTokens: 1)
        }
        #expect(scheduler.statistics.steps == 0)
    }
}

