/// One caller-driven sequence of a `Scheduler`: the sequential engine variant. The caller reads
/// the logits after the prompt and after each token it submits, and chooses tokens itself (for
/// example under a grammar mask), while the scheduler evaluates its rows in the same forward
/// passes as every other sequence.
///
/// Calls block their thread until the scheduler has run the step: use it from a dedicated
/// thread, never from a Swift concurrency thread. One call at a time. Closing (or releasing)
/// the session frees its KV blocks at the next step; blocks holding its tokens stay cached for
/// later prompts that start the same way.
public final class SequenceSession: @unchecked Sendable {
    // @unchecked: the channel's buffer is handed over through its lock (see CallerChannel); the
    // session itself is used by one caller at a time, as documented.
    private let channel: CallerChannel
    private let core: SchedulerCore
    private var closed = false

    init(channel: CallerChannel, core: SchedulerCore) {
        self.channel = channel
        self.core = core
    }

    deinit { close() }

    /// What the prompt evaluation reused and computed (after the first `logits()`).
    public var prefill: PrefillResult {
        channel.state.withLock { $0.prefill ?? PrefillResult(cachedTokenCount: 0, evaluatedTokenCount: 0) }
    }

    /// Waits for the logits after everything submitted so far (the prompt at first), borrowed
    /// until the next call on this session.
    /// - Throws: `.cancelled`, `.deadlineExceeded`, or the failure that ended the sequence.
    public func logits() throws(EngineError) -> UnsafeBufferPointer<Float> {
        let (ended, rows): (EngineError?, Int) = channel.state.wait(until: { $0.logitsReady || $0.ended != nil }) {
            state, _ in
            (state.logitsReady ? nil : state.ended, state.deliveredRows)
        }
        if let ended { throw ended }
        return UnsafeBufferPointer(start: channel.logits, count: rows * channel.vocabularySize)
    }

    /// The longest run `verify` accepts: a run is evaluated in one step, within one prompt chunk.
    public var maxVerifiedRun: Int { core.policy.prefillChunk }

    /// Appends a run of tokens (the token just chosen, then tokens proposed after it) and returns
    /// the logits after each of them: `tokens.count` rows of `vocabularySize` floats, row `i`
    /// predicting the token after `tokens[0...i]`. The run is one fused segment of a step, so
    /// every row equals what `step` would return after the same tokens; a caller that accepts
    /// only a prefix of the proposals rolls the rest back.
    /// - Throws: `.batchTooLarge` for a run longer than `maxVerifiedRun`.
    public func verify(_ tokens: [Int32]) throws(EngineError) -> UnsafeBufferPointer<Float> {
        guard !tokens.isEmpty else { throw .emptyBatch }
        guard tokens.count <= maxVerifiedRun else { throw .batchTooLarge(count: tokens.count, maximum: maxVerifiedRun) }
        channel.reserveRows(tokens.count)
        try submit(tokens, rollback: 0, logitRows: tokens.count)
        return try logits()
    }

    /// Appends `token` (normally the one just chosen) and returns the next logits.
    public func step(_ token: Int32) throws(EngineError) -> UnsafeBufferPointer<Float> {
        try submit(CollectionOfOne(token), rollback: 0)
        return try logits()
    }

    /// Appends a run of known tokens (text a grammar forces) and returns the logits after the
    /// last: the run is evaluated as one segment of a step.
    public func force(_ tokens: [Int32]) throws(EngineError) -> UnsafeBufferPointer<Float> {
        guard !tokens.isEmpty else { throw .emptyBatch }
        try submit(tokens, rollback: 0)
        return try logits()
    }

    /// Forgets the last `n` tokens and appends `tokens`, then returns the next logits (a
    /// rejected speculation's undo, followed by the accepted token).
    public func rollback(_ n: Int, thenAppend tokens: [Int32]) throws(EngineError) -> UnsafeBufferPointer<Float> {
        guard n >= 0 else { throw .invalidConfiguration("rollback of \(n) positions") }
        guard !tokens.isEmpty else { throw .emptyBatch }
        try submit(tokens, rollback: n)
        return try logits()
    }

    /// Forgets the last `n` tokens; the next `step` or `force` appends after what remains.
    /// `logits()` is stale until then.
    public func rollback(_ n: Int) throws(EngineError) {
        guard n >= 0 else { throw .invalidConfiguration("rollback of \(n) positions") }
        let ended: EngineError? = channel.state.withLock { state in
            if let ended = state.ended { return ended }
            state.logitsReady = false
            state.rollback += n
            return nil
        }
        if let ended { throw ended }
    }

    /// Ends the sequence; its blocks are released at the next step. Idempotent.
    public func close() {
        guard !closed else { return }
        closed = true
        channel.state.withLock { $0.closed = true }
        core.poke()
    }

    private func submit<C: Collection>(_ tokens: C, rollback: Int, logitRows: Int = 1) throws(EngineError)
        where C.Element == Int32
    {
        let vocabulary = channel.vocabularySize
        for t in tokens where t < 0 || Int(t) >= vocabulary {
            throw .tokenOutOfRange(id: Int(t), vocabularySize: vocabulary)
        }
        let ended: EngineError? = channel.state.withLock { state in
            if let ended = state.ended { return ended }
            state.logitsReady = false
            state.rollback += rollback
            state.inbox.append(contentsOf: tokens)
            state.logitRows = logitRows
            return nil
        }
        if let ended { throw ended }
        core.poke()
    }
}
