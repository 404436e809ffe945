import CTensor
import Engine
import Testing

/// The single-sequence KV cache: layout, element types, commit and truncate.
@Suite struct KVCacheTests {
    @Test(arguments: [KVCacheType.f32, .f16])
    func storesPerLayerAndPosition(type: KVCacheType) throws {
        let cache = try KVCache(type: type, layers: 2, kvLength: 4, capacity: 3)
        let k: [Float] = [1, -2, 0.5, 1e-3], v: [Float] = [3, 0.1, -0.25, 65504]
        cache.store(layer: 1, position: 2, key: k, value: v)
        cache.commit(count: 3)
        #expect(cache.count == 3)
        func read(_ base: UnsafeRawPointer, _ i: Int) -> Float {
            type == .f32 ? base.assumingMemoryBound(to: Float.self)[i]
                : Float(Float16(bitPattern: base.assumingMemoryBound(to: UInt16.self)[i]))
        }
        for i in 0..<4 {
            // F16 rounds to nearest (0.1 and 1e-3 are not representable); F32 is exact.
            let kk = read(cache.keys(layer: 1), 2 * 4 + i), vv = read(cache.values(layer: 1), 2 * 4 + i)
            #expect(kk == (type == .f32 ? k[i] : Float(Float16(k[i]))))
            #expect(vv == (type == .f32 ? v[i] : Float(Float16(v[i]))))
        }
    }

    /// A Q8_0 cache holds each position as whole 34-byte blocks (an F16 scale, 32 int8) that
    /// dequantize to within half a quantization step of the stored values.
    @Test func storesQ8_0Blocks() throws {
        let cache = try KVCache(type: .q8_0, layers: 2, kvLength: 64, capacity: 3)
        #expect(cache.positionBytes == 68)
        #expect(cache.byteCount(positions: 3) == 2 * 2 * 3 * 68)
        let k = (0..<64).map { Float($0 % 13) / 4 - 1.5 }, v = (0..<64).map { Float($0 % 7) * 0.3 - 0.9 }
        cache.store(layer: 1, position: 2, key: k, value: v)
        for (base, x) in [(cache.keys(layer: 1), k), (cache.values(layer: 1), v)] {
            var back = [Float](repeating: .nan, count: 64)
            loom_dequantize_row(Int32(LOOM_TYPE_Q8_0.rawValue), base + 2 * 68, &back, 64)
            for b in 0..<2 {
                let step = x[(b * 32)..<((b + 1) * 32)].map { abs($0) }.max()! / 127
                for i in (b * 32)..<((b + 1) * 32) { #expect(abs(back[i] - x[i]) <= step * 0.57, "element \(i)") }
            }
        }
    }

    /// Sizes follow bytes per row, not a per-value size: Q8_0 rows are whole blocks of 32.
    @Test func rowBytesPerType() throws {
        #expect(KVCacheType.f32.rowBytes(elements: 64) == 256)
        #expect(KVCacheType.f16.rowBytes(elements: 64) == 128)
        #expect(KVCacheType.q8_0.rowBytes(elements: 64) == 68)
        #expect(KVBlockPool.blockCount(budgetBytes: 68 * 2 * 3 * 16 * 5, type: .q8_0, layers: 3, kvLength: 64,
                                       blockSize: 16) == 5)
        #expect(throws: EngineError.self) { try KVCache(type: .q8_0, layers: 1, kvLength: 40, capacity: 4) }
        #expect(throws: EngineError.self) { try KVCacheType.q8_0.validate(headDimension: 8) }
        try KVCacheType.q8_0.validate(headDimension: 64)
        try KVCacheType.f16.validate(headDimension: 8)
    }

    @Test func truncateAndReset() throws {
        let cache = try KVCache(type: .f32, layers: 1, kvLength: 2, capacity: 8)
        cache.commit(count: 5)
        cache.truncate(to: 2)
        #expect(cache.count == 2)
        cache.truncate(to: 2)
        #expect(cache.count == 2)
        cache.reset()
        #expect(cache.count == 0 && cache.capacity == 8)
    }

    @Test func rejectsEmptyGeometry() {
        #expect(throws: EngineError.self) { try KVCache(type: .f16, layers: 0, kvLength: 4, capacity: 4) }
        #expect(throws: EngineError.self) { try KVCache(type: .f32, layers: 1, kvLength: 4, capacity: Int.max / 2) }
    }
}
