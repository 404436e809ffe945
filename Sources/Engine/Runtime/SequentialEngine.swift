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
        /// Leading prompt tokens whose keys and values were reused from the previous prompt.
        public var cachedTokenCount: Int
        /// Prompt tokens evaluated now.
        public var evaluatedTokenCount: Int
    }

    private var current = UnsafeBufferPointer<Float>(start: nil, count: 0)

    /// An engine for `model` with a fresh cache of `configuration.contextLength` positions.
    public init(model: Model, configuration: TransformerConfiguration = TransformerConfiguration()) throws(EngineError) {
        transformer = try Transformer(model: model, configuration: configuration)
        sequence = InferenceSequence(cache: try transformer.makeCache())
    }

    /// The model being run.
    public var model: Model { transformer.model }

    /// Positions the cache can hold.
    public var contextSize: Int { sequence.capacity }

    /// The next token's logits after the last `prefill`, `step` or `force` (borrowed: valid until
    /// the next call on this engine; empty before the first).
    public var logits: UnsafeBufferPointer<Float> { current }

    /// Makes the sequence hold exactly `tokens`, evaluating only what it does not already hold,
    /// and leaves the last token's prediction in `logits`.
    ///
    /// - Parameters:
    ///   - reusePrefix: false evaluates the whole prompt from an empty cache (for cold timings).
    ///   - cancellation: checked before each micro-batch; a raised flag throws `.cancelled` and
    ///     leaves the sequence holding what was evaluated so far.
    /// - Throws: `.contextLimitExceeded` before any compute when `tokens` cannot fit.
    @discardableResult
    public func prefill(_ tokens: [Int32], reusePrefix: Bool = true, cancellation: CancellationFlag? = nil)
        throws(EngineError) -> PrefillResult
    {
        guard !tokens.isEmpty else { throw .emptyBatch }
        guard tokens.count <= contextSize else {
            throw .contextLimitExceeded(contextSize: contextSize, tokenCount: tokens.count)
        }
        let vocabulary = model.config.vocabularySize
        for t in tokens where t < 0 || Int(t) >= vocabulary {
            throw .tokenOutOfRange(id: Int(t), vocabularySize: vocabulary)
        }
        // The last prompt token is always evaluated, even when cached, because its logits are
        // the answer to prefill.
        let reused = reusePrefix ? min(sequence.commonPrefixLength(with: tokens), tokens.count - 1) : 0
        sequence.truncate(to: reused)
        try tokens.withUnsafeBufferPointer { (all) throws(EngineError) in
            try evaluate(UnsafeBufferPointer(rebasing: all[reused...]), cancellation: cancellation)
        }
        return PrefillResult(cachedTokenCount: reused, evaluatedTokenCount: tokens.count - reused)
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
            at = end
        }
    }
}
