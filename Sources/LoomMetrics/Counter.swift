import Synchronization

/// A monotonically increasing count, recorded lock-free: one relaxed atomic add per increment,
/// no allocation, safe from any thread.
public final class Counter: Sendable {
    private let count = Atomic<UInt64>(0)

    init() {}

    /// Adds `amount` (default 1).
    public func increment(by amount: UInt64 = 1) {
        count.add(amount, ordering: .relaxed)
    }

    /// The count so far.
    public var value: UInt64 { count.load(ordering: .relaxed) }
}
