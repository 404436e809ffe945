#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import LoomSupport

/// The bounded hand-off between a `PipelinedEngine`'s producer thread and the async consumer of
/// its `PipelinedStream`: a ring of token ids plus the end of the generation.
///
/// The producer blocks (on a condition variable, re-checking cancellation every millisecond)
/// when the ring is full, so a slow consumer holds back decoding by at most `capacity` tokens;
/// the consumer suspends (a continuation the producer resumes) when it is empty.
final class TokenRing: @unchecked Sendable {
    /// What the consumer receives next.
    enum Event: Sendable {
        case token(Int32)
        case end
        case failure(EngineError)
    }

    let capacity: Int
    private let buffer: UnsafeMutablePointer<Int32>
    private let mutex: UnsafeMutablePointer<pthread_mutex_t>
    private let notFull: UnsafeMutablePointer<pthread_cond_t>
    private let producerDone: UnsafeMutablePointer<pthread_cond_t>
    private let notEmpty: UnsafeMutablePointer<pthread_cond_t>
    // Guarded by `mutex`.
    private var head = 0, count = 0
    private var ended = false, failure: EngineError?
    private var abandoned = false, producerRunning = true
    private var wantsRoom = false
    private var waiter: UnsafeContinuation<Event, Never>?
    private var prefillResult = PrefillResult(cachedTokenCount: 0, evaluatedTokenCount: 0)
    private var reason: FinishReason?

    init(capacity: Int) {
        self.capacity = max(capacity, 1)
        buffer = .allocate(capacity: self.capacity)
        mutex = .allocate(capacity: 1)
        notFull = .allocate(capacity: 1)
        producerDone = .allocate(capacity: 1)
        notEmpty = .allocate(capacity: 1)
        pthread_cond_init(notEmpty, nil)
        pthread_mutex_init(mutex, nil)
        pthread_cond_init(notFull, nil)
        pthread_cond_init(producerDone, nil)
    }

    deinit {
        pthread_cond_destroy(producerDone)
        pthread_cond_destroy(notEmpty)
        notEmpty.deallocate()
        pthread_cond_destroy(notFull)
        pthread_mutex_destroy(mutex)
        producerDone.deallocate()
        notFull.deallocate()
        mutex.deallocate()
        buffer.deallocate()
    }

    private func locked<T>(_ body: () -> T) -> T {
        pthread_mutex_lock(mutex)
        defer { pthread_mutex_unlock(mutex) }
        return body()
    }

    // MARK: producer side

    /// Whether the consumer went away (the stream was released or its task cancelled).
    var isAbandoned: Bool { locked { abandoned } }

    /// Publishes the prompt evaluation's result.
    func setPrefill(_ result: PrefillResult) { locked { prefillResult = result } }

    /// Appends a token, waiting while the ring is full. Returns false (dropping the token) when
    /// the consumer is gone or `cancellation` was raised while waiting.
    func push(_ token: Int32, cancellation: CancellationFlag?) -> Bool {
        pthread_mutex_lock(mutex)
        while count == capacity && !abandoned {
            if let cancellation, cancellation.isCancelled { break }
            var deadline = timespec()
            clock_gettime(CLOCK_REALTIME, &deadline)
            deadline.tv_nsec += 1_000_000
            if deadline.tv_nsec >= 1_000_000_000 { deadline.tv_sec += 1; deadline.tv_nsec -= 1_000_000_000 }
            pthread_cond_timedwait(notFull, mutex, &deadline)
        }
        guard !abandoned, count < capacity else {
            pthread_mutex_unlock(mutex)
            return false
        }
        let resumed = waiter
        if resumed != nil {
            // The consumer is parked on an empty ring: hand the token over directly.
            waiter = nil
        } else {
            buffer[(head + count) % capacity] = token
            count += 1
        }
        pthread_mutex_unlock(mutex)
        resumed?.resume(returning: .token(token))
        return true
    }

    /// Ends the stream (after the tokens already pushed) and releases anyone waiting for the
    /// producer.
    /// Hands `token` to the consumer without waiting: true when it was taken or buffered, false
    /// when the ring is full (the scheduler leaves the sequence out of its steps until
    /// `onRoom` fires), nil when the consumer is gone.
    func offer(_ token: Int32) -> Bool? {
        pthread_mutex_lock(mutex)
        if abandoned {
            pthread_mutex_unlock(mutex)
            return nil
        }
        if count == capacity {
            wantsRoom = true
            pthread_mutex_unlock(mutex)
            return false
        }
        let resumed = waiter
        if resumed != nil {
            waiter = nil
        } else {
            buffer[(head + count) % capacity] = token
            count += 1
            pthread_cond_signal(notEmpty)
        }
        pthread_mutex_unlock(mutex)
        resumed?.resume(returning: .token(token))
        return true
    }

    /// The next event for a consumer on an ordinary thread (not a Swift concurrency thread): blocks
    /// until a token or the end arrives.
    func nextBlocking() -> Event {
        pthread_mutex_lock(mutex)
        while count == 0 && !ended { pthread_cond_wait(notEmpty, mutex) }
        let event = takeLocked()!
        let notify = roomNotificationLocked()
        pthread_mutex_unlock(mutex)
        notify?()
        return event
    }

    /// Whether a token offered now would be taken (room, or the consumer is gone).
    var hasRoom: Bool { locked { count < capacity || abandoned } }

    /// Called (outside the ring's lock, on the consumer's thread) when a consumer frees room in
    /// a ring that refused an `offer`, or abandons it: the scheduler's wake-up.
    private var roomHandler: (@Sendable () -> Void)?

    /// Sets the handler `offer`'s refusals are answered with (before tokens flow).
    func setRoomHandler(_ handler: @escaping @Sendable () -> Void) { locked { roomHandler = handler } }

    /// Takes `wantsRoom` (under the lock): the handler to call once the lock is released.
    private func roomNotificationLocked() -> (@Sendable () -> Void)? {
        guard wantsRoom else { return nil }
        wantsRoom = false
        return roomHandler
    }

    func finish(_ finishReason: FinishReason?, error: EngineError?) {
        pthread_mutex_lock(mutex)
        reason = finishReason
        failure = error
        ended = true
        producerRunning = false
        pthread_cond_broadcast(notEmpty)
        let resumed = waiter
        waiter = nil
        pthread_cond_broadcast(producerDone)
        pthread_mutex_unlock(mutex)
        resumed?.resume(returning: error.map { .failure($0) } ?? .end)
    }

    // MARK: consumer side

    /// The prompt evaluation's result (zeros until the producer published it).
    var prefill: PrefillResult { locked { prefillResult } }

    /// Why the generation ended (nil while it runs or when it failed).
    var finishReason: FinishReason? { locked { reason } }

    /// Stops the producer at its next token and lets it drop what it has.
    func abandon() {
        let notify = locked { () -> (@Sendable () -> Void)? in
            abandoned = true
            pthread_cond_broadcast(notFull)
            return roomHandler
        }
        notify?()
    }

    /// Blocks until the producer thread has finished.
    func waitForProducer() {
        pthread_mutex_lock(mutex)
        while producerRunning { pthread_cond_wait(producerDone, mutex) }
        pthread_mutex_unlock(mutex)
    }

    /// The next event, suspending while the ring is empty and the producer still runs.
    func next() async -> Event {
        if let ready = take() { return ready }
        return await withUnsafeContinuation { (c: UnsafeContinuation<Event, Never>) in
            pthread_mutex_lock(mutex)
            if let ready = takeLocked() {
                let notify = roomNotificationLocked()
                pthread_mutex_unlock(mutex)
                notify?()
                c.resume(returning: ready)
            } else {
                waiter = c
                pthread_mutex_unlock(mutex)
            }
        }
    }

    private func take() -> Event? {
        let (event, notify) = locked { () -> (Event?, (@Sendable () -> Void)?) in
            let e = takeLocked()
            return (e, e != nil ? roomNotificationLocked() : nil)
        }
        notify?()
        return event
    }

    /// A buffered token, or the end once the buffer is drained; nil when the consumer must wait.
    private func takeLocked() -> Event? {
        if count > 0 {
            let t = buffer[head]
            head = (head + 1) % capacity
            count -= 1
            pthread_cond_signal(notFull)
            return .token(t)
        }
        guard ended else { return nil }
        if let failure { return .failure(failure) }
        return .end
    }
}
