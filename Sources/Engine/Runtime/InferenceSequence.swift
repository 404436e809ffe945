/// The tokens a KV cache holds, so a new prompt can reuse the longest common prefix.
///
/// Named `InferenceSequence` rather than `Sequence` so it never shadows the standard library's
/// protocol for code that imports Engine.
///
/// `tokens[i]` is the token whose keys and values sit at position `i` of `cache`; the two are kept
/// the same length by whoever evaluates (the engines). The token list reserves the cache's
/// capacity up front, so appending while decoding never allocates. Not thread-safe.
public final class InferenceSequence {
    /// Keys and values of `tokens`.
    public let cache: KVCache
    /// The tokens evaluated into `cache`, in position order.
    public private(set) var tokens: [Int32]

    /// A sequence over `cache`, which must be empty.
    public init(cache: KVCache) {
        precondition(cache.count == 0, "a new sequence starts from an empty cache")
        self.cache = cache
        tokens = []
        tokens.reserveCapacity(cache.capacity)
    }

    /// Positions held.
    public var count: Int { tokens.count }

    /// Positions the cache can hold.
    public var capacity: Int { cache.capacity }

    /// How many leading tokens of `other` this sequence already holds.
    public func commonPrefixLength(with other: [Int32]) -> Int {
        let n = min(tokens.count, other.count)
        var i = 0
        while i < n && tokens[i] == other[i] { i += 1 }
        return i
    }

    /// Forgets every position from `n` on.
    public func truncate(to n: Int) {
        precondition(n >= 0 && n <= tokens.count, "truncate(to: \(n)) beyond \(tokens.count) tokens")
        tokens.removeLast(tokens.count - n)
        cache.truncate(to: n)
    }

    /// Forgets everything.
    public func reset() { truncate(to: 0) }

    /// Appends `tokens[count..<end]` with their keys and values copied from a prefix snapshot
    /// whose first `end` tokens equal `tokens`' (the caller checked).
    func restore(_ tokens: [Int32], through end: Int, from snapshot: PrefixCache.Snapshot) {
        let start = self.tokens.count
        cache.restore(start..<end, from: snapshot.storage, snapshotPositions: snapshot.positions)
        self.tokens.append(contentsOf: tokens[start..<end])
    }

    /// Records tokens a forward pass has just appended to the cache.
    func recordEvaluated(_ evaluated: UnsafeBufferPointer<Int32>) {
        tokens.append(contentsOf: evaluated)
        assert(tokens.count == cache.count, "sequence tokens and cache positions out of step")
    }
}
