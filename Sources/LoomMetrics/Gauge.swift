import Synchronization

/// A value that goes up and down, recorded lock-free (the `Double`'s bits in one atomic word).
public final class Gauge: Sendable {
    private let bits = Atomic<UInt64>(0.0.bitPattern)

    init() {}

    /// Replaces the value.
    public func set(_ value: Double) {
        bits.store(value.bitPattern, ordering: .relaxed)
    }

    /// Adds `delta` (negative to subtract) atomically.
    public func add(_ delta: Double) {
        var old = bits.load(ordering: .relaxed)
        while true {
            let new = (Double(bitPattern: old) + delta).bitPattern
            let (exchanged, current) = bits.weakCompareExchange(expected: old, desired: new, ordering: .relaxed)
            if exchanged { return }
            old = current
        }
    }

    /// The current value.
    public var value: Double { Double(bitPattern: bits.load(ordering: .relaxed)) }
}
