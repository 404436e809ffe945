import Synchronization

/// A one-way switch that asks running work to stop.
///
/// Engines read it between micro-batches of a prompt and between decoded tokens, so at most one
/// more unit of work runs after `cancel()`; they then throw `EngineError.cancelled`. Raising it
/// from any thread is safe (an atomic store), and so is reading it on the compute thread.
public final class CancellationFlag: Sendable {
    private let raised = Atomic<Bool>(false)

    /// A flag that is not raised.
    public init() {}

    /// Asks the work holding this flag to stop. Idempotent.
    public func cancel() { raised.store(true, ordering: .releasing) }

    /// Whether `cancel()` has been called.
    public var isCancelled: Bool { raised.load(ordering: .acquiring) }
}
