#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Runs blocking work (model compute, schema compilation) on a dedicated OS thread so Swift's
/// cooperative pool is never blocked, with a large stack because compiling deeply nested schemas
/// recurses.
enum WorkerThread {
    /// Stack size of worker threads: schema compilation may recurse deeply.
    static let stackSize = 256 << 20

    private final class Job {
        let body: () -> Void
        init(_ body: @escaping () -> Void) { self.body = body }
    }

    /// Starts `body` on a new detached thread. Returns false if no thread could be created
    /// (then `body` has not run).
    static func start(_ body: @escaping @Sendable () -> Void) -> Bool {
        var attributes = pthread_attr_t()
        pthread_attr_init(&attributes)
        defer { pthread_attr_destroy(&attributes) }
        pthread_attr_setstacksize(&attributes, stackSize)
        pthread_attr_setdetachstate(&attributes, Int32(PTHREAD_CREATE_DETACHED))
        let job = Unmanaged.passRetained(Job(body)).toOpaque()
        #if canImport(Glibc)
        var thread = pthread_t()
        #else
        var thread: pthread_t?
        #endif
        let status = pthread_create(&thread, &attributes, { raw in
            let job = Unmanaged<Job>.fromOpaque(raw!).takeRetainedValue()
            job.body()
            return nil
        }, job)
        if status != 0 {
            Unmanaged<Job>.fromOpaque(job).release()
            return false
        }
        return true
    }

    /// Runs `body` on a worker thread and returns its result.
    static func run<T: Sendable>(_ body: @escaping @Sendable () throws -> T) async throws -> T {
        try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<T, any Error>) in
            let started = start {
                do { continuation.resume(returning: try body()) } catch { continuation.resume(throwing: error) }
            }
            if !started {
                continuation.resume(throwing: LocalLanguageModelError.internalFailure("could not start a worker thread"))
            }
        }
    }
}
