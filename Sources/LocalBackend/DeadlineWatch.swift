import LoomSupport

/// Raises a cancellation flag when a request's deadline passes, and runs the actions registered
/// with `whenFired` (a request waiting for an engine stops waiting).
final class DeadlineWatch: Sendable {
    private final class Fired: Sendable {
        let value = Locked(false)
        let actions = Locked<[@Sendable () -> Void]>([])
    }
    private let timer: Task<Void, Never>?
    private let state = Fired()

    init(timeout: Duration?, flag: CancellationFlag) {
        guard let timeout else { timer = nil; return }
        let state = self.state
        timer = Task {
            do { try await Task.sleep(for: timeout) } catch { return }
            // Set before the actions run, so an action's target that checks `fired` under its
            // own lock either sees it or is found by the action.
            state.value.withLock { $0 = true }
            flag.cancel()
            for action in state.actions.withLock({ a in defer { a = [] }; return a }) { action() }
        }
    }

    /// Whether the deadline passed (and raised the flag).
    var fired: Bool { state.value.withLock { $0 } }

    /// Runs `action` when the deadline passes (now, if it has already passed).
    func whenFired(_ action: @escaping @Sendable () -> Void) {
        guard timer != nil else { return }
        let runNow = state.actions.withLock { a -> Bool in
            if fired { return true }
            a.append(action)
            return false
        }
        if runNow { action() }
    }

    /// Stops watching.
    func stop() { timer?.cancel() }
}
