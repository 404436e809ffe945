import LoomSupport

/// Runs blocking work (a socket call, a wait) on a thread of its own and resumes when it
/// finishes, so it never occupies the cooperative pool that the code under test needs to make
/// progress. The result is handed over under a lock (see `DedicatedThread.run`), and the next
/// call's thread is created after the task took the result, so consecutive calls on one client,
/// each on its own thread, are ordered too.
public func offPool<T: Sendable>(_ body: @escaping @Sendable () throws -> T) async throws -> T {
    try await DedicatedThread.run(body)
}
