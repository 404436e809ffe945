/// An open-addressing hash set of byte strings, each given a dense index in insertion order.
///
/// Token texts and BPE pieces are looked up by their bytes straight out of the input buffer, so a
/// lookup must not build a `String` or an `Array`: keys live in one contiguous byte store and
/// lookups take a raw pointer and a length. Each slot packs the key's hash with its entry index,
/// so a probe touches the key bytes only when the full hash matches.
struct ByteStringTable: Sendable {
    private var store: [UInt8] = []
    private var starts: [Int32] = [0]
    /// `hash << 32 | (entry + 1)` per slot; 0 means empty. Capacity is a power of two kept at most half full.
    private var slots: [UInt64]
    private var mask: Int

    init(expectedCount: Int = 16) {
        var cap = 16
        while cap < expectedCount * 2 { cap <<= 1 }
        slots = [UInt64](repeating: 0, count: cap)
        mask = cap - 1
        starts.reserveCapacity(expectedCount + 1)
    }

    /// Number of distinct strings.
    var count: Int { starts.count - 1 }

    @inline(__always)
    private static func hash(_ p: UnsafePointer<UInt8>?, _ n: Int) -> UInt32 {
        // FNV-1a, finished with a multiply so the low bits used for the slot are well mixed.
        var h: UInt32 = 2_166_136_261
        for i in 0..<n { h = (h ^ UInt32(p![i])) &* 16_777_619 }
        return (h ^ (h >> 15)) &* 0x2C1B_3C6D
    }

    /// The index of the string `p[0..<n]`, if present.
    @inline(__always)
    func index(of p: UnsafePointer<UInt8>?, count n: Int) -> Int? {
        let h = ByteStringTable.hash(p, n)
        return find(p, n, h).entry
    }

    @inline(__always)
    private func find(_ p: UnsafePointer<UInt8>?, _ n: Int, _ h: UInt32) -> (entry: Int?, slot: Int) {
        var slot = Int(h) & mask
        return slots.withUnsafeBufferPointer { sl in
            starts.withUnsafeBufferPointer { st in
                store.withUnsafeBufferPointer { s in
                    while true {
                        let v = sl[slot]
                        if v == 0 { return (nil, slot) }
                        if UInt32(truncatingIfNeeded: v >> 32) == h {
                            let e = Int(UInt32(truncatingIfNeeded: v)) - 1
                            let a = Int(st[e]), b = Int(st[e + 1])
                            if b - a == n && (n == 0 || memcmpBytes(s.baseAddress! + a, p!, n)) { return (e, slot) }
                        }
                        slot = (slot + 1) & mask
                    }
                }
            }
        }
    }

    /// The index of `bytes`, if present.
    func index(of bytes: [UInt8]) -> Int? {
        bytes.withUnsafeBufferPointer { index(of: $0.baseAddress, count: $0.count) }
    }

    /// Inserts `p[0..<n]` if absent; returns its index and whether it was new.
    @discardableResult
    mutating func insert(_ p: UnsafePointer<UInt8>?, count n: Int) -> (index: Int, inserted: Bool) {
        let h = ByteStringTable.hash(p, n)
        var (found, slot) = find(p, n, h)
        if let found { return (found, false) }
        if (count + 1) * 2 > slots.count {
            grow()
            slot = find(p, n, h).slot
        }
        let e = count
        if n > 0 { store.append(contentsOf: UnsafeBufferPointer(start: p, count: n)) }
        starts.append(Int32(store.count))
        slots[slot] = UInt64(h) << 32 | UInt64(e + 1)
        return (e, true)
    }

    /// Inserts `bytes` if absent; returns its index and whether it was new.
    @discardableResult
    mutating func insert(_ bytes: [UInt8]) -> (index: Int, inserted: Bool) {
        bytes.withUnsafeBufferPointer { insert($0.baseAddress, count: $0.count) }
    }

    private mutating func grow() {
        let old = slots
        let cap = slots.count * 2
        slots = [UInt64](repeating: 0, count: cap)
        mask = cap - 1
        for v in old where v != 0 {
            var slot = Int(UInt32(truncatingIfNeeded: v >> 32)) & mask
            while slots[slot] != 0 { slot = (slot + 1) & mask }
            slots[slot] = v
        }
    }
}

@inline(__always)
func memcmpBytes(_ a: UnsafePointer<UInt8>, _ b: UnsafePointer<UInt8>, _ n: Int) -> Bool {
    for i in 0..<n where a[i] != b[i] { return false }
    return true
}
