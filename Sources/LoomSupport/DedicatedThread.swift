#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import Synchronization

/// Runs blocking work — model compute, model loads, schema compilation, a blocking socket call —
/// on an OS thread of its own with a stack size the caller chooses, so Swift's cooperative pool is
/// never blocked and deep recursion has room.
///
/// ```swift
/// let grammar = try await DedicatedThread.run(stackSize: 256 << 20) { try Grammar(jsonSchema: text) }
/// ```
///
/// Every thread started here is counted in `all` (and in the caller's `Count`, if one is given)
/// until its body returns, so tests and diagnostics can check that none is left behind.
public enum DedicatedThread {
    /// The stack size of a thread whose work does not recurse deeply: 8 MiB, the usual Linux
    /// main-thread limit (`ulimit -s`). Stacks are reserved address space, committed on use.
    public static let defaultStackSize = 8 << 20

    /// Counts the threads one owner has running.
    public final class Count: Sendable {
        fileprivate let value = Atomic<Int>(0)

        /// A count of zero.
        public init() {}

        /// Threads started and not yet past their body.
        public var running: Int { value.load(ordering: .acquiring) }

        fileprivate func enter() { value.add(1, ordering: .relaxed) }
        fileprivate func leave() { value.subtract(1, ordering: .releasing) }
    }

    /// Every thread started through `DedicatedThread` in this process.
    public static let all = Count()

    /// Starts `body` on a new detached thread with a `stackSize`-byte stack, counted in `all` and
    /// in `count`. Returns false if no thread could be created (then `body` has not run).
    public static func start(stackSize: Int = defaultStackSize, counting count: Count? = nil,
                             _ body: @escaping @Sendable () -> Void) -> Bool {
        spawn(stackSize: stackSize, detached: true, counting: count, body).status == 0
    }

    /// A thread started by `startJoinable`.
    public struct Handle: @unchecked Sendable {
        // @unchecked: a pthread handle is an opaque value; joining it once is the owner's job.
        fileprivate let thread: pthread_t

        /// Waits until the thread has ended, and with it released everything its body captured.
        /// Call once, and never from the thread itself.
        public func join() { pthread_join(thread, nil) }
    }

    /// Starts `body` like `start`, on a thread its owner joins: when `join()` returns, the body's
    /// captures are gone too, so an owner that stops its thread in `deinit` knows nothing it
    /// shares outlives it on that thread. Nil if no thread could be created (then `body` has not run).
    public static func startJoinable(stackSize: Int = defaultStackSize, counting count: Count? = nil,
                                     _ body: @escaping @Sendable () -> Void) -> Handle? {
        let (status, thread) = spawn(stackSize: stackSize, detached: false, counting: count, body)
        guard status == 0, let thread else { return nil }
        return Handle(thread: thread)
    }

    /// Runs `body` on a new thread with a `stackSize`-byte stack and returns its result (or
    /// rethrows its error); the calling task suspends meanwhile. Throws `DedicatedThreadError`
    /// if no thread could be created (then `body` has not run).
    ///
    /// The result travels through a lock and the continuation only wakes the task: a result
    /// passed through the continuation itself carries no order ThreadSanitizer can see when the
    /// thread resumes before the task has suspended, so everything the body built would be
    /// reported as raced when another thread read it. The thread stores under the lock before
    /// resuming and the task takes it under the same lock after waking, which orders the two for
    /// the sanitizer as they are ordered in fact.
    public static func run<T: Sendable>(stackSize: Int = defaultStackSize, counting count: Count? = nil,
                                        _ body: @escaping @Sendable () throws -> T) async throws -> T {
        let slot = Locked<Result<T, any Error>?>(nil)
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let status = spawn(stackSize: stackSize, detached: true, counting: count) {
                let result = Result { try body() }
                slot.withLock { $0 = result }
                continuation.resume()
            }.status
            if status != 0 {
                slot.withLock { $0 = .failure(DedicatedThreadError(status: status, stackSize: stackSize)) }
                continuation.resume()
            }
        }
        guard let result = slot.withLock({ $0 }) else {
            preconditionFailure("a dedicated thread resumed its caller without a result")
        }
        return try result.get()
    }

    /// Runs `body` on a new thread with a `stackSize`-byte stack and blocks the calling thread
    /// until it returns, for synchronous callers (a command-line tool's main thread, a test that
    /// needs a small stack). Throws `DedicatedThreadError` if no thread could be created (then
    /// `body` has not run); otherwise returns `body`'s result or rethrows its error.
    public static func runAndWait<T>(stackSize: Int = defaultStackSize, _ body: () throws -> T) throws -> T {
        try withoutActuallyEscaping(body) { body in
            // The box crosses to the new thread, which writes `result`; `pthread_join` returns
            // only after that thread ended, so the caller's read is ordered after the write.
            let box = JoinedResult<T>(body)
            let (status, thread) = spawn(stackSize: stackSize, detached: false, counting: nil) { box.run() }
            guard status == 0, let thread else { throw DedicatedThreadError(status: status, stackSize: stackSize) }
            pthread_join(thread, nil)
            guard let result = box.result else { preconditionFailure("a joined thread ended without a result") }
            return try result.get()
        }
    }

    /// Creates the thread; returns `pthread_create`'s status and, for a joinable thread, its handle.
    private static func spawn(stackSize: Int, detached: Bool, counting count: Count?,
                              _ body: @escaping () -> Void) -> (status: Int32, thread: pthread_t?) {
        var attributes = pthread_attr_t()
        pthread_attr_init(&attributes)
        defer { pthread_attr_destroy(&attributes) }
        pthread_attr_setstacksize(&attributes, stackSize)
        pthread_attr_setdetachstate(&attributes, Int32(detached ? PTHREAD_CREATE_DETACHED : PTHREAD_CREATE_JOINABLE))
        all.enter()
        count?.enter()
        let job = Unmanaged.passRetained(Job(body: body, count: count)).toOpaque()
        #if canImport(Glibc)
        var thread = pthread_t()
        #else
        var thread: pthread_t?
        #endif
        let status = pthread_create(&thread, &attributes, { raw in
            let job = Unmanaged<Job>.fromOpaque(raw!).takeRetainedValue()
            job.body()
            job.count?.leave()
            DedicatedThread.all.leave()
            return nil
        }, job)
        if status != 0 {
            Unmanaged<Job>.fromOpaque(job).release()
            count?.leave()
            all.leave()
            return (status, nil)
        }
        return (status, thread)
    }

    /// What a new thread runs, passed to it as a retained pointer.
    private final class Job {
        let body: () -> Void
        let count: Count?
        init(body: @escaping () -> Void, count: Count?) {
            self.body = body
            self.count = count
        }
    }

    /// The body and result of `runAndWait`.
    private final class JoinedResult<T> {
        let body: () throws -> T
        var result: Result<T, any Error>?
        init(_ body: @escaping () throws -> T) { self.body = body }
        func run() { result = Result { try body() } }
    }
}
