/// An open-addressing hash set of byte strings, each given a dense index in insertion order.
///
/// Token texts and BPE pieces are looked up by their bytes straight out of the input buffer, so a
/// lookup must not build a `String` or an `Array`: keys live in one contiguous byte store and
/// lookups take a raw pointer and a length.
struct ByteStringTable: Sendable {
    private var store: [UInt8] = []
    private var starts: [Int32] = [0]
    private var hashes: [UInt32] = []
    /// Entry index + 1 per slot; 0 means empty. Capacity is a power of two kept at most half full.
    private var slots: [Int32]
    private var mask: Int

    init(expectedCount: Int = 16) {
        var cap = 16
        while cap < expectedCount * 2 { cap <<= 1 }
        slots = [Int32](repeating: 0, count: cap)
        mask = cap - 1
        hashes.reserveCapacity(expectedCount)
        starts.reserveCapacity(expectedCount + 1)
    }

    /// Number of distinct strings.
    var count: Int { hashes.count }

    @inline(__always)
    private static func hash(_ p: UnsafePointer<UInt8>, _ n: Int) -> UInt32 {
        // FNV-1a: short keys, no allocation, good enough spread for token texts.
        var h: UInt32 = 2_166_136_261
        for i in 0..<n { h = (h ^ UInt32(p[i])) &* 16_777_619 }
        return h
    }

    /// The index of the string `bytes[0..<count]`, if present.
    @inline(__always)
    func index(of p: UnsafePointer<UInt8>, count n: Int) -> Int? {
        let h = ByteStringTable.hash(p, n)
        var slot = Int(h) & mask
        return store.withUnsafeBufferPointer { s -> Int? in
            while true {
                let e = Int(slots[slot]) - 1
                if e < 0 { return nil }
                if hashes[e] == h {
                    let a = Int(starts[e]), b = Int(starts[e + 1])
                    if b - a == n && (n == 0 || memcmpBytes(s.baseAddress! + a, p, n)) { return e }
                }
                slot = (slot + 1) & mask
            }
        }
    }

    /// The index of `bytes`, if present.
    func index(of bytes: [UInt8]) -> Int? {
        bytes.withUnsafeBufferPointer { b in
            guard let base = b.baseAddress else { return emptyIndex() }
            return index(of: base, count: b.count)
        }
    }

    private func emptyIndex() -> Int? {
        var dummy: UInt8 = 0
        return withUnsafePointer(to: &dummy) { index(of: $0, count: 0) }
    }

    /// Inserts `bytes` if absent; returns its index and whether it was new.
    @discardableResult
    mutating func insert(_ bytes: [UInt8]) -> (index: Int, inserted: Bool) {
        if let e = index(of: bytes) { return (e, false) }
        if (count + 1) * 2 > slots.count { grow() }
        let h: UInt32 = bytes.withUnsafeBufferPointer { b in
            var dummy: UInt8 = 0
            return b.baseAddress.map { ByteStringTable.hash($0, b.count) } ?? ByteStringTable.hash(&dummy, 0)
        }
        let e = count
        store.append(contentsOf: bytes)
        starts.append(Int32(store.count))
        hashes.append(h)
        place(entry: e, hash: h)
        return (e, true)
    }

    /// The bytes of entry `e`.
    func bytes(at e: Int) -> ArraySlice<UInt8> { store[Int(starts[e])..<Int(starts[e + 1])] }

    private mutating func place(entry e: Int, hash h: UInt32) {
        var slot = Int(h) & mask
        while slots[slot] != 0 { slot = (slot + 1) & mask }
        slots[slot] = Int32(e + 1)
    }

    private mutating func grow() {
        let cap = slots.count * 2
        slots = [Int32](repeating: 0, count: cap)
        mask = cap - 1
        for e in 0..<count { place(entry: e, hash: hashes[e]) }
    }
}

@inline(__always)
func memcmpBytes(_ a: UnsafePointer<UInt8>, _ b: UnsafePointer<UInt8>, _ n: Int) -> Bool {
    for i in 0..<n where a[i] != b[i] { return false }
    return true
}
