#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A value that threads share, guarded by a POSIX mutex: Loom's lock for state touched from more
/// than one thread (registries, pools, caches, hand-overs from worker threads).
///
/// Why not `Synchronization.Mutex`: on Linux its uncontended path is inlined atomics, but a
/// contended lock parks and wakes in the kernel (a futex) from inside the uninstrumented
/// Synchronization library. ThreadSanitizer then sees no order between the unlock and the lock
/// that waited for it, and reports the very data the lock protects as raced.
/// `pthread_mutex_lock`/`unlock` are intercepted by ThreadSanitizer, so every hand-over through
/// this lock is visible to it, and the sanitizer runs can vouch for Loom's locking instead of
/// suppressing it. Uncontended, glibc's mutex is one compare-and-swap each way, as `Mutex` is;
/// nothing on a per-token path takes a lock.
///
/// Usage mirrors `Mutex`: `let state = Locked(State())`, `state.withLock { $0.count += 1 }`.
public final class Locked<Value>: @unchecked Sendable {
    // @unchecked: `value` is only read or written between `pthread_mutex_lock` and
    // `pthread_mutex_unlock` on `mutex`, and it enters and leaves as `sending` (as with `Mutex`).
    private let mutex: UnsafeMutablePointer<pthread_mutex_t>
    private let condition: UnsafeMutablePointer<pthread_cond_t>
    private var value: Value

    /// A lock guarding `initialValue`.
    public init(_ initialValue: consuming sending Value) {
        // Heap-allocated: a pthread mutex must not move, and a class's stored properties may.
        mutex = .allocate(capacity: 1)
        mutex.initialize(to: pthread_mutex_t())
        let status = pthread_mutex_init(mutex, nil)
        precondition(status == 0, "pthread_mutex_init failed: \(status)")
        condition = .allocate(capacity: 1)
        condition.initialize(to: pthread_cond_t())
        var attributes = pthread_condattr_t()
        pthread_condattr_init(&attributes)
        #if os(Linux)
        pthread_condattr_setclock(&attributes, CLOCK_MONOTONIC)
        #endif
        pthread_cond_init(condition, &attributes)
        pthread_condattr_destroy(&attributes)
        value = initialValue
    }

    deinit {
        pthread_cond_destroy(condition)
        condition.deinitialize(count: 1)
        condition.deallocate()
        pthread_mutex_destroy(mutex)
        mutex.deinitialize(count: 1)
        mutex.deallocate()
    }

    /// Runs `body` with exclusive access to the value and returns its result. Not reentrant:
    /// calling `withLock` on the same lock from inside `body` deadlocks.
    public func withLock<Result, E: Error>(_ body: (inout sending Value) throws(E) -> sending Result) throws(E) -> sending Result {
        pthread_mutex_lock(mutex)
        defer { pthread_mutex_unlock(mutex) }
        return try body(&value)
    }

    /// Runs `body` with exclusive access to the value, then wakes every thread waiting in
    /// `wait(until:timeoutNanoseconds:_:)` so it re-checks its condition.
    public func withLockSignalling<Result, E: Error>(_ body: (inout sending Value) throws(E) -> sending Result) throws(E) -> sending Result {
        pthread_mutex_lock(mutex)
        defer {
            pthread_cond_broadcast(condition)
            pthread_mutex_unlock(mutex)
        }
        return try body(&value)
    }

    /// Blocks the calling thread until `condition` holds for the value (checked under the lock,
    /// again after every `withLockSignalling`), then runs `body` under the same hold of the lock.
    /// With a timeout, gives up after that many nanoseconds and runs `body` anyway; `body`'s
    /// second argument says whether the condition held. Never call it from a Swift concurrency
    /// thread: it blocks its thread.
    public func wait<Result>(until condition: (inout sending Value) -> Bool, timeoutNanoseconds: UInt64? = nil,
                             _ body: (inout sending Value, Bool) -> sending Result) -> sending Result {
        pthread_mutex_lock(mutex)
        defer { pthread_mutex_unlock(mutex) }
        var deadline = timespec()
        if let timeoutNanoseconds {
            #if os(Linux)
            clock_gettime(CLOCK_MONOTONIC, &deadline)
            #else
            clock_gettime(CLOCK_REALTIME, &deadline)
            #endif
            let total = UInt64(deadline.tv_nsec) + timeoutNanoseconds % 1_000_000_000
            deadline.tv_sec += Int(timeoutNanoseconds / 1_000_000_000) + Int(total / 1_000_000_000)
            deadline.tv_nsec = Int(total % 1_000_000_000)
        }
        var met = condition(&value)
        while !met {
            if timeoutNanoseconds != nil {
                if pthread_cond_timedwait(self.condition, mutex, &deadline) == ETIMEDOUT {
                    met = condition(&value)
                    break
                }
            } else {
                pthread_cond_wait(self.condition, mutex)
            }
            met = condition(&value)
        }
        return body(&value, met)
    }
}
