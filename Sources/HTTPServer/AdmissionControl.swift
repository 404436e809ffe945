// Concurrency gate for expensive routes: `parallel` requests run, up to `queue` more wait in
// arrival order, anything beyond that is refused at once (the server answers 429). Draining
// refuses the queue and every later arrival (503) while admitted requests run on.
import LoomSupport

final class AdmissionControl: Sendable {
    enum Outcome: Sendable { case admitted, rejected, cancelled, draining }

    private struct State {
        var running = 0
        var nextTicket = 0
        var waiters: [(ticket: Int, continuation: CheckedContinuation<Outcome, Never>)] = []
        var cancelledTickets: Set<Int> = []
        var acquiring: Set<Int> = []
        var draining = false
    }

    private let state = Locked(State())
    private let parallel: Int
    private let queueLimit: Int

    init(parallel: Int, queue: Int) {
        self.parallel = max(1, parallel)
        self.queueLimit = max(0, queue)
    }

    /// Requests currently admitted (running).
    var inFlight: Int { state.withLock { $0.running } }
    /// Requests waiting for a slot.
    var queued: Int { state.withLock { $0.waiters.count } }
    /// Whether `drain()` has been called.
    var isDraining: Bool { state.withLock { $0.draining } }

    /// Refuses every waiting request and every later one with `.draining`; admitted ones run on.
    func drain() {
        let waiting = state.withLock { s -> [CheckedContinuation<Outcome, Never>] in
            s.draining = true
            defer { s.waiters = [] }
            return s.waiters.map(\.continuation)
        }
        for c in waiting { c.resume(returning: .draining) }
    }

    /// Waits for a slot. A waiting request whose Task is cancelled (client gone) leaves the queue.
    func acquire() async -> Outcome {
        let ticket = state.withLock { s -> Int in
            s.nextTicket += 1
            s.acquiring.insert(s.nextTicket)
            return s.nextTicket
        }
        defer {
            state.withLock { s in
                s.acquiring.remove(ticket)
                s.cancelledTickets.remove(ticket)
            }
        }
        return await withTaskCancellationHandler {
            await withCheckedContinuation { (c: CheckedContinuation<Outcome, Never>) in
                // The continuation is resumed after the lock is released, never under it.
                let now = state.withLock { s -> Outcome? in
                    if s.cancelledTickets.remove(ticket) != nil { return .cancelled }
                    if s.draining { return .draining }
                    if s.running < parallel {
                        s.running += 1
                        return .admitted
                    }
                    if s.waiters.count < queueLimit {
                        s.waiters.append((ticket, c))
                        return nil
                    }
                    return .rejected
                }
                if let now { c.resume(returning: now) }
            }
        } onCancel: {
            let waiter = state.withLock { s -> CheckedContinuation<Outcome, Never>? in
                if let i = s.waiters.firstIndex(where: { $0.ticket == ticket }) {
                    return s.waiters.remove(at: i).continuation
                }
                // Cancelled before the continuation queued: remembered so it never queues.
                if s.acquiring.contains(ticket) { s.cancelledTickets.insert(ticket) }
                return nil
            }
            waiter?.resume(returning: .cancelled)
        }
    }

    /// Frees a slot, handing it straight to the oldest waiter.
    func release() {
        let next = state.withLock { s -> CheckedContinuation<Outcome, Never>? in
            if !s.waiters.isEmpty { return s.waiters.removeFirst().continuation }
            s.running -= 1
            return nil
        }
        next?.resume(returning: .admitted)
    }
}
