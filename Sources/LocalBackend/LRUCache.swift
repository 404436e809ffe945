/// A dictionary that keeps at most `capacity` entries, evicting the least recently used one
/// when a new key would exceed it. Process-wide caches use it so that a long-running server
/// fed ever-new schemas or model files holds a bounded amount of memory.
///
/// Not thread-safe: keep it inside a `Locked`. Eviction scans the entries (O(capacity)); the
/// capacities used are small and an insertion is rare next to the work it saves (a grammar
/// compilation, a model file read).
struct LRUCache<Key: Hashable, Value> {
    /// The most entries kept.
    let capacity: Int
    private var entries: [Key: (value: Value, lastUse: UInt64)] = [:]
    private var clock: UInt64 = 0

    /// An empty cache keeping at most `capacity` (at least 1) entries.
    init(capacity: Int) {
        self.capacity = max(1, capacity)
    }

    /// How many entries the cache holds.
    var count: Int { entries.count }

    /// The value for `key`, marking it as just used; nil when absent.
    mutating func value(for key: Key) -> Value? {
        guard let entry = entries[key] else { return nil }
        clock += 1
        entries[key] = (entry.value, clock)
        return entry.value
    }

    /// Stores `value` for `key`, evicting the least recently used entry if the cache is full.
    mutating func insert(_ value: Value, for key: Key) {
        clock += 1
        if entries[key] == nil, entries.count >= capacity,
           let oldest = entries.min(by: { $0.value.lastUse < $1.value.lastUse })?.key {
            entries.removeValue(forKey: oldest)
        }
        entries[key] = (value, clock)
    }
}
