import LoomSupport

/// The engine that hands logits to its caller: `prefill` a prompt, then `step` one token at a time,
/// each step returning the next token's logits as a borrowed buffer.
///
/// The caller chooses tokens (through `Sampler`, after applying a grammar mask when it has one),
/// which is what guided generation needs. Known runs of tokens (text a grammar forces) go through
/// `force`, evaluated as one batch. One engine holds one sequence; many engines may share one
/// `Model`. Not thread-safe: one call at a time.
public final class SequentialEngine {
    /// The forward pass (activations and kernel threads of this engine).
    public let transformer: Transformer
    /// The tokens and KV cache this engine decodes into.
    public let sequence: InferenceSequence

    /// What a `prefill` did.
    public struct PrefillResult: Sendable, Equatable {
        /// Leading prompt tokens not evaluated now: reused from the engine's previous prompt or
        /// copied from the shared `PrefixCache`.
        public var cachedTokenCount: Int
        /// Prompt tokens evaluated now.
        public var evaluatedTokenCount: Int
        /// The part of `cachedTokenCount` copied from the shared `PrefixCache`.
        public var restoredTokenCount: Int

        /// A result (for callers that report or mock prompt evaluations).
        public init(cachedTokenCount: Int, evaluatedTokenCount: Int, restoredTokenCount: Int = 0) {
            self.cachedTokenCount = cachedTokenCount
            self.evaluatedTokenCount = evaluatedTokenCount
            self.restoredTokenCount = restoredTokenCount
        }
    }

    /// The cross-sequence store `prefill` consults and `storePrefix` fills (nil: none).
    public let prefixCache: PrefixCache?

    /// Forward passes (micro-batches of a prompt, forced runs, decoded tokens) this engine has
    /// run: the unit in which cancellation is bounded.
    public private(set) var forwardPassCount = 0

    /// Called on the computing thread after every forward pass with `forwardPassCount`: progress
    /// reporting for long prompts, and the hook tests use to cancel after a given unit of work.
    public var forwardPassObserver: ((Int) -> Void)?

    private var current = UnsafeBufferPointer<Float>(start: nil, count: 0)

    /// An engine for `model` with a fresh cache of `configuration.contextLength` positions,
    /// consulting `prefixCache` (when given) for prompts other engines have stored.
    public init(model: Model, configuration: TransformerConfiguration = TransformerConfiguration(),
                prefixCache: PrefixCache? = nil) throws(EngineError) {
        transformer = try Transformer(model: model, configuration: configuration)
        sequence = InferenceSequence(cache: try transformer.makeCache())
        self.prefixCache = prefixCache
    }

    /// The model being run.
    public var model: Model { transformer.model }

    /// Positions the cache can hold.
    public var contextSize: Int { sequence.capacity }

    /// The next token's logits after the last `prefill`, `step` or `force` (borrowed: valid until
    /// the next call on this engine; empty before the first).
    public var logits: UnsafeBufferPointer<Float> { current }

    /// The checks `prefill` makes before any compute.
    func validatePrompt(_ tokens: [Int32]) throws(EngineError) {
        guard !tokens.isEmpty else { throw .emptyBatch }
        guard tokens.count <= contextSize else {
            throw .contextLimitExceeded(contextSize: contextSize, tokenCount: tokens.count)
        }
        let vocabulary = model.config.vocabularySize
        for t in tokens where t < 0 || Int(t) >= vocabulary {
            throw .tokenOutOfRange(id: Int(t), vocabularySize: vocabulary)
        }
    }

    /// Makes the sequence hold exactly `tokens`, evaluating only what it does not already hold,
    /// and leaves the last token's prediction in `logits`.
    ///
    /// Positions come, in order of preference, from the sequence itself (the longest common
    /// prefix with the previous prompt), from the shared `prefixCache` when a stored prefix
    /// covers more of `tokens`, and from evaluation. The last token is always evaluated, since
    /// its logits are the answer.
    ///
    /// - Parameters:
    ///   - reusePrefix: false evaluates the whole prompt from an empty cache, consulting no
    ///     prefix cache (for cold timings).
    ///   - storePrefixLength: after evaluation, store the first that many positions in the
    ///     prefix cache (e.g. the rendered system prompt) for other sequences to reuse.
    ///   - cancellation: checked before each micro-batch; a raised flag throws `.cancelled` and
    ///     leaves the sequence holding what was evaluated so far.
    /// - Throws: `.contextLimitExceeded` before any compute when `tokens` cannot fit.
    @discardableResult
    public func prefill(_ tokens: [Int32], reusePrefix: Bool = true, storePrefixLength: Int? = nil,
                        cancellation: CancellationFlag? = nil) throws(EngineError) -> PrefillResult
    {
        try validatePrompt(tokens)
        let limit = tokens.count - 1
        var reused = reusePrefix ? min(sequence.commonPrefixLength(with: tokens), limit) : 0
        sequence.truncate(to: reused)
        current = UnsafeBufferPointer(start: nil, count: 0)
        var restored = 0
        if reusePrefix, let prefixCache {
            restored = prefixCache.restore(tokens, into: sequence, limit: limit, model: model)
            reused += restored
        }
        try tokens.withUnsafeBufferPointer { (all) throws(EngineError) in
            try evaluate(UnsafeBufferPointer(rebasing: all[reused...]), cancellation: cancellation)
        }
        if let storePrefixLength { storePrefix(count: min(storePrefixLength, tokens.count)) }
        return PrefillResult(cachedTokenCount: reused, evaluatedTokenCount: tokens.count - reused,
                             restoredTokenCount: restored)
    }

    /// Stores the sequence's first `count` positions in the shared prefix cache so that other
    /// engines' prompts starting with the same tokens skip them. Returns false without a prefix
    /// cache, or when the prefix does not fit its budget or the sequence.
    @discardableResult
    public func storePrefix(count: Int) -> Bool {
        guard let prefixCache else { return false }
        return prefixCache.store(sequence, count: count, model: model)
    }

    /// Generates up to `maxTokens` tokens after `prompt`, sampling inside the loop (no mask) and
    /// handing each token to `body` as soon as it is chosen; the same loop as `PipelinedEngine`
    /// runs, so both give the same tokens for the same inputs.
    ///
    /// A stop token ends generation without being emitted. Cancellation (before the prompt's
    /// next micro-batch or the next token) ends it with `.cancelled` rather than an error.
    /// - Throws: `.contextLimitExceeded` before any compute when the prompt cannot fit, and
    ///   other `EngineError`s from evaluation.
    @discardableResult
    public func generate(prompt: [Int32], sampling: SamplingParameters, stopTokens: Set<Int32> = [], maxTokens: Int,
                         reusePrefix: Bool = true, storePrefixLength: Int? = nil,
                         cancellation: CancellationFlag? = nil, body: (Int32) -> Void) throws(EngineError)
        -> GenerationOutcome
    {
        let loop = DecodeLoop(prompt: prompt, sampling: sampling, stopTokens: stopTokens, maxTokens: maxTokens,
                              reusePrefix: reusePrefix, storePrefixLength: storePrefixLength)
        try loop.validate(for: self)
        return try loop.run(on: self, cancellation: cancellation, prefilled: { _ in }, emit: { body($0); return true })
    }

    /// Appends `token` (normally the one just sampled), evaluates it and returns the next logits.
    /// Allocates nothing.
    public func step(_ token: Int32, cancellation: CancellationFlag? = nil) throws(EngineError)
        -> UnsafeBufferPointer<Float>
    {
        var t = token
        try withUnsafePointer(to: &t) { (p) throws(EngineError) in
            try evaluate(UnsafeBufferPointer(start: p, count: 1), cancellation: cancellation)
        }
        return current
    }

    /// Appends a run of known tokens (e.g. text a grammar forces) as one batch and returns the
    /// logits after the last of them.
    public func force(_ tokens: [Int32], cancellation: CancellationFlag? = nil) throws(EngineError)
        -> UnsafeBufferPointer<Float>
    {
        guard !tokens.isEmpty else { throw .emptyBatch }
        try tokens.withUnsafeBufferPointer { (p) throws(EngineError) in try evaluate(p, cancellation: cancellation) }
        return current
    }

    /// Forgets the last `n` tokens (e.g. to undo a speculative step). `logits` is stale afterwards
    /// until the next evaluation.
    public func rollback(_ n: Int) {
        sequence.truncate(to: sequence.count - n)
        current = UnsafeBufferPointer(start: nil, count: 0)
    }

    /// Evaluates `tokens` at the end of the sequence in micro-batches of `maxBatch`, checking
    /// `cancellation` before each.
    private func evaluate(_ tokens: UnsafeBufferPointer<Int32>, cancellation: CancellationFlag?) throws(EngineError) {
        guard sequence.count + tokens.count <= contextSize else {
            throw .contextFull(needed: sequence.count + tokens.count, capacity: contextSize)
        }
        let batch = transformer.configuration.maxBatch
        var at = 0
        while at < tokens.count {
            if let cancellation, cancellation.isCancelled { throw .cancelled }
            let end = min(at + batch, tokens.count)
            let slice = UnsafeBufferPointer(rebasing: tokens[at..<end])
            current = try transformer.forward(slice, cache: sequence.cache)
            sequence.recordEvaluated(slice)
            forwardPassCount += 1
            if let forwardPassObserver { forwardPassObserver(forwardPassCount) }
            at = end
        }
    }
}
