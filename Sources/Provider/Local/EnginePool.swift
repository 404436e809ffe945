import Engine
import Synchronization

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

    /// Waits until no pipelined producer touches the engine (before using `sequential` directly
    /// or reading its sequence).
    func settle() { pipelined?.waitUntilIdle() }
}

/// The engines of one executor over the shared weights. A request borrows the idle engine whose
/// sequence shares the longest prefix with its prompt (so a conversation keeps finding its own
/// KV cache), and a new engine is made when all are busy, so concurrent requests from different
/// sessions never wait for each other.
final class EnginePool: Sendable {
    private let idle = Mutex<[PooledEngine]>([])
    private let make: @Sendable () throws -> PooledEngine
    /// Idle engines kept beyond this are released (each holds a KV cache).
    let maximumIdle: Int

    init(maximumIdle: Int = 4, make: @escaping @Sendable () throws -> PooledEngine) {
        self.maximumIdle = maximumIdle
        self.make = make
    }

    /// Borrows the idle engine that already holds the longest prefix of `prompt`, or a new one.
    func borrow(for prompt: [Int32]) throws -> PooledEngine {
        let chosen: PooledEngine? = idle.withLock { engines in
            guard !engines.isEmpty else { return nil }
            var best = 0, bestLength = -1
            for (i, e) in engines.enumerated() {
                let n = e.sequential.sequence.commonPrefixLength(with: prompt)
                if n > bestLength { best = i; bestLength = n }
            }
            return engines.remove(at: best)
        }
        if let chosen { return chosen }
        return try make()
    }

    /// Returns an engine (settled: no producer running); the most recently used ones are kept first.
    func giveBack(_ engine: PooledEngine) {
        engine.settle()
        idle.withLock { engines in
            engines.insert(engine, at: 0)
            if engines.count > maximumIdle { engines.removeLast(engines.count - maximumIdle) }
        }
    }

    /// Engines idle now (for tests and diagnostics).
    var idleCount: Int { idle.withLock { $0.count } }
}
