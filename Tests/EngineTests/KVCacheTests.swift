import Engine
import Testing

/// The single-sequence KV cache: layout, element types, commit and truncate.
@Suite struct KVCacheTests {
    @Test(arguments: KVCacheType.allCases)
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
