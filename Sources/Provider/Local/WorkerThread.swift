#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import Engine
import Synchronization

/// Runs blocking work (model compute, schema compilation) on a dedicated OS thread so Swift's
/// cooperative pool is never blocked, with a large stack because compiling deeply nested schemas
/// recurses.
enum WorkerThread {
    /// Stack size of worker threads: schema compilation may recurse deeply.
    static let stackSize = 256 << 20

    /// Counts the worker threads one owner (a runtime) has running, so tests and diagnostics can
    /// check that none is left behind.
    final class Count: Sendable {
        fileprivate let value = Atomic<Int>(0)
        init() {}
        /// Threads started and not yet past their body.
        var running: Int { value.load(ordering: .acquiring) }
    }

    /// Every worker thread of the process.
    static let all = Count()

    private final class Job {
        let body: () -> Void
        let count: Count?
        init(body: @escaping () -> Void, count: Count?) {
            self.body = body
            self.count = count
        }
    }

    /// Starts `body` on a new detached thread, counted in `all` and in `count`. Returns false if
    /// no thread could be created (then `body` has not run).
    static func start(counting count: Count? = nil, _ body: @escaping @Sendable () -> Void) -> Bool {
        var attributes = pthread_attr_t()
        pthread_attr_init(&attributes)
        defer { pthread_attr_destroy(&attributes) }
        pthread_attr_setstacksize(&attributes, stackSize)
        pthread_attr_setdetachstate(&attributes, Int32(PTHREAD_CREATE_DETACHED))
        all.value.add(1, ordering: .relaxed)
        count?.value.add(1, ordering: .relaxed)
        let job = Unmanaged.passRetained(Job(body: body, count: count)).toOpaque()
        #if canImport(Glibc)
        var thread = pthread_t()
        #else
        var thread: pthread_t?
        #endif
        let status = pthread_create(&thread, &attributes, { raw in
            let job = Unmanaged<Job>.fromOpaque(raw!).takeRetainedValue()
            job.body()
            job.count?.value.subtract(1, ordering: .releasing)
            WorkerThread.all.value.subtract(1, ordering: .releasing)
            return nil
        }, job)
        if status != 0 {
            Unmanaged<Job>.fromOpaque(job).release()
            count?.value.subtract(1, ordering: .relaxed)
            all.value.subtract(1, ordering: .relaxed)
            return false
        }
        return true
    }

    /// Runs `body` on a worker thread and returns its result.
    ///
    /// The result travels through a lock and the continuation only wakes the task: a result
    /// passed through the continuation itself carries no order ThreadSanitizer can see when the
    /// worker resumes before the task has suspended, so everything the worker built (a compiled
    /// grammar, an executor) was reported as raced when another thread read it (issue 9). The
    /// worker stores under the lock before resuming and the task takes it under the same lock
    /// after waking, which orders the two for the sanitizer as they are ordered in fact.
    static func run<T: Sendable>(counting count: Count? = nil, _ body: @escaping @Sendable () throws -> T) async throws -> T {
        let slot = Locked<Result<T, any Error>?>(nil)
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let started = start(counting: count) {
                let result = Result { try body() }
                slot.withLock { $0 = result }
                continuation.resume()
            }
            if !started {
                slot.withLock { $0 = .failure(LocalLanguageModelError.internalFailure("could not start a worker thread")) }
                continuation.resume()
            }
        }
        guard let result = slot.withLock({ $0 }) else {
            preconditionFailure("a worker thread resumed its caller without a result")
        }
        return try result.get()
    }
}
