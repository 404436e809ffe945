import LoomSupport
import Provider

/// Where the local backend runs blocking work (model compute, schema compilation): dedicated
/// threads, so Swift's cooperative pool is never blocked, with a large stack because compiling
/// deeply nested schemas recurses.
enum WorkerThread {
    /// Stack size of worker threads: schema compilation may recurse deeply. Reserved address
    /// space, committed only as the recursion reaches it.
    static let stackSize = 256 << 20

    /// Counts the worker threads one owner (a runtime) has running.
    typealias Count = DedicatedThread.Count

    /// Starts `body` on a new worker thread, counted in `count`. Returns false if no thread could
    /// be created (then `body` has not run).
    static func start(counting count: Count? = nil, _ body: @escaping @Sendable () -> Void) -> Bool {
        DedicatedThread.start(stackSize: stackSize, counting: count, body)
    }

    /// Runs `body` on a worker thread and returns its result; a thread that cannot be created is
    /// `LocalLanguageModelError.internalFailure`.
    static func run<T: Sendable>(counting count: Count? = nil, _ body: @escaping @Sendable () throws -> T) async throws -> T {
        do {
            return try await DedicatedThread.run(stackSize: stackSize, counting: count, body)
        } catch is DedicatedThreadError {
            throw LocalLanguageModelError.internalFailure("could not start a worker thread")
        }
    }
}
