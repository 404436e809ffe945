import CTensor
import Testing

/// A batch of too few (token, KV head) units to share evenly among the threads (one sequence
/// decoding over a long context) has each query's attention spread over the threads in parts:
/// scores over a split of the positions, values by parts of the head dimension. Every result must
/// still be loom_attention's bit for bit, on every tier and cache type, paged and windowed.
struct ThinAttentionTests {
    static let blockSize = 16

    /// One case: the model's heads, the batch's tokens (a segment of `tokens` queries ending at
    /// position `positions` - 1) and the cache.
    struct Shape: CustomTestStringConvertible, Sendable {
        var heads, kvHeads, headDim, tokens, positions, window: Int
        var kvType: Int32
        var testDescription: String {
            "\(heads)/\(kvHeads) heads × \(headDim), \(tokens) token(s) at \(positions), window \(window), type \(kvType)"
        }
    }

    static let f32 = Int32(LOOM_TYPE_F32.rawValue), f16 = Int32(LOOM_TYPE_F16.rawValue),
        q8 = Int32(LOOM_TYPE_Q8_0.rawValue)

    static let shapes: [Shape] = [
        // SmolLM2's heads: three units, values in two parts.
        Shape(heads: 9, kvHeads: 3, headDim: 64, tokens: 1, positions: 300, window: 0, kvType: f16),
        Shape(heads: 9, kvHeads: 3, headDim: 64, tokens: 1, positions: 211, window: 0, kvType: f32),
        Shape(heads: 9, kvHeads: 3, headDim: 64, tokens: 1, positions: 257, window: 0, kvType: q8),
        // One KV head (Gemma 3's layout): one unit, values in three parts, the last with a window.
        Shape(heads: 4, kvHeads: 1, headDim: 96, tokens: 1, positions: 400, window: 0, kvType: f16),
        Shape(heads: 4, kvHeads: 1, headDim: 96, tokens: 1, positions: 400, window: 200, kvType: q8),
        // A run of three tokens on one KV head; head dimensions with scalar tails (one part of 44,
        // and parts of 32 and 38).
        Shape(heads: 2, kvHeads: 1, headDim: 44, tokens: 3, positions: 170, window: 0, kvType: f32),
        Shape(heads: 3, kvHeads: 1, headDim: 70, tokens: 1, positions: 177, window: 0, kvType: f16),
    ]

    @Test("A thin batch spreads each query over the threads and equals loom_attention bit for bit",
          arguments: shapes)
    func thinBatchEqualsAlone(shape: Shape) throws {
        let width = shape.kvHeads * shape.headDim, qWidth = shape.heads * shape.headDim
        let rowBytes = Int(loom_kv_row_bytes(shape.kvType, Int64(width)))
        let blocks = (shape.positions + Self.blockSize - 1) / Self.blockSize
        // Blocks in a shuffled order within a pool with one spare block.
        let table: [Int32] = (0..<blocks).map { Int32(($0 * 7 + 3) % (blocks + 1)) }
        #expect(Set(table).count == blocks)
        var gen = OpsSupport.Numbers(seed: 29)
        let poolRows = (blocks + 1) * Self.blockSize
        var k = [UInt8](repeating: 0, count: poolRows * rowBytes), v = k
        for p in 0..<shape.positions {
            let row = Int(table[p / Self.blockSize]) * Self.blockSize + p % Self.blockSize
            let key = gen.floats(width, -2, 2), value = gen.floats(width, -2, 2)
            k.withUnsafeMutableBytes { #expect(loom_kv_store_row(shape.kvType, $0.baseAddress! + row * rowBytes, key, Int64(width)) == 0) }
            v.withUnsafeMutableBytes { #expect(loom_kv_store_row(shape.kvType, $0.baseAddress! + row * rowBytes, value, Int64(width)) == 0) }
        }
        let q = gen.floats(shape.tokens * qWidth, -1, 1)
        // Two threads, and four: with four, threads' value parts start and end inside KV groups.
        for threads in [2, 4] {
            let pool = try #require(loom_pool_create(Int32(threads)))
            defer { loom_pool_destroy(pool) }
            try OpsSupport.forEachTier { tier in
                var batched = [Float](repeating: .nan, count: shape.tokens * qWidth), alone = batched
                try k.withUnsafeBytes { kb in try v.withUnsafeBytes { vb in try table.withUnsafeBufferPointer { t in
                    var d = loom_attention_desc(n_head: Int64(shape.heads), n_kv_head: Int64(shape.kvHeads),
                                                head_dim: Int64(shape.headDim), kv_type: shape.kvType, kv_stride: Int64(width),
                                                k: kb.baseAddress!, v: vb.baseAddress!, scale: 0.125, block_table: t.baseAddress,
                                                block_size: Int64(Self.blockSize), window: Int64(shape.window))
                    var segment = loom_attention_segment(row: 0, n_tokens: Int64(shape.tokens),
                                                         pos0: Int64(shape.positions - shape.tokens), block_table: t.baseAddress)
                    try #require(loom_par_attention_batch_is_thin(pool, &d, &segment, 1, 1) == 1, "tier \(tier), \(threads) threads")
                    var scratch = [Float](repeating: .nan, count: loom_par_attention_scratch_floats(pool, &d, Int64(shape.positions)))
                    #expect(loom_par_attention_batch(pool, &d, &segment, 1, 1, q, Int64(qWidth), &batched, Int64(qWidth),
                                                     Int64(shape.positions), &scratch) == 0)
                    for token in 0..<shape.tokens {
                        let n = shape.positions - shape.tokens + token + 1
                        q.withUnsafeBufferPointer { qp in alone.withUnsafeMutableBufferPointer { op in
                            #expect(loom_attention(&d, qp.baseAddress! + token * qWidth, op.baseAddress! + token * qWidth,
                                                   Int64(n), 0, Int64(shape.heads), &scratch) == 0)
                        } }
                    }
                } } }
                #expect(!alone.contains { $0.isNaN })
                #expect(batched.map(\.bitPattern) == alone.map(\.bitPattern), "tier \(tier), \(threads) threads")
            }
        }
    }

    @Test func batchesThatShareEvenlyOrSeeFewPositionsAreNotThin() throws {
        let pool = try #require(loom_pool_create(2))
        defer { loom_pool_destroy(pool) }
        let one = try #require(loom_pool_create(1))
        defer { loom_pool_destroy(one) }
        // The predicate reads the desc's geometry, never the cache.
        let cache = UnsafeMutablePointer<Float>.allocate(capacity: 1)
        defer { cache.deallocate() }
        var d = loom_attention_desc(n_head: 9, n_kv_head: 3, head_dim: 64, kv_type: Self.f32, kv_stride: 192, k: cache,
                                    v: cache, scale: 1, block_table: nil, block_size: 16, window: 0)
        func thin(_ segments: [loom_attention_segment], firstTiled: Int, pool: OpaquePointer) -> Int32 {
            loom_par_attention_batch_is_thin(pool, &d, segments, Int32(segments.count), Int32(firstTiled))
        }
        let decode = loom_attention_segment(row: 0, n_tokens: 1, pos0: 500, block_table: nil)
        #expect(thin([decode], firstTiled: 1, pool: pool) == 1)
        // Two sequences: six units, three for each thread.
        #expect(thin([decode, decode], firstTiled: 2, pool: pool) == 0)
        // A short context: the idle thread waits less than the extra dispatches cost.
        #expect(thin([loom_attention_segment(row: 0, n_tokens: 1, pos0: 20, block_table: nil)], firstTiled: 1, pool: pool) == 0)
        // One thread: nothing to spread over.
        #expect(thin([decode], firstTiled: 1, pool: one) == 0)
        // A prompt chunk brings work enough of its own.
        let chunk = loom_attention_segment(row: 1, n_tokens: 16, pos0: 500, block_table: nil)
        #expect(thin([decode, chunk], firstTiled: 1, pool: pool) == 0)
    }
}
