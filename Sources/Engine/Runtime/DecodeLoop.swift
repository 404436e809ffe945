import LoomSupport

/// The generation loop both engines run, so that the same prompt, sampling parameters and seed
/// give the same tokens whichever engine runs them: prefill, then repeatedly sample (penalties
/// and filters inside the `Sampler`), stop on a stop token, emit, and evaluate the token.
///
/// Order per token: check cancellation → sample → stop token? → emit → budget reached? →
/// evaluate. The last emitted token is not evaluated (nothing would read its logits); the next
/// prompt that contains it evaluates it, reusing everything before it.
struct DecodeLoop {
    let prompt: [Int32]
    let sampling: SamplingParameters
    let stopTokens: [Int32]
    let maxTokens: Int
    let reusePrefix: Bool
    let storePrefixLength: Int?

    init(prompt: [Int32], sampling: SamplingParameters, stopTokens: Set<Int32>, maxTokens: Int, reusePrefix: Bool,
         storePrefixLength: Int?) {
        self.prompt = prompt
        self.sampling = sampling
        // A handful of ids: a linear scan beats hashing per token.
        self.stopTokens = stopTokens.sorted()
        self.maxTokens = maxTokens
        self.reusePrefix = reusePrefix
        self.storePrefixLength = storePrefixLength
    }

    /// Checks what can be checked before any compute (the same checks `prefill` makes first).
    func validate(for engine: SequentialEngine) throws(EngineError) {
        guard maxTokens >= 0 else { throw .invalidConfiguration("maxTokens \(maxTokens) must not be negative") }
        try engine.validatePrompt(prompt)
        _ = try Sampler(vocabularySize: engine.model.config.vocabularySize, parameters: sampling)
    }

    /// Runs the loop on `engine`. `prefilled` is called once the prompt is evaluated; `emit`
    /// receives each token and returns false to stop (the consumer is gone).
    func run(on engine: SequentialEngine, cancellation: CancellationFlag?, prefilled: (PrefillResult) -> Void,
             emit: (Int32) -> Bool) throws(EngineError) -> GenerationOutcome {
        let sampler = try Sampler(vocabularySize: engine.model.config.vocabularySize, parameters: sampling)
        var outcome = GenerationOutcome(prefill: PrefillResult(cachedTokenCount: 0, evaluatedTokenCount: 0),
                                        tokenCount: 0, finishReason: .cancelled)
        do {
            outcome.prefill = try engine.prefill(prompt, reusePrefix: reusePrefix, storePrefixLength: storePrefixLength,
                                                 cancellation: cancellation)
        } catch .cancelled {
            prefilled(outcome.prefill)
            return outcome
        }
        prefilled(outcome.prefill)
        for t in prompt.suffix(sampling.penaltyWindow) { sampler.accept(t) }
        var logits = engine.logits
        while outcome.tokenCount < maxTokens {
            if let cancellation, cancellation.isCancelled { return outcome }
            guard let token = sampler.sample(logits) else {
                throw .invalidConfiguration("no token can be sampled: every logit is non-finite")
            }
            if stopTokens.contains(token) {
                outcome.finishReason = .stopToken(token)
                return outcome
            }
            sampler.accept(token)
            guard emit(token) else { return outcome }
            outcome.tokenCount += 1
            if outcome.tokenCount == maxTokens || engine.sequence.count == engine.contextSize { break }
            do {
                logits = try engine.step(token, cancellation: cancellation)
            } catch .cancelled {
                return outcome
            }
        }
        outcome.finishReason = .maxTokens
        return outcome
    }
}
