/// A fast 64-bit hash of a byte range, eight bytes at a time in four independent lanes: the
/// checksum of prompt-cache payloads (hundreds of kilobytes per block, hashed on every restore)
/// and of model files' fingerprints. It detects corruption and mix-ups, not tampering.
enum ContentHash {
    private static let prime1: UInt64 = 0x9e37_79b9_7f4a_7c15
    private static let prime2: UInt64 = 0xc2b2_ae3d_27d4_eb4f

    /// The hash of `bytes`, continuing from `seed`.
    static func hash(_ bytes: UnsafeRawBufferPointer, seed: UInt64 = 0) -> UInt64 {
        var a = seed ^ prime1, b = seed &+ prime2, c = ~seed, d = seed &* prime1 &+ 1
        let words = bytes.count / 8
        var i = 0
        if let base = bytes.baseAddress {
            // Four lanes keep four multiplies in flight: one lane would wait on its multiply's
            // latency at every word.
            while i + 4 <= words {
                a = mix(a, base.loadUnaligned(fromByteOffset: i * 8, as: UInt64.self))
                b = mix(b, base.loadUnaligned(fromByteOffset: (i + 1) * 8, as: UInt64.self))
                c = mix(c, base.loadUnaligned(fromByteOffset: (i + 2) * 8, as: UInt64.self))
                d = mix(d, base.loadUnaligned(fromByteOffset: (i + 3) * 8, as: UInt64.self))
                i += 4
            }
            while i < words {
                a = mix(a, base.loadUnaligned(fromByteOffset: i * 8, as: UInt64.self))
                i += 1
            }
        }
        var tail: UInt64 = 0
        for j in stride(from: bytes.count - 1, through: words * 8, by: -1) { tail = tail << 8 | UInt64(bytes[j]) }
        var h = a ^ rotate(b, 17) ^ rotate(c, 31) ^ rotate(d, 47) ^ mix(UInt64(bytes.count), tail)
        h ^= h >> 33
        h = h &* 0xff51_afd7_ed55_8ccd  // murmur3's finaliser: wrapping by definition
        h ^= h >> 33
        h = h &* 0xc4ce_b9fe_1a85_ec53
        h ^= h >> 33
        return h
    }

    @inline(__always) private static func mix(_ lane: UInt64, _ word: UInt64) -> UInt64 {
        rotate((lane ^ word) &* prime1, 31) &* prime2  // wrapping by definition
    }

    @inline(__always) private static func rotate(_ x: UInt64, _ r: UInt64) -> UInt64 { x << r | x >> (64 - r) }
}
