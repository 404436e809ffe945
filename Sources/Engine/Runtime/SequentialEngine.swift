import LoomSupport

/// The engine that hands logits to its caller: `prefill` a prompt, then `step` one token at a time,
/// each step returning the next token's logits as a borrowed buffer.
///
/// The caller chooses tokens (through `Sampler`, after applying a grammar mask when it has one),
/// which is what guided generation needs. Known runs of tokens (text a grammar forces) go through
/// `force`, evaluated as one segment of a step. The engine holds one sequence of a `Scheduler`:
/// engines made from one scheduler share its forward passes and its KV pool, so a prompt that
/// starts like one evaluated before (by this engine or another) reuses those keys and values.
/// Not thread-safe: one call at a time, from an ordinary thread (calls block until the
/// scheduler has run the step).
public final class SequentialEngine {
    /// Deprecated name of `PrefillResult`.
    @available(*, deprecated, renamed: "PrefillResult")
    public typealias PrefillResult = Engine.PrefillResult

    /// The scheduler whose steps this engine's sequence joins.
    public let scheduler: Scheduler
    private var session: SequenceSession?
    private var current = UnsafeBufferPointer<Float>(start: nil, count: 0)
    /// The tokens of the engine's sequence: the last prompt, then stepped and forced tokens (kept
    /// after `release()`, as a record of what the engine last ran).
    public private(set) var tokens: [Int32] = []

    /// An engine with a scheduler of its own for `model` (one sequence per step, prompts in
    /// chunks of `configuration.maxBatch`).
    public init(model: Model, configuration: TransformerConfiguration = TransformerConfiguration()) throws(EngineError) {
        scheduler = try Scheduler(model: model, configuration: configuration,
                                  policy: SchedulerPolicy(maxSequences: 1, prefillChunk: configuration.maxBatch,
                                                          maxPrefillTokensPerStep: configuration.maxBatch))
    }

    /// An engine whose sequence runs in `scheduler`'s shared steps.
    public init(scheduler: Scheduler) {
        self.scheduler = scheduler
    }

    deinit { session?.close() }

    /// The model being run.
    public var model: Model { scheduler.model }

    /// Positions the sequence can hold.
    public var contextSize: Int { scheduler.contextSize }

    /// The next token's logits after the last `prefill`, `step` or `force` (borrowed: valid until
    /// the next call on this engine; empty before the first).
    public var logits: UnsafeBufferPointer<Float> { current }

    /// How many leading tokens of `other` this engine's sequence holds.
    public func commonPrefixLength(with other: [Int32]) -> Int {
        let n = min(tokens.count, other.count)
        var i = 0
        while i < n && tokens[i] == other[i] { i += 1 }
        return i
    }

    /// The checks `prefill` makes before any compute.
    func validatePrompt(_ tokens: [Int32]) throws(EngineError) {
        try scheduler.core.validate(tokens)
    }

    /// Makes the sequence hold exactly `tokens` and leaves the last token's prediction in
    /// `logits`, evaluating only what the scheduler's KV pool does not already hold (the last
    /// token is always evaluated, since its logits are the answer).
    ///
    /// - Parameters:
    ///   - reusePrefix: false evaluates the whole prompt, reusing no cached blocks (cold timings).
    ///   - cancellation: checked at every step; a raised flag throws `.cancelled`.
    /// - Throws: `.contextLimitExceeded` before any compute when `tokens` cannot fit.
    @discardableResult
    public func prefill(_ tokens: [Int32], reusePrefix: Bool = true, cancellation: CancellationFlag? = nil)
        throws(EngineError) -> Engine.PrefillResult
    {
        try validatePrompt(tokens)
        session?.close()
        session = nil
        self.tokens = []
        current = UnsafeBufferPointer(start: nil, count: 0)
        if let cancellation, cancellation.isCancelled { throw .cancelled }
        let opened = try scheduler.open(prompt: tokens, cancellation: cancellation ?? CancellationFlag(),
                                        reusePrefix: reusePrefix)
        session = opened
        current = try opened.logits()
        self.tokens = tokens
        return opened.prefill
    }

    /// Generates up to `maxTokens` tokens after `prompt`, sampling inside the scheduler (no mask),
    /// and hands each token to `body` as soon as it is chosen: the same loop `PipelinedEngine`
    /// streams from, so both give the same tokens for the same inputs.
    ///
    /// A stop token ends generation without being emitted. Cancellation ends it with
    /// `.cancelled` rather than an error.
    /// - Throws: `.contextLimitExceeded` before any compute when the prompt cannot fit, and
    ///   other `EngineError`s from evaluation.
    @discardableResult
    public func generate(prompt: [Int32], sampling: SamplingParameters, stopTokens: Set<Int32> = [], maxTokens: Int,
                         reusePrefix: Bool = true, cancellation: CancellationFlag? = nil,
                         body: (Int32) -> Void) throws(EngineError) -> GenerationOutcome {
        try validatePrompt(prompt)
        session?.close()
        session = nil
        tokens = []
        current = UnsafeBufferPointer(start: nil, count: 0)
        let stream = try scheduler.generate(prompt: prompt, sampling: sampling, stopTokens: stopTokens,
                                            maxTokens: maxTokens, cancellation: cancellation ?? CancellationFlag(),
                                            reusePrefix: reusePrefix)
        var count = 0
        while true {
            switch stream.ring.nextBlocking() {
            case .token(let t):
                body(t)
                count += 1
            case .end:
                return GenerationOutcome(prefill: stream.prefill, tokenCount: count,
                                         finishReason: stream.finishReason ?? .cancelled)
            case .failure(let error):
                throw error
            }
        }
    }

    /// Appends `token` (normally the one just sampled), evaluates it and returns the next logits.
    public func step(_ token: Int32, cancellation: CancellationFlag? = nil) throws(EngineError)
        -> UnsafeBufferPointer<Float>
    {
        let session = try open(cancellation)
        guard tokens.count < contextSize else { throw .contextFull(needed: tokens.count + 1, capacity: contextSize) }
        current = UnsafeBufferPointer(start: nil, count: 0)
        current = try session.step(token)
        tokens.append(token)
        return current
    }

    /// Appends a run of known tokens (e.g. text a grammar forces) as one segment and returns the
    /// logits after the last of them.
    public func force(_ run: [Int32], cancellation: CancellationFlag? = nil) throws(EngineError)
        -> UnsafeBufferPointer<Float>
    {
        try append(run, cancellation) { session throws(EngineError) in try session.force(run) }
    }

    /// Whether the scheduler runs few enough sequences for speculation to pay
    /// (`SchedulerPolicy.speculationMaxSequences`): read before proposing a run.
    public var speculationWelcome: Bool {
        scheduler.statistics.running <= scheduler.core.policy.speculationMaxSequences
    }

    /// The longest run `verify` takes (one step's share of a sequence).
    public var maxVerifiedRun: Int { scheduler.core.policy.prefillChunk }

    /// Appends a run (the token just chosen, then tokens proposed after it) as one segment and
    /// returns the logits after each of its tokens: `run.count` rows of `vocabularySize`
    /// floats, row `i` equal to what `step` would return after `run[0...i]`. `logits` is the
    /// last row afterwards. Undo proposals that were not accepted with `rollback`.
    /// - Throws: `.batchTooLarge` for a run longer than `maxVerifiedRun`, `.contextFull` when
    ///   the run does not fit.
    public func verify(_ run: [Int32], cancellation: CancellationFlag? = nil) throws(EngineError)
        -> UnsafeBufferPointer<Float>
    {
        try append(run, cancellation) { session throws(EngineError) in try session.verify(run) }
    }

    /// Evaluates `run` after the sequence through `evaluate` and records it; `logits` becomes
    /// the last row of what `evaluate` returns (one row, or one per token).
    private func append(_ run: [Int32], _ cancellation: CancellationFlag?,
                        _ evaluate: (SequenceSession) throws(EngineError) -> UnsafeBufferPointer<Float>)
        throws(EngineError) -> UnsafeBufferPointer<Float>
    {
        guard !run.isEmpty else { throw .emptyBatch }
        let session = try open(cancellation)
        guard tokens.count + run.count <= contextSize else {
            throw .contextFull(needed: tokens.count + run.count, capacity: contextSize)
        }
        current = UnsafeBufferPointer(start: nil, count: 0)
        let rows = try evaluate(session)
        tokens.append(contentsOf: run)
        let vocabulary = model.config.vocabularySize
        current = UnsafeBufferPointer(rebasing: rows[rows.count - vocabulary..<rows.count])
        return rows
    }

    /// Forgets the last `n` tokens (e.g. to undo a speculative step). `logits` is stale afterwards
    /// until the next evaluation.
    public func rollback(_ n: Int) {
        precondition(n >= 0 && n <= tokens.count, "rollback(\(n)) beyond \(tokens.count) tokens")
        try? session?.rollback(n)
        tokens.removeLast(n)
        current = UnsafeBufferPointer(start: nil, count: 0)
    }

    /// Lets go of the sequence: its place in the scheduler and its blocks are released (the
    /// blocks stay cached for later prompts); `tokens` keeps what it held.
    public func release() {
        session?.close()
        session = nil
        current = UnsafeBufferPointer(start: nil, count: 0)
    }

    /// Lets go of the sequence and forgets its tokens.
    public func reset() {
        session?.close()
        session = nil
        tokens = []
        current = UnsafeBufferPointer(start: nil, count: 0)
    }

    /// The open session, after checking the caller's flag.
    private func open(_ cancellation: CancellationFlag?) throws(EngineError) -> SequenceSession {
        if let cancellation, cancellation.isCancelled { throw .cancelled }
        guard let session else { throw .emptyBatch }
        return session
    }
}
