import LoomSupport

/// The hand-over between a caller-driven sequence (`SequenceSession`) and the scheduler's thread.
///
/// The scheduler writes a step's logits into `logits` and then raises `logitsReady` under the
/// lock; the caller reads them, and submits tokens (or a rollback, or closes) under the same
/// lock, which is the only moment the scheduler may write `logits` again. So the buffer is never
/// read and written at once.
final class CallerChannel: @unchecked Sendable {
    // @unchecked: `logits` is written only by the scheduler between a caller's submission and
    // `logitsReady`, and read only by the caller between `logitsReady` and its next submission;
    // both hand-overs go through `state`'s lock.

    /// What the two sides tell each other.
    struct State {
        /// Tokens the caller asks to append (evaluated at the next steps).
        var inbox: [Int32] = []
        /// Positions the caller asks to forget before appending.
        var rollback = 0
        /// The scheduler wrote logits the caller has not consumed.
        var logitsReady = false
        /// The sequence ended (cancelled, deadline, failure); no more logits will come.
        var ended: EngineError?
        /// The caller let go of the sequence.
        var closed = false
        /// The prompt evaluation, once known.
        var prefill: PrefillResult?
        /// Rows of logits the caller wants after the inbox is evaluated: the last `logitRows`
        /// tokens' predictions (more than one to verify a speculated run in one step).
        var logitRows = 1
        /// Rows the scheduler wrote into `logits` for the last step.
        var deliveredRows = 1
    }

    let state = Locked(State())
    /// The logits of the last step's rows (`deliveredRows × vocabularySize` floats).
    private(set) var logits: UnsafeMutablePointer<Float>
    /// Rows `logits` can hold.
    private(set) var rowCapacity = 1
    let vocabularySize: Int

    init(vocabularySize: Int) {
        self.vocabularySize = vocabularySize
        logits = .allocate(capacity: vocabularySize)
        logits.initialize(repeating: 0, count: vocabularySize)
    }

    deinit { logits.deallocate() }

    /// Makes room for `rows` rows of logits. Called by the caller before it submits a run that
    /// asks for them: between a delivery and a submission the buffer is the caller's, so the
    /// scheduler never sees it move.
    func reserveRows(_ rows: Int) {
        guard rows > rowCapacity else { return }
        let grown = UnsafeMutablePointer<Float>.allocate(capacity: rows * vocabularySize)
        grown.initialize(repeating: 0, count: rows * vocabularySize)
        logits.deallocate()
        logits = grown
        rowCapacity = rows
    }
}
