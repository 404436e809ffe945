/// A bounds-checked little-endian reader over the mapped bytes of a GGUF file.
///
/// Every read checks the bytes left first, so a truncated or hostile file produces a
/// `ModelLoadError` naming the offset instead of reading past the mapping.
struct GGUFCursor {
    let base: UnsafeRawPointer
    let size: Int
    private(set) var offset: Int = 0

    init(base: UnsafeRawPointer, size: Int) {
        self.base = base
        self.size = size
    }

    var remaining: Int { size - offset }

    mutating func require(_ count: Int, _ what: @autoclosure () -> String) throws(ModelLoadError) {
        if count < 0 || count > remaining {
            throw .truncated(offset: offset, needed: count, what: what())
        }
    }

    mutating func read<T: FixedWidthInteger>(_: T.Type, _ what: @autoclosure () -> String) throws(ModelLoadError) -> T {
        try require(MemoryLayout<T>.size, what())
        let v = base.loadUnaligned(fromByteOffset: offset, as: T.self)
        offset += MemoryLayout<T>.size
        return T(littleEndian: v)
    }

    /// A count that must be satisfiable by the bytes left, each element taking at least
    /// `minElementSize` bytes: this bounds every allocation by the file's size.
    mutating func readCount(_ what: @autoclosure () -> String, minElementSize: Int, wide: Bool) throws(ModelLoadError) -> Int {
        let at = offset
        let raw: UInt64 = wide ? try read(UInt64.self, what()) : UInt64(try read(UInt32.self, what()))
        if raw > UInt64(remaining / max(minElementSize, 1)) {
            throw .implausibleSize(offset: at, what: what(), value: raw)
        }
        return Int(raw)
    }

    mutating func readString(_ what: @autoclosure () -> String, wide: Bool) throws(ModelLoadError) -> String {
        let length = try readCount(what(), minElementSize: 1, wide: wide)
        let bytes = UnsafeRawBufferPointer(start: base + offset, count: length)
        offset += length
        return String(decoding: bytes, as: UTF8.self)
    }
}
