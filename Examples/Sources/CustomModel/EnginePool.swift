import Engine
import LoomSupport

/// Engines are not thread-safe and hold a KV cache each, so concurrent requests (from several
/// sessions sharing one executor) each borrow an engine and give it back when done. An engine
/// returned keeps its cache: the next prompt that starts the same way reuses that prefix.
final class EnginePool: @unchecked Sendable {
    // @unchecked: `make` is only called, never changed, and a borrowed engine belongs to
    // exactly one request until it is given back.
    private let idle = Locked<[SequentialEngine]>([])
    private let make: () throws -> SequentialEngine

    init(make: @escaping () throws -> SequentialEngine) {
        self.make = make
    }

    /// An idle engine, or a new one when all are busy.
    func borrow() throws -> SequentialEngine {
        let engine = idle.withLock { $0.popLast() }
        return try engine ?? make()
    }

    /// Makes `engine` available to the next request.
    func giveBack(_ engine: sending SequentialEngine) {
        idle.withLock { $0.append(engine) }
    }
}
