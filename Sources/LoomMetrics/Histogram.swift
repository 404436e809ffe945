import Synchronization

/// Observations counted into fixed buckets, recorded lock-free: an observation finds its bucket
/// among the upper bounds and does two atomic updates (its bucket, the sum), allocating nothing.
///
/// Buckets are stored per bucket, not cumulatively; a snapshot accumulates them, so its `+Inf`
/// bucket and its count are always the same number even while observations land.
public final class Histogram: Sendable {
    /// The buckets' inclusive upper bounds, ascending and finite; `+Inf` is implied after them.
    public let upperBounds: [Double]
    // One atomic word per bucket (the last is +Inf): `Atomic` cannot live in an array, so the
    // words are allocated once here and freed in deinit.
    private nonisolated(unsafe) let buckets: UnsafeMutablePointer<Atomic<UInt64>>
    private let sumBits = Atomic<UInt64>(0.0.bitPattern)

    init(upperBounds: [Double]) {
        precondition(!upperBounds.isEmpty, "a histogram needs at least one bucket bound")
        precondition(upperBounds.allSatisfy(\.isFinite), "histogram bounds must be finite (+Inf is implied)")
        precondition(zip(upperBounds, upperBounds.dropFirst()).allSatisfy { $0 < $1 }, "histogram bounds must ascend")
        self.upperBounds = upperBounds
        buckets = .allocate(capacity: upperBounds.count + 1)
        for i in 0...upperBounds.count { (buckets + i).initialize(to: Atomic<UInt64>(0)) }
    }

    deinit {
        buckets.deinitialize(count: upperBounds.count + 1)
        buckets.deallocate()
    }

    /// Records one observation of `value`.
    public func observe(_ value: Double) {
        observe(value, count: 1)
    }

    /// Records `count` observations of `value` at once (for example a batch of tokens that
    /// arrived together, each counted at the batch's average gap).
    public func observe(_ value: Double, count: UInt64) {
        guard count > 0, !value.isNaN else { return }
        var index = 0
        while index < upperBounds.count && value > upperBounds[index] { index += 1 }
        buckets[index].add(count, ordering: .relaxed)
        var old = sumBits.load(ordering: .relaxed)
        let added = value * Double(count)
        while true {
            let new = (Double(bitPattern: old) + added).bitPattern
            let (exchanged, current) = sumBits.weakCompareExchange(expected: old, desired: new, ordering: .relaxed)
            if exchanged { return }
            old = current
        }
    }

    /// Records the length of `duration` in seconds.
    public func observe(_ duration: Duration) {
        let (seconds, attoseconds) = duration.components
        observe(Double(seconds) + Double(attoseconds) * 1e-18)
    }

    /// The cumulative counts (`≤ upperBounds[i]`, then `+Inf`) and the sum, read now.
    public var value: HistogramValue {
        var cumulative: [UInt64] = []
        cumulative.reserveCapacity(upperBounds.count + 1)
        var running: UInt64 = 0
        for i in 0...upperBounds.count {
            running &+= buckets[i].load(ordering: .relaxed)
            cumulative.append(running)
        }
        return HistogramValue(upperBounds: upperBounds, cumulativeCounts: cumulative,
                              sum: Double(bitPattern: sumBits.load(ordering: .relaxed)))
    }
}

/// A histogram's state at one moment.
public struct HistogramValue: Sendable, Equatable {
    /// The finite upper bounds; `cumulativeCounts` has one more entry, for `+Inf`.
    public var upperBounds: [Double]
    /// Observations at or below each bound, then all observations (`+Inf`).
    public var cumulativeCounts: [UInt64]
    /// The sum of all observations.
    public var sum: Double

    /// All observations.
    public var count: UInt64 { cumulativeCounts.last ?? 0 }

    /// Creates a value.
    public init(upperBounds: [Double], cumulativeCounts: [UInt64], sum: Double) {
        self.upperBounds = upperBounds
        self.cumulativeCounts = cumulativeCounts
        self.sum = sum
    }
}
