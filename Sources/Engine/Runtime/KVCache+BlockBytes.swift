/// A run of rows as one contiguous byte image — for each layer, the rows' keys then their
/// values, as stored — so a block of a paged pool can be written to a file and read back into
/// any block of a pool of the same geometry, bit for bit.
extension KVCache {
    /// Bytes of the image of `count` rows.
    func imageBytes(rows count: Int) -> Int { byteCount(positions: count) }

    /// Copies rows `row..<row + count` of every layer into `image` (`imageBytes(rows: count)`).
    func copyRows(from row: Int, count: Int, into image: UnsafeMutableRawBufferPointer) {
        precondition(row >= 0 && row + count <= capacity && image.count == imageBytes(rows: count))
        let pb = positionBytes, bytes = count * pb
        var at = image.baseAddress!
        for l in 0..<layerCount {
            at.copyMemory(from: keys(layer: l) + row * pb, byteCount: bytes)
            at += bytes
            at.copyMemory(from: values(layer: l) + row * pb, byteCount: bytes)
            at += bytes
        }
    }

    /// Writes `image` (made by `copyRows(from:count:into:)`) over rows `row..<row + count`.
    func copyRows(to row: Int, count: Int, from image: UnsafeRawBufferPointer) {
        precondition(row >= 0 && row + count <= capacity && image.count == imageBytes(rows: count))
        let pb = positionBytes, bytes = count * pb
        var at = image.baseAddress!
        for l in 0..<layerCount {
            (mutableKeys(layer: l) + row * pb).copyMemory(from: at, byteCount: bytes)
            at += bytes
            (mutableValues(layer: l) + row * pb).copyMemory(from: at, byteCount: bytes)
            at += bytes
        }
    }
}
