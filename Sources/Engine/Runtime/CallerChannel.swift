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
    }

    let state = Locked(State())
    /// The next token's logits (`vocabularySize` floats).
    let logits: UnsafeMutablePointer<Float>
    let vocabularySize: Int

    init(vocabularySize: Int) {
        self.vocabularySize = vocabularySize
        logits = .allocate(capacity: vocabularySize)
        logits.initialize(repeating: 0, count: vocabularySize)
    }

    deinit { logits.deallocate() }
}
