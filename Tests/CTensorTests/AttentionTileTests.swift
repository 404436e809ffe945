import CTensor
import Foundation
import Testing

/// A prompt chunk's attention in tiles (loom_attention_tile through loom_par_attention_batch and
/// loom_par_attention) against float64 attention over the values the cache holds, for F32, F16
/// and Q8_0 caches, grouped heads, windows and paged tables; and a query's bits independent of
/// its tile, its neighbours and the thread count.
@Suite struct AttentionTileTests {
    struct Shape: CustomStringConvertible {
        let nHead: Int, nKVHead: Int, headDim: Int, kvType: Int32, window: Int
        var width: Int { nKVHead * headDim }
        var description: String { "\(nHead)/\(nKVHead)x\(headDim) type \(kvType) window \(window)" }
    }

    static let shapes = [
        Shape(nHead: 9, nKVHead: 3, headDim: 64, kvType: 1, window: 0),
        Shape(nHead: 4, nKVHead: 4, headDim: 32, kvType: 0, window: 0),
        Shape(nHead: 2, nKVHead: 1, headDim: 256, kvType: 8, window: 0),
        Shape(nHead: 8, nKVHead: 2, headDim: 64, kvType: 0, window: 13),
        Shape(nHead: 6, nKVHead: 2, headDim: 32, kvType: 8, window: 9),
    ]

    /// A paged pool holding `positions` rows of keys and values in `shape`'s type, block size 16,
    /// blocks in reverse order; `held`: the values the cache holds, as floats.
    struct Pool {
        let shape: Shape, positions: Int
        let k: [UInt8], v: [UInt8], table: [Int32]
        let heldK: [Float], heldV: [Float]
        static let blockSize = 16

        init(_ shape: Shape, positions: Int, seed: UInt64) {
            self.shape = shape
            self.positions = positions
            var gen = OpsSupport.Numbers(seed: seed)
            let blocks = (positions + Self.blockSize - 1) / Self.blockSize
            let table = (0..<blocks).map { Int32(blocks - 1 - $0) }
            self.table = table
            let keys = Self.fill(gen.floats(positions * shape.width, -2, 2), shape, positions, table)
            let values = Self.fill(gen.floats(positions * shape.width, -2, 2), shape, positions, table)
            (k, heldK, v, heldV) = (keys.pool, keys.held, values.pool, values.held)
        }

        /// Rows of `x` stored in `table`'s blocks, and the values the stored rows hold.
        static func fill(_ x: [Float], _ shape: Shape, _ positions: Int, _ table: [Int32]) -> (pool: [UInt8], held: [Float]) {
            let rb = Int(loom_kv_row_bytes(shape.kvType, Int64(shape.width)))
            var pool = [UInt8](repeating: 0, count: table.count * blockSize * rb)
            var held = [Float](repeating: 0, count: positions * shape.width)
            for p in 0..<positions {
                let row = Int(table[p / blockSize]) * blockSize + p % blockSize
                x.withUnsafeBufferPointer { xp in pool.withUnsafeMutableBytes { o in
                    _ = loom_kv_store_row(shape.kvType, o.baseAddress! + row * rb, xp.baseAddress! + p * shape.width,
                                          Int64(shape.width))
                    held.withUnsafeMutableBufferPointer { h in
                        loom_dequantize_row(shape.kvType, o.baseAddress! + row * rb, h.baseAddress! + p * shape.width,
                                            Int64(shape.width))
                    }
                } }
            }
            return (pool, held)
        }

        /// Float64 attention of the query at position `pos` (all heads) over what it sees.
        func reference(q: ArraySlice<Float>, pos: Int, scale: Float) -> [Double] {
            let s = shape, g = s.nHead / s.nKVHead, hd = s.headDim
            let lo = s.window > 0 && pos + 1 > s.window ? pos + 1 - s.window : 0
            var out = [Double](repeating: 0, count: s.nHead * hd)
            for h in 0..<s.nHead {
                let kvh = h / g
                let scores = (lo...pos).map { t in
                    (0..<hd).reduce(0.0) { $0 + Double(q[q.startIndex + h * hd + $1]) * Double(heldK[t * s.width + kvh * hd + $1]) }
                        * Double(scale)
                }
                let m = scores.max()!
                let e = scores.map { exp($0 - m) }
                let z = e.reduce(0, +)
                for (i, t) in (lo...pos).enumerated() {
                    for c in 0..<hd { out[h * hd + c] += e[i] / z * Double(heldV[t * s.width + kvh * hd + c]) }
                }
            }
            return out
        }

        /// Attention of `segments` (pos0, tokens), queries stacked in that order, as one batch
        /// whose segments from `firstTiled` on are prompt chunks, on `threads` threads.
        func attend(q: [Float], segments: [(pos0: Int, tokens: Int)], firstTiled: Int, threads: Int32,
                    scale: Float) throws -> [Float] {
            let s = shape, qWidth = s.nHead * s.headDim
            let rows = segments.reduce(0) { $0 + $1.tokens }
            var out = [Float](repeating: .nan, count: rows * qWidth)
            let pool = try #require(loom_pool_create(threads))
            defer { loom_pool_destroy(pool) }
            let rc = k.withUnsafeBytes { kb in v.withUnsafeBytes { vb in table.withUnsafeBufferPointer { tb in
                var d = loom_attention_desc(n_head: Int64(s.nHead), n_kv_head: Int64(s.nKVHead), head_dim: Int64(s.headDim),
                                            kv_type: s.kvType, kv_stride: Int64(s.width), k: kb.baseAddress!,
                                            v: vb.baseAddress!, scale: scale, block_table: tb.baseAddress,
                                            block_size: Int64(Self.blockSize), window: Int64(s.window))
                var row = 0
                let segs = segments.map { g -> loom_attention_segment in
                    defer { row += g.tokens }
                    return loom_attention_segment(row: Int64(row), n_tokens: Int64(g.tokens), pos0: Int64(g.pos0),
                                                  block_table: nil)
                }
                var scratch = [Float](repeating: .nan,
                                      count: loom_par_attention_scratch_floats(pool, &d, Int64(positions)))
                return loom_par_attention_batch(pool, &d, segs, Int32(segs.count), Int32(firstTiled), q, Int64(qWidth),
                                                &out, Int64(qWidth), Int64(positions), &scratch)
            } } }
            #expect(rc == 0)
            return out
        }
    }

    @Test(arguments: shapes)
    func chunksMatchFloat64OnEveryTier(_ shape: Shape) throws {
        let pos0 = 5, tokens = 61
        let pool = Pool(shape, positions: pos0 + tokens, seed: 40)
        var gen = OpsSupport.Numbers(seed: 41)
        let qWidth = shape.nHead * shape.headDim
        let q = gen.floats(tokens * qWidth, -2, 2)
        let scale = 1 / Float(shape.headDim).squareRoot()
        try OpsSupport.forEachTier { tier in
            let out = try pool.attend(q: q, segments: [(pos0, tokens)], firstTiled: 0, threads: 2, scale: scale)
            for t in 0..<tokens {
                let got = Array(out[(t * qWidth)..<((t + 1) * qWidth)])
                let ref = pool.reference(q: q[(t * qWidth)..<((t + 1) * qWidth)], pos: pos0 + t, scale: scale)
                #expect(OpsSupport.maxRelError(got, ref) < 5e-6, "tier \(tier) \(shape) token \(t)")
            }
        }
    }

    @Test(arguments: shapes)
    func aQueryGetsTheSameBitsInAnyTileBatchOrThreadCount(_ shape: Shape) throws {
        let pool = Pool(shape, positions: 70, seed: 42)
        var gen = OpsSupport.Numbers(seed: 43)
        let qWidth = shape.nHead * shape.headDim
        let q = gen.floats(61 * qWidth, -2, 2)
        do {
            let whole = try pool.attend(q: q, segments: [(5, 61)], firstTiled: 0, threads: 1, scale: 0.2)
            let twoThreads = try pool.attend(q: q, segments: [(5, 61)], firstTiled: 0, threads: 2, scale: 0.2)
            #expect(twoThreads.map(\.bitPattern) == whole.map(\.bitPattern))
            // The same queries cut into chunks at other offsets (so into other tiles), beside a
            // decode token attended alone.
            let decodeQ = gen.floats(qWidth, -2, 2)
            let split = try pool.attend(q: decodeQ + q, segments: [(69, 1), (5, 19), (24, 42)], firstTiled: 1,
                                        threads: 2, scale: 0.2)
            #expect(split[qWidth...].map(\.bitPattern) == whole.map(\.bitPattern))
            let alone = try pool.attend(q: decodeQ, segments: [(69, 1)], firstTiled: 1, threads: 1, scale: 0.2)
            #expect(split[..<qWidth].map(\.bitPattern) == alone.map(\.bitPattern))
        }
    }

    @Test func tilesRefuseWhatTheyCannotHold() {
        let shape = Shape(nHead: 9, nKVHead: 3, headDim: 64, kvType: 0, window: 0)
        let pool = Pool(shape, positions: 16, seed: 44)
        let q = [Float](repeating: 0.5, count: 16 * 9 * 64)
        var out = q
        pool.k.withUnsafeBytes { kb in
            var d = loom_attention_desc(n_head: 9, n_kv_head: 3, head_dim: 64, kv_type: 0, kv_stride: 192,
                                        k: kb.baseAddress!, v: kb.baseAddress!, scale: 1, block_table: nil,
                                        block_size: 0, window: 0)
            var scratch = [Float](repeating: 0, count: loom_attention_tile_scratch_floats(&d, 16))
            let most = loom_attention_tile_tokens(&d)
            #expect(most == 8)
            #expect(loom_attention_tile(&d, q, 576, &out, 576, 0, 0, most + 1, 0, &scratch) == -1)  // too many tokens
            #expect(loom_attention_tile(&d, q, 576, &out, 576, 0, 0, 4, 3, &scratch) == -1)         // no such KV head
            #expect(loom_attention_tile(&d, q, 576, &out, 576, 0, 3, 3, 0, &scratch) == -1)         // no tokens
            var odd = d
            odd.head_dim = 12
            odd.kv_stride = 36
            #expect(loom_attention_tiles_supported(&odd) == 0)
            OpsSupport.overridingTier {
                _ = loom_isa_set_thread(Int32(LOOM_ISA_SCALAR.rawValue))
                #expect(loom_attention_tiles_supported(&d) == 0)
                #expect(loom_attention_tile(&d, q, 576, &out, 576, 0, 0, 4, 0, &scratch) == -1)
            }
        }
    }
}
