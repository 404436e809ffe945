// Concurrency gate for expensive routes: `parallel` requests run, up to `queue` more wait in
// arrival order, anything beyond that is refused at once (the server answers 429).
import Foundation

final class AdmissionControl: @unchecked Sendable {
    // @unchecked: all state is guarded by `lock`.
    enum Outcome: Sendable { case admitted, rejected, cancelled }

    private let lock = NSLock()
    private let parallel: Int
    private let queueLimit: Int
    private var running = 0
    private var nextTicket = 0
    private var waiters: [(ticket: Int, continuation: CheckedContinuation<Outcome, Never>)] = []
    private var cancelledTickets: Set<Int> = []
    private var acquiring: Set<Int> = []

    init(parallel: Int, queue: Int) {
        self.parallel = max(1, parallel)
        self.queueLimit = max(0, queue)
    }

    /// Requests currently admitted (running).
    var inFlight: Int { lock.withLock { running } }
    /// Requests waiting for a slot.
    var queued: Int { lock.withLock { waiters.count } }

    /// Waits for a slot. A waiting request whose Task is cancelled (client gone) leaves the queue.
    func acquire() async -> Outcome {
        let ticket = lock.withLock { () -> Int in
            nextTicket += 1
            acquiring.insert(nextTicket)
            return nextTicket
        }
        defer {
            lock.withLock {
                acquiring.remove(ticket)
                cancelledTickets.remove(ticket)
            }
        }
        return await withTaskCancellationHandler {
            await withCheckedContinuation { (c: CheckedContinuation<Outcome, Never>) in
                lock.lock()
                if cancelledTickets.remove(ticket) != nil {
                    lock.unlock()
                    c.resume(returning: .cancelled)
                } else if running < parallel {
                    running += 1
                    lock.unlock()
                    c.resume(returning: .admitted)
                } else if waiters.count < queueLimit {
                    waiters.append((ticket, c))
                    lock.unlock()
                } else {
                    lock.unlock()
                    c.resume(returning: .rejected)
                }
            }
        } onCancel: {
            lock.lock()
            if let i = waiters.firstIndex(where: { $0.ticket == ticket }) {
                let c = waiters.remove(at: i).continuation
                lock.unlock()
                c.resume(returning: .cancelled)
            } else {
                // Cancelled before the continuation queued: remembered so it never queues.
                if acquiring.contains(ticket) { cancelledTickets.insert(ticket) }
                lock.unlock()
            }
        }
    }

    /// Frees a slot, handing it straight to the oldest waiter.
    func release() {
        lock.lock()
        if !waiters.isEmpty {
            let c = waiters.removeFirst().continuation
            lock.unlock()
            c.resume(returning: .admitted)
        } else {
            running -= 1
            lock.unlock()
        }
    }
}
