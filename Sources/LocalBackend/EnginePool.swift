import Engine
import LoomSupport
import Provider

/// An engine lent to one generation at a time. The pool's lock hands it over, so only one thread
/// ever touches it at once.
final class PooledEngine: @unchecked Sendable {
    /// The pipelined wrapper (pipelined and automatic variants), whose `engine` is `sequential`.
    let pipelined: PipelinedEngine?
    /// The engine that exposes logits (guided generation; all text for the sequential variant).
    let sequential: SequentialEngine

    init(sequential: SequentialEngine) {
        self.sequential = sequential
        pipelined = nil
    }

    init(pipelined: PipelinedEngine) {
        self.pipelined = pipelined
        sequential = pipelined.engine
    }

    /// Waits for a pipelined generation to end and lets go of the sequence, so an idle engine
    /// holds no place in the scheduler (its blocks stay cached for the next prompt).
    func settle() {
        pipelined?.waitUntilIdle()
        sequential.release()
    }

    /// Bytes of keys and values a full context of this engine's sequence takes in the pool
    /// (2 tables × layers × positions × bytes of one position's row).
    var kvCacheBytes: Int {
        let c = sequential.model.config
        return 2 * c.blockCount * sequential.contextSize * sequential.scheduler.kvCacheType.rowBytes(elements: c.kvLength)
    }
}

/// The engines of one executor over the shared weights, within a total KV-cache budget.
///
/// A request borrows the idle engine whose sequence shares the longest prefix with its prompt (so
/// a conversation keeps finding its own KV cache). When none is idle a new engine is made if the
/// engines already alive (lent or idle) leave room for one more KV cache in `budgetBytes`;
/// otherwise the request waits — asynchronously, in arrival order, cancellably — until an engine
/// comes back. Every engine of one pool has the same KV size, so reusing an idle engine is what
/// evicting it to make a fresh one would be, minus the cost: idle engines count against the
/// budget and are simply handed to the next request.
final class EnginePool: Sendable {
    /// What a waiting request is handed: an engine, or room in the budget to make one.
    private enum Grant {
        case engine(PooledEngine)
        case room
    }

    private struct Waiter {
        let id: UInt64
        let continuation: CheckedContinuation<Grant, any Error>
    }

    private struct State {
        var idle: [PooledEngine] = []
        /// Engines alive: idle, lent, or being made (their room is reserved).
        var live = 0
        var waiters: [Waiter] = []
        var nextWaiter: UInt64 = 0
        /// Most engines alive at once (diagnostics).
        var peakLive = 0
    }

    private let state = Locked(State())
    private let make: @Sendable () throws -> PooledEngine
    /// Idle engines kept beyond this are released (each holds a KV cache).
    let maximumIdle: Int
    /// KV bytes of one engine of this pool.
    let engineBytes: Int
    /// Total KV bytes all engines of this pool may hold at once.
    let budgetBytes: Int
    /// Engines the budget admits at once (at least 1: the runtime refuses smaller budgets).
    let capacity: Int

    /// A pool whose engines each hold `engineBytes` of KV cache, at most `budgetBytes` in total.
    /// - Precondition: `engineBytes <= budgetBytes` (checked by the runtime, which throws a typed error).
    init(engineBytes: Int, budgetBytes: Int, maximumIdle: Int = 4, make: @escaping @Sendable () throws -> PooledEngine) {
        precondition(engineBytes > 0 && engineBytes <= budgetBytes)
        self.engineBytes = engineBytes
        self.budgetBytes = budgetBytes
        capacity = budgetBytes / engineBytes
        self.maximumIdle = min(maximumIdle, capacity)
        self.make = make
    }

    /// Requests waiting for an engine now.
    var waiting: Int { state.withLock { $0.waiters.count } }

    /// Borrows the idle engine that already holds the longest prefix of `prompt`, a new one when
    /// the budget has room, or waits for one to be given back.
    /// - Throws: `CancellationError` when the task is cancelled, or `deadline` passes, while
    ///   waiting; the engine factory's error when making an engine fails.
    func borrow(for prompt: [Int32], deadline: DeadlineWatch? = nil) async throws -> PooledEngine {
        let grant: Grant
        if let immediate = state.withLock({ s in s.waiters.isEmpty ? self.takeOrReserve(&s, for: prompt) : nil }) {
            grant = immediate
        } else {
            let id = state.withLock { s -> UInt64 in
                defer { s.nextWaiter &+= 1 }
                return s.nextWaiter
            }
            deadline?.whenFired { [self] in cancelWaiter(id) }
            grant = try await withTaskCancellationHandler {
                try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Grant, any Error>) in
                    let now: Result<Grant, any Error>? = state.withLock { s in
                        // Checked under the lock the cancellation handler takes, so a
                        // cancellation either sees this waiter queued or is seen here.
                        if Task.isCancelled || deadline?.fired == true { return .failure(CancellationError()) }
                        // Only join the queue behind others; with nobody ahead, take directly.
                        if s.waiters.isEmpty, let g = self.takeOrReserve(&s, for: prompt) { return .success(g) }
                        s.waiters.append(Waiter(id: id, continuation: continuation))
                        return nil
                    }
                    if let now { continuation.resume(with: now) }
                }
            } onCancel: {
                cancelWaiter(id)
            }
            // Taken once more after waking: the resume from the thread that gave the engine
            // back may carry no order ThreadSanitizer sees (see `DedicatedThread.run`), and that
            // thread wrote the engine's KV cache last.
            state.withLock { _ in }
        }
        switch grant {
        case .engine(let engine):
            return engine
        case .room:
            do {
                return try make()
            } catch {
                releaseRoom()
                throw error
            }
        }
    }

    /// Ends waiter `id`'s wait with `CancellationError` if it is still queued.
    private func cancelWaiter(_ id: UInt64) {
        let removed = state.withLock { s -> Waiter? in
            guard let i = s.waiters.firstIndex(where: { $0.id == id }) else { return nil }
            return s.waiters.remove(at: i)
        }
        removed?.continuation.resume(throwing: CancellationError())
    }

    /// Borrows without waiting: an idle engine or a new one within the budget, else nil
    /// (prewarming is a hint and must not queue behind requests).
    func borrowIfAvailable(for prompt: [Int32]) -> PooledEngine? {
        guard let grant = state.withLock({ s in s.waiters.isEmpty ? self.takeOrReserve(&s, for: prompt) : nil }) else { return nil }
        switch grant {
        case .engine(let engine): return engine
        case .room:
            do { return try make() } catch {
                releaseRoom()
                return nil
            }
        }
    }

    /// An idle engine (longest common prefix first) or reserved room for a new one.
    private static func take(from s: inout State, for prompt: [Int32]) -> Grant? {
        if !s.idle.isEmpty {
            var best = 0, bestLength = -1
            for (i, e) in s.idle.enumerated() {
                let n = e.sequential.commonPrefixLength(with: prompt)
                if n > bestLength { best = i; bestLength = n }
            }
            return .engine(s.idle.remove(at: best))
        }
        return nil
    }

    /// Same as `take`, plus making room when the budget allows (the capacity is an instance value).
    private func takeOrReserve(_ s: inout State, for prompt: [Int32]) -> Grant? {
        if let g = Self.take(from: &s, for: prompt) { return g }
        if s.live < capacity {
            s.live += 1
            s.peakLive = max(s.peakLive, s.live)
            return .room
        }
        return nil
    }

    /// Returns an engine (settled: no producer running). The first waiting request gets it;
    /// otherwise it is kept idle, most recently used first, and idle engines beyond
    /// `maximumIdle` are released (freeing their budget).
    func giveBack(_ engine: PooledEngine) {
        engine.settle()
        let (waiter, released) = state.withLock { s -> (Waiter?, [PooledEngine]) in
            if !s.waiters.isEmpty { return (s.waiters.removeFirst(), []) }
            s.idle.insert(engine, at: 0)
            var released: [PooledEngine] = []
            if s.idle.count > maximumIdle {
                released = Array(s.idle[maximumIdle...])
                s.idle.removeLast(s.idle.count - maximumIdle)
                s.live -= released.count
            }
            return (nil, released)
        }
        waiter?.continuation.resume(returning: .engine(engine))
        // Released engines are freed here, outside the lock (unmapping their KV caches).
        _ = released
    }

    /// Frees a reserved slot whose engine could not be made: the first waiter gets the room.
    private func releaseRoom() {
        let waiter = state.withLock { s -> Waiter? in
            if !s.waiters.isEmpty { return s.waiters.removeFirst() }
            s.live -= 1
            return nil
        }
        waiter?.continuation.resume(returning: .room)
    }

    /// Engines idle now (for tests and diagnostics).
    var idleCount: Int { state.withLock { $0.idle.count } }
    /// Engines alive now: idle, lent or being made.
    var liveCount: Int { state.withLock { $0.live } }
    /// Engines lent out (or being made) now; 0 once every request has given its engine back.
    var lentCount: Int { state.withLock { $0.live - $0.idle.count } }
    /// Requests waiting for an engine now.
    var waitingCount: Int { state.withLock { $0.waiters.count } }
    /// Most engines alive at once since the pool was made.
    var peakLiveCount: Int { state.withLock { $0.peakLive } }
}
