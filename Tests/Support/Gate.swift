import LoomSupport

/// A one-shot latch for handshakes between a handler (or producer) and the test: one side opens
/// it, the other waits for the opening itself rather than polling for it.
///
/// A waiter blocks a thread of its own (`offPool`) in `Locked.wait(until:timeoutNanoseconds:)`,
/// woken by `open()`'s `withLockSignalling`, and gives up after `timeout` so that a handshake
/// whose other side never comes fails the test instead of hanging it. Cancelling the waiting task
/// wakes it too.
public final class Gate: Sendable {
    private struct State {
        var open = false
        var nextWaiter = 0
        var cancelledWaiters: Set<Int> = []
    }

    private let state = Locked(State())

    /// A closed gate.
    public init() {}

    /// Opens the gate and wakes every waiter.
    public func open() { state.withLockSignalling { $0.open = true } }

    /// Whether the gate has been opened.
    public var isOpen: Bool { state.withLock { $0.open } }

    /// Waits until the gate opens: true once it is open, false when `timeout` passes or the
    /// waiting task is cancelled first. The default bound is far beyond any handshake on a
    /// working server, even under ThreadSanitizer on a loaded machine.
    @discardableResult
    public func wait(timeout: Duration = .seconds(60)) async -> Bool {
        let waiter = state.withLock { s -> Int in
            s.nextWaiter += 1
            return s.nextWaiter
        }
        let (seconds, attoseconds) = timeout.components
        let nanoseconds = UInt64(max(0, seconds)) * 1_000_000_000 + UInt64(max(0, attoseconds) / 1_000_000_000)
        return await withTaskCancellationHandler {
            let opened = try? await offPool { [state] in
                state.wait(until: { $0.open || $0.cancelledWaiters.contains(waiter) }, timeoutNanoseconds: nanoseconds) { s, _ in
                    s.cancelledWaiters.remove(waiter)
                    return s.open
                }
            }
            return opened ?? false
        } onCancel: {
            state.withLockSignalling { _ = $0.cancelledWaiters.insert(waiter) }
        }
    }
}

/// Waits until `condition` holds, checking it at most `checks` times 2 ms apart; false when it
/// never held or the task was cancelled. For state the test can observe but not be told about
/// (a server's queue length): the bound of checks is what keeps a broken server from hanging it.
public func until(checks: Int = 30_000, _ condition: () -> Bool) async -> Bool {
    for _ in 0..<checks {
        if condition() { return true }
        if Task.isCancelled { return false }
        try? await Task.sleep(for: .milliseconds(2))
    }
    return condition()
}
