import Engine
import LoomSupport

/// Engines are not thread-safe and hold a KV cache each, so concurrent requests (from several
/// sessions sharing one executor) each borrow an engine and give it back when done. An engine
/// returned keeps its cache: the next prompt that starts the same way reuses that prefix.
final class EnginePool: @unchecked Sendable {
    // @unchecked: `make` is only called, never changed; the idle engines are behind a lock.
    private let idle = Locked<[IdleEngine]>([])
    private let make: () throws -> SequentialEngine

    /// An engine no request holds.
    private struct IdleEngine: @unchecked Sendable {
        // @unchecked: an engine is used by exactly one request between borrow and give-back,
        // and by none while it sits in the pool.
        let engine: SequentialEngine
    }

    init(make: @escaping () throws -> SequentialEngine) {
        self.make = make
    }

    /// An idle engine, or a new one when all are busy.
    func borrow() throws -> SequentialEngine {
        let engine = idle.withLock { $0.popLast() }?.engine
        return try engine ?? make()
    }

    /// Makes `engine` available to the next request.
    func giveBack(_ engine: SequentialEngine) {
        let entry = IdleEngine(engine: engine)
        idle.withLock { $0.append(entry) }
    }
}
