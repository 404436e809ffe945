import CTensor
import Foundation
import Testing

/// Q8_0 KV rows: the quantizer against an independent scalar reference on every tier, and the
/// attention kernels reading Q8_0 blocks against float64 attention over the same dequantized
/// values, against an F32 cache, paged against contiguous and batched against alone.
@Suite struct Q8KVCacheTests {
    static let q8 = Int32(LOOM_TYPE_Q8_0.rawValue)

    /// ggml's Q8_0 quantization written out independently: d = max|x| / 127 rounded to F16,
    /// q = x · (1/d) rounded half away from zero (with the unrounded d).
    static func referenceBlocks(_ x: [Float]) -> [UInt8] {
        var out: [UInt8] = []
        for b in stride(from: 0, to: x.count, by: 32) {
            let block = x[b..<(b + 32)]
            let amax = block.map { abs($0) }.max()!
            let d = amax / 127
            let id: Float = d != 0 ? 1 / d : 0
            let h = loom_fp32_to_fp16(d)
            out += [UInt8(h & 0xff), UInt8(h >> 8)]
            out += block.map { UInt8(bitPattern: Int8(($0 * id).rounded(.toNearestOrAwayFromZero))) }
        }
        return out
    }

    /// Rows with ordinary values, an all-zero block, a tiny-scale block and exact halves (where
    /// half-away and half-even rounding differ: with max 127 the scale is 1 and 2.5 → 3).
    static func testRows() -> [Float] {
        var gen = OpsSupport.Numbers(seed: 81)
        var x = gen.floats(32 * 6, -3, 3)
        x += [Float](repeating: 0, count: 32)
        x += gen.floats(32, -1e-6, 1e-6)
        x += [127, 2.5, -2.5, 0.5, -0.5, 1.5, -1.5, 126.5] + (0..<24).map { Float($0) - 11.5 }
        return x
    }

    @Test func quantizerMatchesTheScalarReferenceOnEveryTier() {
        let x = Self.testRows()
        let expected = Self.referenceBlocks(x)
        #expect(loom_kv_row_bytes(Self.q8, Int64(x.count)) == Int64(expected.count))
        OpsSupport.forEachTier { tier in
            var got = [UInt8](repeating: 0xaa, count: expected.count)
            loom_kv_quantize_q8_0_isa(Int32(tier.rawValue), &got, x, Int64(x.count))
            #expect(got == expected, "tier \(tier)")
            var stored = [UInt8](repeating: 0xaa, count: expected.count)
            #expect(loom_kv_store_row(Self.q8, &stored, x, Int64(x.count)) == 0)
            #expect(stored == expected, "tier \(tier) through loom_kv_store_row")
        }
    }

    @Test func roundTripErrsAtMostHalfAStepPerBlock() {
        let x = Self.testRows()
        var blocks = [UInt8](repeating: 0, count: Int(loom_kv_row_bytes(Self.q8, Int64(x.count))))
        _ = loom_kv_store_row(Self.q8, &blocks, x, Int64(x.count))
        var back = [Float](repeating: .nan, count: x.count)
        loom_dequantize_row(Self.q8, blocks, &back, Int64(x.count))
        for b in stride(from: 0, to: x.count, by: 32) {
            let amax = x[b..<(b + 32)].map { abs($0) }.max()!
            let d = amax / 127
            let d16 = loom_fp16_to_fp32(loom_fp32_to_fp16(d))
            // Half a step of the scale quantized with, plus what rounding the scale to F16 moves.
            let bound = d / 2 + abs(d16 - d) * 127 + 1e-12
            for i in b..<(b + 32) { #expect(abs(back[i] - x[i]) <= bound, "element \(i): \(x[i]) → \(back[i])") }
        }
    }

    @Test func rowsThatAreNotWholeBlocksAreRefused() {
        let x = [Float](repeating: 1, count: 40)
        var out = [UInt8](repeating: 0, count: 64)
        #expect(loom_kv_row_bytes(Self.q8, 40) == 0)
        #expect(loom_kv_store_row(Self.q8, &out, x, 40) == -1)
        #expect(loom_kv_row_bytes(Int32(LOOM_TYPE_F16.rawValue), 40) == 80)
        #expect(loom_kv_row_bytes(Int32(LOOM_TYPE_Q4_0.rawValue), 32) == 0)
    }

    /// Keys and values of `positions` positions, as F32 and as Q8_0 rows.
    struct Cache {
        let nHead: Int, nKVHead: Int, headDim: Int, positions: Int
        var width: Int { nKVHead * headDim }
        let k: [Float], v: [Float]
        let kq: [UInt8], vq: [UInt8]
        var rowBytes: Int { Int(loom_kv_row_bytes(Q8KVCacheTests.q8, Int64(width))) }

        init(nHead: Int, nKVHead: Int, headDim: Int, positions: Int, seed: UInt64) {
            self.nHead = nHead
            self.nKVHead = nKVHead
            self.headDim = headDim
            self.positions = positions
            var gen = OpsSupport.Numbers(seed: seed)
            k = gen.floats(positions * nKVHead * headDim, -2, 2)
            v = gen.floats(positions * nKVHead * headDim, -2, 2)
            let w = nKVHead * headDim, rb = Int(loom_kv_row_bytes(Q8KVCacheTests.q8, Int64(w)))
            func quantize(_ x: [Float]) -> [UInt8] {
                var out = [UInt8](repeating: 0, count: positions * rb)
                for p in 0..<positions {
                    x.withUnsafeBufferPointer { xp in out.withUnsafeMutableBytes { o in
                        _ = loom_kv_store_row(Q8KVCacheTests.q8, o.baseAddress! + p * rb, xp.baseAddress! + p * w, Int64(w))
                    } }
                }
                return out
            }
            kq = quantize(k)
            vq = quantize(v)
        }

        /// The values a Q8_0 cache holds.
        func dequantized(_ q: [UInt8]) -> [Float] {
            var out = [Float](repeating: 0, count: positions * width)
            loom_dequantize_row(Q8KVCacheTests.q8, q, &out, Int64(positions * width))
            return out
        }

        /// Float64 attention of one query over positions [0, nKV) of keys `kk` and values `vv`.
        func reference(q: [Float], nKV: Int, scale: Float, _ kk: [Float], _ vv: [Float]) -> [Double] {
            let g = nHead / nKVHead
            var out = [Double](repeating: 0, count: nHead * headDim)
            for h in 0..<nHead {
                let kvh = h / g
                let s = (0..<nKV).map { t in
                    (0..<headDim).reduce(0.0) { $0 + Double(q[h * headDim + $1]) * Double(kk[t * width + kvh * headDim + $1]) }
                        * Double(scale)
                }
                let m = s.max()!
                let e = s.map { exp($0 - m) }
                let z = e.reduce(0, +)
                for t in 0..<nKV {
                    for i in 0..<headDim { out[h * headDim + i] += e[t] / z * Double(vv[t * width + kvh * headDim + i]) }
                }
            }
            return out
        }

        func attend(q: [Float], nKV: Int, scale: Float, table: [Int32]? = nil, blockSize: Int = 0,
                    k: [UInt8]? = nil, v: [UInt8]? = nil) -> [Float] {
            var out = [Float](repeating: .nan, count: nHead * headDim)
            (k ?? kq).withUnsafeBytes { kb in (v ?? vq).withUnsafeBytes { vb in (table ?? [0]).withUnsafeBufferPointer { t in
                var d = loom_attention_desc(n_head: Int64(nHead), n_kv_head: Int64(nKVHead), head_dim: Int64(headDim),
                                            kv_type: Q8KVCacheTests.q8, kv_stride: Int64(width), k: kb.baseAddress!,
                                            v: vb.baseAddress!, scale: scale, block_table: table == nil ? nil : t.baseAddress,
                                            block_size: Int64(blockSize), window: 0)
                var scratch = [Float](repeating: 0, count: max(loom_attention_scratch_floats(&d, Int64(nKV)), 1))
                #expect(loom_attention(&d, q, &out, Int64(nKV), 0, Int64(nHead), &scratch) == 0)
            } } }
            return out
        }
    }

    @Test(arguments: [(6, 2, 64), (4, 4, 32), (2, 1, 128), (14, 2, 32)])
    func attentionReadsTheBlocksExactly(nHead: Int, nKVHead: Int, headDim: Int) {
        let cache = Cache(nHead: nHead, nKVHead: nKVHead, headDim: headDim, positions: 40, seed: 82)
        let kd = cache.dequantized(cache.kq), vd = cache.dequantized(cache.vq)
        var gen = OpsSupport.Numbers(seed: 83)
        let scale = 1 / Float(headDim).squareRoot()
        OpsSupport.forEachTier { tier in
            for nKV in [1, 7, 40] {
                let q = gen.floats(nHead * headDim, -2, 2)
                let out = cache.attend(q: q, nKV: nKV, scale: scale)
                // The kernel computes attention over exactly the values the blocks hold...
                let exact = cache.reference(q: q, nKV: nKV, scale: scale, kd, vd)
                #expect(OpsSupport.maxRelError(out, exact) < 5e-6, "tier \(tier) nKV \(nKV)")
                // ...which are close to the F32 keys and values they were quantized from.
                let f32 = cache.reference(q: q, nKV: nKV, scale: scale, cache.k, cache.v)
                let worst = zip(out, f32).map { abs(Double($0) - $1) }.max()!
                #expect(worst < 2e-2, "tier \(tier) nKV \(nKV): Q8_0 vs F32 \(worst)")
            }
        }
    }

    @Test func pagedEqualsContiguousBitForBit() {
        let cache = Cache(nHead: 4, nKVHead: 2, headDim: 32, positions: 13, seed: 84)
        let blockSize = 4, blocks = 4
        let table: [Int32] = [5, 1, 3, 0]
        // Scatter the Q8_0 rows into a pool of 6 blocks, other rows left as garbage.
        let rb = cache.rowBytes
        var pk = [UInt8](repeating: 0x7f, count: 6 * blockSize * rb), pv = pk
        for p in 0..<cache.positions {
            let row = Int(table[p / blockSize]) * blockSize + p % blockSize
            pk[(row * rb)..<((row + 1) * rb)] = cache.kq[(p * rb)..<((p + 1) * rb)]
            pv[(row * rb)..<((row + 1) * rb)] = cache.vq[(p * rb)..<((p + 1) * rb)]
        }
        #expect(blocks * blockSize >= cache.positions)
        var gen = OpsSupport.Numbers(seed: 85)
        let q = gen.floats(4 * 32)
        OpsSupport.forEachTier { tier in
            for nKV in [1, 4, 9, 13] {
                let contiguous = cache.attend(q: q, nKV: nKV, scale: 0.2)
                let paged = cache.attend(q: q, nKV: nKV, scale: 0.2, table: table, blockSize: blockSize, k: pk, v: pv)
                #expect(paged.map(\.bitPattern) == contiguous.map(\.bitPattern), "tier \(tier) nKV \(nKV)")
            }
        }
    }

    @Test(arguments: [Int32(1), 2])
    func batchEqualsAloneBitForBit(threads: Int32) throws {
        do {
            // Two sequences in one contiguous pool of Q8_0 rows: a 3-token chunk at 5 and a decode at 9.
            let cache = Cache(nHead: 4, nKVHead: 2, headDim: 64, positions: 16, seed: 86)
            let qWidth = 4 * 64
            var gen = OpsSupport.Numbers(seed: 87)
            let q = gen.floats(4 * qWidth)
            let tableA: [Int32] = [0, 1], tableB: [Int32] = [2, 3, 1]
            let pool = try #require(loom_pool_create(threads))
            defer { loom_pool_destroy(pool) }
            var batched = [Float](repeating: 0, count: 4 * qWidth), alone = batched
            cache.kq.withUnsafeBytes { kb in cache.vq.withUnsafeBytes { vb in
                tableA.withUnsafeBufferPointer { ta in tableB.withUnsafeBufferPointer { tb in
                    var d = loom_attention_desc(n_head: 4, n_kv_head: 2, head_dim: 64, kv_type: Self.q8, kv_stride: 128,
                                                k: kb.baseAddress!, v: vb.baseAddress!, scale: 0.125, block_table: nil,
                                                block_size: 4, window: 0)
                    let segs = [
                        loom_attention_segment(row: 0, n_tokens: 3, pos0: 5, block_table: ta.baseAddress),
                        loom_attention_segment(row: 3, n_tokens: 1, pos0: 9, block_table: tb.baseAddress),
                    ]
                    var scratch = [Float](repeating: 0, count: loom_par_attention_scratch_floats(pool, &d, 16))
                    #expect(loom_par_attention_batch(pool, &d, segs, 2, 2, q, Int64(qWidth), &batched, Int64(qWidth), 16,
                                                     &scratch) == 0)
                    for (row, pos, table) in [(0, 5, ta), (1, 6, ta), (2, 7, ta), (3, 9, tb)] {
                        d.block_table = table.baseAddress
                        q.withUnsafeBufferPointer { qp in alone.withUnsafeMutableBufferPointer { op in
                            _ = loom_attention(&d, qp.baseAddress! + row * qWidth, op.baseAddress! + row * qWidth,
                                               Int64(pos + 1), 0, 4, &scratch)
                        } }
                    }
                } }
            } }
            #expect(batched.map(\.bitPattern) == alone.map(\.bitPattern))
        }
    }

    @Test func headsThatAreNotWholeBlocksAreRejected() {
        let cache = Cache(nHead: 2, nKVHead: 1, headDim: 32, positions: 2, seed: 88)
        cache.kq.withUnsafeBytes { kb in
            var d = loom_attention_desc(n_head: 4, n_kv_head: 2, head_dim: 16, kv_type: Self.q8, kv_stride: 32,
                                        k: kb.baseAddress!, v: kb.baseAddress!, scale: 1, block_table: nil,
                                        block_size: 0, window: 0)
            var scratch = [Float](repeating: 0, count: 64)
            let q = [Float](repeating: 0, count: 64)
            var out = q
            #expect(loom_attention(&d, q, &out, 1, 0, 4, &scratch) == -1)
        }
    }
}
