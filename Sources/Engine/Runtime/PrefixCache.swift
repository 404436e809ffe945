import LoomSupport

/// A bounded store of KV snapshots keyed by token prefix, shared by every engine of a process
/// (or of a service): a system prompt that many sessions start with is evaluated once, and each
/// new sequence copies its keys and values instead of recomputing them.
///
/// Engines consult it in `prefill`: when a stored prefix shares more leading tokens with the new
/// prompt than the engine's own sequence does, those positions are copied in (a memcpy per layer)
/// and only the rest is evaluated. A snapshot is usable for any prompt that shares *some* of its
/// leading tokens, since the keys and values at position i depend only on tokens `0...i`.
/// Prefixes are stored explicitly (`SequentialEngine.storePrefix(count:)` or `prefill`'s
/// `storePrefixLength`), because only the caller knows which prefix (a rendered system prompt,
/// tool definitions) recurs.
///
/// Snapshots are tied to the `Model` instance and the cache's element type they came from; a
/// snapshot of a model that has been released is never matched and is dropped on the next store.
/// When the stored bytes exceed `byteBudget`, the least recently used snapshots are evicted.
/// Thread-safe: lookups and stores take a lock only for bookkeeping; copies run outside it.
public final class PrefixCache: Sendable {
    /// Counters since creation (or `removeAll`), for diagnostics and tests.
    public struct Statistics: Sendable, Equatable {
        /// Snapshots held.
        public var entryCount = 0
        /// Bytes held (keys, values and token lists).
        public var byteCount = 0
        /// Lookups that restored at least one position.
        public var hits = 0
        /// Lookups that found nothing longer than what the sequence already held.
        public var misses = 0
        /// Positions copied in by hits.
        public var restoredTokenCount = 0
        /// Snapshots stored.
        public var insertions = 0
        /// Snapshots dropped to stay within the budget.
        public var evictions = 0

        /// All counters zero (an empty, fresh store).
        public init() {}
    }

    /// The keys and values of positions `0..<positions`, packed per layer (keys then values).
    /// Immutable once made; shared by the store and the engines restoring from it.
    final class Snapshot: @unchecked Sendable {
        let positions: Int
        let storage: UnsafeMutableRawPointer
        let byteCount: Int

        init(cache: KVCache, positions: Int) {
            self.positions = positions
            byteCount = cache.byteCount(positions: positions)
            storage = .allocate(byteCount: max(byteCount, 1), alignment: 64)
            cache.snapshot(positions: positions, into: storage)
        }

        deinit { storage.deallocate() }
    }

    private struct Entry {
        let tokens: [Int32]
        let snapshot: Snapshot
        weak var model: Model?
        let type: KVCacheType
        var lastUse: UInt64
        var bytes: Int { snapshot.byteCount + tokens.count * MemoryLayout<Int32>.stride }
    }

    private struct State {
        var entries: [Entry] = []
        var clock: UInt64 = 0
        var statistics = Statistics()
    }

    /// Most bytes of snapshots kept; older ones are evicted to make room.
    public let byteBudget: Int
    private let state = Locked(State())

    /// A store keeping at most `byteBudget` bytes of keys and values.
    public init(byteBudget: Int) {
        self.byteBudget = max(byteBudget, 0)
    }

    /// Counters and current size.
    public var statistics: Statistics { state.withLock { $0.statistics } }

    /// Drops every snapshot and resets the counters.
    public func removeAll() {
        state.withLock { $0 = State() }
    }

    /// Stores positions `0..<count` of `sequence` (evaluated by `model`), unless a stored
    /// snapshot already covers them. Returns whether the prefix is now held (false when it
    /// alone exceeds the budget or is empty).
    @discardableResult
    public func store(_ sequence: InferenceSequence, count: Int, model: Model) -> Bool {
        guard count > 0, count <= sequence.count else { return false }
        let type = sequence.cache.type
        let tokens = Array(sequence.tokens[0..<count])
        let covered = state.withLock { s -> Bool in
            s.clock += 1
            let now = s.clock
            for i in s.entries.indices where s.entries[i].model === model && s.entries[i].type == type
                && s.entries[i].tokens.count >= count && s.entries[i].tokens.starts(with: tokens) {
                s.entries[i].lastUse = now
                return true
            }
            return false
        }
        if covered { return true }
        guard sequence.cache.byteCount(positions: count) + count * MemoryLayout<Int32>.stride <= byteBudget else {
            return false
        }
        // The copy runs outside the lock: other engines keep restoring meanwhile.
        let snapshot = Snapshot(cache: sequence.cache, positions: count)
        state.withLock { s in
            s.clock += 1
            // Drop snapshots of released models and those the new one extends.
            s.entries.removeAll { e in
                e.model == nil || (e.model === model && e.type == type && tokens.starts(with: e.tokens))
            }
            s.entries.append(Entry(tokens: tokens, snapshot: snapshot, model: model, type: type, lastUse: s.clock))
            s.statistics.insertions += 1
            var total = s.entries.reduce(0) { $0 + $1.bytes }
            while total > byteBudget, let victim = s.entries.indices.min(by: { s.entries[$0].lastUse < s.entries[$1].lastUse }) {
                total -= s.entries[victim].bytes
                s.entries.remove(at: victim)
                s.statistics.evictions += 1
            }
            s.statistics.entryCount = s.entries.count
            s.statistics.byteCount = total
        }
        return true
    }

    /// Extends `sequence` (holding a prefix of `tokens`) with the longest run of `tokens`'
    /// leading positions a snapshot holds, up to `limit` positions. Returns how many positions
    /// were copied in (0 on a miss).
    func restore(_ tokens: [Int32], into sequence: InferenceSequence, limit: Int, model: Model) -> Int {
        let have = sequence.count
        let type = sequence.cache.type
        let found = state.withLock { s -> (Snapshot, Int)? in
            var best: (index: Int, length: Int)?
            for (i, e) in s.entries.enumerated() where e.model === model && e.type == type {
                let n = min(e.tokens.count, limit, tokens.count)
                var k = 0
                while k < n && e.tokens[k] == tokens[k] { k += 1 }
                if k > have && k > (best?.length ?? 0) { best = (i, k) }
            }
            guard let best else {
                s.statistics.misses += 1
                return nil
            }
            s.clock += 1
            s.entries[best.index].lastUse = s.clock
            s.statistics.hits += 1
            s.statistics.restoredTokenCount += best.length - have
            return (s.entries[best.index].snapshot, best.length)
        }
        guard let (snapshot, length) = found else { return 0 }
        sequence.restore(tokens, through: length, from: snapshot)
        return length - have
    }
}
