import Engine
import Foundation

/// Engines are not thread-safe and hold a KV cache each, so concurrent requests (from several
/// sessions sharing one executor) each borrow an engine and give it back when done. An engine
/// returned keeps its cache: the next prompt that starts the same way reuses that prefix.
final class EnginePool: @unchecked Sendable {
    // @unchecked: `idle` is only touched under `lock`, and a borrowed engine belongs to exactly
    // one request until it is given back.
    private let lock = NSLock()
    private var idle: [SequentialEngine] = []
    private let make: () throws -> SequentialEngine

    init(make: @escaping () throws -> SequentialEngine) {
        self.make = make
    }

    /// An idle engine, or a new one when all are busy.
    func borrow() throws -> SequentialEngine {
        lock.lock()
        let engine = idle.popLast()
        lock.unlock()
        return try engine ?? make()
    }

    /// Makes `engine` available to the next request.
    func giveBack(_ engine: SequentialEngine) {
        lock.lock()
        idle.append(engine)
        lock.unlock()
    }
}
