import Foundation

/// Runs blocking work (a socket call, a wait) on a fresh thread and resumes when it finishes, so
/// it never occupies the cooperative pool that the code under test needs to make progress.
///
/// The result comes back through a lock, not through the continuation: when the thread resumes
/// before the task has suspended, ThreadSanitizer sees no order between the thread's writes and
/// the task's reads, and it reports every buffer and response body handed across as a race. The
/// lock makes that order explicit, and the next call's thread is created after the task took the
/// result, so consecutive calls on one client, each on its own thread, are ordered too.
public func offPool<T: Sendable>(_ body: @escaping @Sendable () throws -> T) async throws -> T {
    let handoff = Handoff<T>()
    await withCheckedContinuation { (c: CheckedContinuation<Void, Never>) in
        Thread {
            handoff.put(Result { try body() })
            c.resume()
        }.start()
    }
    return try handoff.take().get()
}

/// One result passed from a thread to the task that waits for it.
private final class Handoff<T: Sendable>: @unchecked Sendable {
    // @unchecked: `result` is only touched under `lock`.
    private let lock = NSLock()
    private var result: Result<T, any Error>?

    func put(_ r: Result<T, any Error>) { lock.withLock { result = r } }

    func take() -> Result<T, any Error> {
        lock.withLock {
            guard let r = result else { preconditionFailure("offPool resumed before its result was stored") }
            result = nil
            return r
        }
    }
}
