import Engine
import Testing

/// Verifying a speculated run: `SequentialEngine.verify` evaluates a token and the tokens
/// proposed after it as one segment, and each of its rows must be exactly what stepping the
/// tokens one by one gives — the property that lets speculation leave output unchanged. A
/// rolled-back tail must leave the sequence as if it had never been evaluated.
@Suite(.serialized, .timeLimit(.minutes(20))) struct SpeculativeVerificationTests {
    /// The default model (Q4_1) and a Q8_0 fixture: both run the fused integer products.
    static let models = [SharedData.defaultModel, SharedData.path("models/fixtures/synth-llama-q8_0.gguf")]

    private func config(_ kv: KVCacheType) -> TransformerConfiguration {
        TransformerConfiguration(threads: 2, maxBatch: 64, contextLength: 160, kvCacheType: kv)
    }

    @Test(arguments: models, KVCacheType.allCases)
    func verifiedRowsEqualSingleSteps(path: String, kv: KVCacheType) throws {
        let model = try ModelStore.shared.model(path: path)
        let vocab = model.config.vocabularySize
        let prompt = RuntimeFixtures.prompt(37, vocabulary: vocab)
        let run = RuntimeFixtures.prompt(6, vocabulary: vocab, salt: 3)

        let stepped = try SequentialEngine(model: model, configuration: config(kv))
        try stepped.prefill(prompt)
        var expected: [[Float]] = []
        for t in run { expected.append(Array(try stepped.step(t))) }

        let verifier = try SequentialEngine(model: model, configuration: config(kv))
        try verifier.prefill(prompt)
        let rows = try verifier.verify(run)
        try #require(rows.count == run.count * vocab)
        for i in 0..<run.count {
            #expect(Array(rows[i * vocab..<(i + 1) * vocab]) == expected[i], "row \(i)")
        }
        #expect(Array(verifier.logits) == expected[run.count - 1])
        #expect(verifier.tokens == prompt + run)
    }

    /// Accept two of five proposals, roll back the other three, and go on with a different
    /// token: the logits equal those of a sequence that only ever saw the accepted tokens (also
    /// with a Q8_0 cache, whose rolled-back rows are whole blocks that are simply rewritten).
    @Test(arguments: models, [KVCacheType.f32, .q8_0])
    func rollingBackARejectedTailLeavesNoTrace(path: String, kv: KVCacheType) throws {
        let model = try ModelStore.shared.model(path: path)
        let vocab = model.config.vocabularySize
        let prompt = RuntimeFixtures.prompt(29, vocabulary: vocab, salt: 1)
        let run = RuntimeFixtures.prompt(6, vocabulary: vocab, salt: 5)
        let correction = Int32((Int(run[3]) + 1) % vocab)

        let speculative = try SequentialEngine(model: model, configuration: config(kv))
        try speculative.prefill(prompt)
        _ = try speculative.verify(run)
        speculative.rollback(3)
        let after = Array(try speculative.step(correction))
        let next = Array(try speculative.verify([run[0], run[1]]))

        let plain = try SequentialEngine(model: model, configuration: config(kv))
        try plain.prefill(prompt)
        for t in run.prefix(3) { _ = try plain.step(t) }
        #expect(Array(try plain.step(correction)) == after)
        var expectedNext: [Float] = []
        for t in [run[0], run[1]] { expectedNext += Array(try plain.step(t)) }
        #expect(next == expectedNext)
        #expect(speculative.tokens == plain.tokens)
    }

    @Test func aRunLongerThanOneStepIsRefused() throws {
        let model = try ModelStore.shared.model(path: RuntimeFixtures.stories)
        let engine = try SequentialEngine(model: model, configuration: config(.f32))
        try engine.prefill([1, 2, 3])
        let tooLong = [Int32](repeating: 5, count: engine.maxVerifiedRun + 1)
        #expect(throws: EngineError.batchTooLarge(count: tooLong.count, maximum: engine.maxVerifiedRun)) {
            try engine.verify(tooLong)
        }
    }
}

/// Speculation steps aside by policy: a sequence alone speculates under the default policy,
/// and proposes nothing under `speculationMaxSequences: 0` — with the same tokens either way.
@Suite(.serialized, .timeLimit(.minutes(10))) struct SpeculationPolicyTests {
    /// stories260K with a prompt that repeats itself, so its suffixes recur from the first token on.
    static func repeatingPrompt() throws -> (Model, TransformerConfiguration, [Int32]) {
        let model = try ModelStore.shared.model(path: RuntimeFixtures.stories)
        let phrase = RuntimeFixtures.prompt(12, vocabulary: model.config.vocabularySize, salt: 4)
        return (model, TransformerConfiguration(threads: 2, maxBatch: 64, contextLength: 256), [1] + phrase + phrase + phrase)
    }

    @Test func thePolicyCanTurnSpeculationOff() async throws {
        let (model, config, prompt) = try SpeculationPolicyTests.repeatingPrompt()

        let welcoming = try Scheduler(model: model, configuration: config, policy: SchedulerPolicy(maxSequences: 4))
        let fast = try welcoming.generate(prompt: prompt, sampling: .greedy, maxTokens: 48, speculation: 6)
        let fastTokens = try await RuntimeFixtures.collect(fast)
        #expect(fast.speculation.proposed > 0)

        let closed = try Scheduler(model: model, configuration: config,
                                   policy: SchedulerPolicy(maxSequences: 4, speculationMaxSequences: 0))
        let plain = try closed.generate(prompt: prompt, sampling: .greedy, maxTokens: 48, speculation: 6)
        #expect(try await RuntimeFixtures.collect(plain) == fastTokens)
        #expect(plain.speculation.proposed == 0)
    }
}

/// The speculation counters a pipelined stream reports count every verified run, including one
/// the token budget cuts short, against an independent replay of the proposer over the tokens
/// the stream produced.
@Suite(.serialized, .timeLimit(.minutes(10))) struct SpeculationCounterTests {
    /// What the counters must say for `output`: the proposer sees the prompt and each emitted
    /// token; a proposal is verified against the tokens that follow; the budget may end a run.
    /// Also whether the budget ended inside a run.
    static func replay(prompt: [Int32], output: [Int32], maxTokens: Int, maxRun: Int)
        -> (proposed: Int, accepted: Int, cutInsideRun: Bool)
    {
        var lookup = PromptLookup(prompt: prompt, maxRun: maxRun)
        var proposal: [Int32] = []
        var next = 0
        while next < output.count {
            var confirmed = 0
            while confirmed < proposal.count && next < output.count && output[next] == proposal[confirmed] {
                lookup.append(output[next])
                next += 1
                confirmed += 1
                if next == maxTokens {
                    lookup.record(proposed: proposal.count, accepted: confirmed)
                    return (lookup.proposedTokens, lookup.acceptedTokens, true)
                }
            }
            lookup.record(proposed: proposal.count, accepted: confirmed)
            guard next < output.count else { break }
            // The step's own token (no proposal, or the first that differed).
            let token = output[next]
            next += 1
            if next == maxTokens { break }
            lookup.append(token)
            lookup.propose(limit: maxTokens - next, into: &proposal)
        }
        return (lookup.proposedTokens, lookup.acceptedTokens, false)
    }

    @Test func countersIncludeARunTheBudgetCuts() async throws {
        let (model, config, prompt) = try SpeculationPolicyTests.repeatingPrompt()
        let scheduler = try Scheduler(model: model, configuration: config, policy: SchedulerPolicy(maxSequences: 4))
        var cuts = 0
        for maxTokens in 20...36 {
            let stream = try scheduler.generate(prompt: prompt, sampling: .greedy, maxTokens: maxTokens, speculation: 6)
            let output = try await RuntimeFixtures.collect(stream)
            let expected = Self.replay(prompt: prompt, output: output, maxTokens: maxTokens, maxRun: 6)
            #expect(stream.speculation.proposed == expected.proposed, "budget \(maxTokens)")
            #expect(stream.speculation.accepted == expected.accepted, "budget \(maxTokens)")
            if expected.cutInsideRun { cuts += 1 }
        }
        // Some budgets must end inside a verified run, or the case under test never occurred.
        #expect(cuts > 0)
    }
}
