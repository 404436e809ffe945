/// Writes GGUF images byte by byte, so tests can make well-formed files and break them on purpose.
struct GGUFBuilder {
    var bytes: [UInt8] = []

    mutating func u8(_ v: UInt8) { bytes.append(v) }
    mutating func u32(_ v: UInt32) { withUnsafeBytes(of: v.littleEndian) { bytes.append(contentsOf: $0) } }
    mutating func u64(_ v: UInt64) { withUnsafeBytes(of: v.littleEndian) { bytes.append(contentsOf: $0) } }
    mutating func f32(_ v: Float) { u32(v.bitPattern) }
    mutating func string(_ s: String) { u64(UInt64(s.utf8.count)); bytes.append(contentsOf: s.utf8) }

    /// Header: magic, version, tensor count, metadata count.
    mutating func header(version: UInt32 = 3, tensors: UInt64, kvs: UInt64, magic: UInt32 = 0x4655_4747) {
        u32(magic); u32(version); u64(tensors); u64(kvs)
    }
    /// A string-valued key.
    mutating func kv(_ key: String, string value: String) { string(key); u32(8); string(value) }
    /// A u32-valued key.
    mutating func kv(_ key: String, u32 value: UInt32) { string(key); u32(4); u32(value) }
    /// A tensor info entry.
    mutating func tensor(_ name: String, shape: [UInt64], type: UInt32, offset: UInt64) {
        string(name); u32(UInt32(shape.count)); for d in shape { u64(d) }; u32(type); u64(offset)
    }
    /// Zero padding to `alignment`, then `count` data bytes.
    mutating func data(count: Int, alignment: Int = 32) {
        while bytes.count % alignment != 0 { u8(0) }
        bytes.append(contentsOf: repeatElement(0, count: count))
    }

    /// A small valid file: one key, two F32 tensors of 4×2 and 4 elements.
    static func valid() -> [UInt8] {
        var b = GGUFBuilder()
        b.header(tensors: 2, kvs: 1)
        b.kv("general.architecture", string: "llama")
        b.tensor("a", shape: [4, 2], type: 0, offset: 0)
        b.tensor("b", shape: [4], type: 0, offset: 32)
        b.data(count: 48)
        return b.bytes
    }
}
