/// Suspends until the current task is cancelled, then throws `CancellationError`.
///
/// For a handler or producer that must hold until the server or client cancels it. `Task.sleep`
/// ends the moment its task is cancelled, so the cancellation itself wakes this; nothing polls.
/// A cancellation that never comes is bounded by the suite's time limit, which cancels the test
/// and, through the server's stop, its handlers.
public func untilCancelled() async throws -> Never {
    while true { try await Task.sleep(for: .seconds(3600)) }
}
