/// An open-addressing hash table of ids whose keys live in the automaton's own arrays (stacks,
/// node states, configurations): interning asks "which id has this key?" thousands of times per
/// cold mask, and a `Dictionary` keyed by arrays or structs paid for SipHash, a second copy of
/// every key and reference counting on each probe. Here a probe compares a stored 32-bit hash
/// first and calls `matches` only on equal hashes.
struct InternTable {
    /// Per slot: hash in the high 32 bits, id + 1 in the low 32 (0: empty).
    private var slots: [UInt64]
    private var mask: Int
    private(set) var count = 0

    init(capacity: Int = 256) {
        var n = 16
        while n < capacity * 2 { n <<= 1 }
        slots = Array(repeating: 0, count: n)
        mask = n - 1
    }

    /// The id stored with `hash` whose key `matches` accepts, or nil.
    @inline(__always)
    func find(_ hash: UInt32, _ matches: (Int32) -> Bool) -> Int32? {
        var i = Int(hash) & mask
        let tag = UInt64(hash) << 32
        while true {
            let s = slots[i]
            if s == 0 { return nil }
            if s & 0xFFFF_FFFF_0000_0000 == tag, matches(Int32(truncatingIfNeeded: s & 0xFFFF_FFFF) - 1) {
                return Int32(truncatingIfNeeded: s & 0xFFFF_FFFF) - 1
            }
            i = (i + 1) & mask
        }
    }

    /// Records `id` under `hash` (the caller has checked it is not there).
    mutating func insert(_ id: Int32, hash: UInt32) {
        if (count + 1) * 2 > slots.count { grow() }
        place(UInt64(hash) << 32 | UInt64(UInt32(bitPattern: id + 1)))
        count += 1
    }

    private mutating func place(_ entry: UInt64) {
        var i = Int(entry >> 32) & mask
        while slots[i] != 0 { i = (i + 1) & mask }
        slots[i] = entry
    }

    private mutating func grow() {
        let old = slots
        slots = Array(repeating: 0, count: old.count * 2)
        mask = slots.count - 1
        for s in old where s != 0 { place(s) }
    }

    /// A 32-bit mix of three integers (a stack's node, state and parent).
    @inline(__always)
    static func hash(_ a: Int32, _ b: Int32, _ c: Int32) -> UInt32 {
        var h = UInt32(bitPattern: a) &* 0x9E37_79B1
        h = (h ^ (h >> 15) ^ UInt32(bitPattern: b)) &* 0x85EB_CA77
        h = (h ^ (h >> 13) ^ UInt32(bitPattern: c)) &* 0xC2B2_AE3D
        return h ^ (h >> 16)
    }

    /// A 32-bit mix of a sequence of integers and a seed.
    @inline(__always)
    static func hash(_ values: [Int32], seed: UInt32) -> UInt32 {
        var h = seed &* 0x9E37_79B1 ^ UInt32(truncatingIfNeeded: values.count)
        for v in values { h = (h ^ (h >> 15) ^ UInt32(bitPattern: v)) &* 0x85EB_CA77 }
        h = (h ^ (h >> 13)) &* 0xC2B2_AE3D
        return h ^ (h >> 16)
    }
}
