import LoomSupport

/// A one-shot signal a task can await (not cancellable: the waiter always sees the worker end).
final class Completion: Sendable {
    private let state = Locked<(done: Bool, waiters: [CheckedContinuation<Void, Never>])>((false, []))

    func signal() {
        let waiters = state.withLock { s -> [CheckedContinuation<Void, Never>] in
            s.done = true
            defer { s.waiters = [] }
            return s.waiters
        }
        for w in waiters { w.resume() }
    }

    func wait() async {
        await withCheckedContinuation { (c: CheckedContinuation<Void, Never>) in
            let now = state.withLock { s -> Bool in
                if s.done { return true }
                s.waiters.append(c)
                return false
            }
            if now { c.resume() }
        }
        // Taken once more after waking: the resume alone may carry no order ThreadSanitizer
        // sees (see `DedicatedThread.run`), and whatever the signalling thread did before
        // `signal()` is what the waiter goes on to rely on.
        _ = state.withLock { $0.done }
    }
}
