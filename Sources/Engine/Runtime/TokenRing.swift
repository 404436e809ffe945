import LoomSupport

/// The bounded hand-off between the scheduler (which samples a pipelined sequence's tokens) and
/// the consumer of its `PipelinedStream`: a ring of token ids plus the end of the generation.
///
/// The scheduler never waits on a ring: `offer` refuses a token when the ring is full, the
/// scheduler leaves that sequence out of its steps, and the consumer's next read calls the room
/// handler, which wakes the scheduler. So a slow consumer holds back only its own sequence, by
/// at most `capacity` tokens. An async consumer suspends (a continuation `offer` resumes) when the
/// ring is empty; a thread consumer blocks in `nextBlocking`.
final class TokenRing: @unchecked Sendable {
    // @unchecked: `buffer` is read and written only under `state`'s lock.

    /// What the consumer receives next.
    enum Event: Sendable {
        case token(Int32)
        case end
        case failure(EngineError)
    }

    private struct State {
        var head = 0, count = 0
        var ended = false
        var failure: EngineError?
        var reason: FinishReason?
        var abandoned = false
        var producerRunning = true
        /// An `offer` was refused: the next read calls the room handler.
        var wantsRoom = false
        var waiter: UnsafeContinuation<Event, Never>?
        var prefill = PrefillResult(cachedTokenCount: 0, evaluatedTokenCount: 0)
        var speculation = (proposed: 0, accepted: 0, runs: 0)
        var roomHandler: (@Sendable () -> Void)?
    }

    let capacity: Int
    private let buffer: UnsafeMutablePointer<Int32>
    private let state = Locked(State())

    init(capacity: Int) {
        self.capacity = max(capacity, 1)
        buffer = .allocate(capacity: self.capacity)
    }

    deinit { buffer.deallocate() }

    /// Records the prompt evaluation (before the first token).
    func setPrefill(_ result: PrefillResult) { state.withLock { $0.prefill = result } }

    /// Sets the handler `offer`'s refusals are answered with (before tokens flow).
    func setRoomHandler(_ handler: @escaping @Sendable () -> Void) { state.withLock { $0.roomHandler = handler } }

    /// Hands `token` to the consumer without waiting: true when it was taken or buffered, false
    /// when the ring is full (the room handler fires once the consumer reads), nil when the
    /// consumer is gone.
    func offer(_ token: Int32) -> Bool? {
        // Signalling: a thread consumer may be waiting in `nextBlocking`.
        let (accepted, resumed) = state.withLockSignalling { s -> (Bool?, UnsafeContinuation<Event, Never>?) in
            if s.abandoned { return (nil, nil) }
            if s.count == capacity {
                s.wantsRoom = true
                return (false, nil)
            }
            if let waiter = s.waiter {
                // The consumer is parked on an empty ring: hand the token over directly.
                s.waiter = nil
                return (true, waiter)
            }
            buffer[(s.head + s.count) % capacity] = token
            s.count += 1
            return (true, nil)
        }
        resumed?.resume(returning: .token(token))
        return accepted
    }

    /// Ends the stream (after the tokens already offered) and releases anyone waiting for the
    /// producer.
    func finish(_ finishReason: FinishReason?, error: EngineError?) {
        let resumed = state.withLockSignalling { s -> UnsafeContinuation<Event, Never>? in
            s.reason = finishReason
            s.failure = error
            s.ended = true
            s.producerRunning = false
            defer { s.waiter = nil }
            return s.waiter
        }
        resumed?.resume(returning: error.map { .failure($0) } ?? .end)
    }

    /// Records the speculation totals (before `finish`).
    func setSpeculation(proposed: Int, accepted: Int, runs: Int) {
        state.withLock { $0.speculation = (proposed, accepted, runs) }
    }

    /// Speculation totals, once the stream ended.
    var speculation: (proposed: Int, accepted: Int, runs: Int) { state.withLock { $0.speculation } }

    /// The prompt evaluation, once the scheduler reported it.
    var prefill: PrefillResult { state.withLock { $0.prefill } }

    /// Why generation stopped, once it has.
    var finishReason: FinishReason? { state.withLock { $0.reason } }

    /// The consumer is gone: refuse further tokens and wake the scheduler to end the sequence.
    func abandon() {
        let handler = state.withLockSignalling { s -> (@Sendable () -> Void)? in
            s.abandoned = true
            return s.roomHandler
        }
        handler?()
    }

    /// Blocks until the scheduler has ended the sequence.
    func waitForProducer() {
        state.wait(until: { !$0.producerRunning }) { _, _ in }
    }

    /// The next event for a consumer on an ordinary thread (not a Swift concurrency thread):
    /// blocks until a token or the end arrives.
    func nextBlocking() -> Event {
        let (event, notify) = state.wait(until: { $0.count > 0 || $0.ended }) { s, _ in
            (take(&s)!, roomNotification(&s))
        }
        notify?()
        return event
    }

    /// The next event, suspending while the ring is empty and not ended.
    func next() async -> Event {
        let (ready, notify) = state.withLock { s in
            let event = take(&s)
            return (event, event != nil ? roomNotification(&s) : nil)
        }
        notify?()
        if let ready { return ready }
        return await withUnsafeContinuation { (c: UnsafeContinuation<Event, Never>) in
            let (event, notify) = state.withLock { s -> (Event?, (@Sendable () -> Void)?) in
                if let event = take(&s) { return (event, roomNotification(&s)) }
                s.waiter = c
                return (nil, nil)
            }
            notify?()
            if let event { c.resume(returning: event) }
        }
    }

    /// The next buffered token, or the end once everything was read (under the lock).
    private func take(_ s: inout State) -> Event? {
        if s.count > 0 {
            let t = buffer[s.head]
            s.head = (s.head + 1) % capacity
            s.count -= 1
            return .token(t)
        }
        guard s.ended else { return nil }
        if let failure = s.failure { return .failure(failure) }
        return .end
    }

    /// The room handler to call once the lock is released, when an `offer` was refused.
    private func roomNotification(_ s: inout State) -> (@Sendable () -> Void)? {
        guard s.wantsRoom else { return nil }
        s.wantsRoom = false
        return s.roomHandler
    }
}
