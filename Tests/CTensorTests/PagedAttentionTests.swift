import CTensor
import Testing

/// Attention over a paged KV pool (block tables) against the contiguous layout holding the same
/// rows, and a batched dispatch of several sequences against each sequence alone: both must be
/// bit-identical, since the scheduler promises a sequence the same logits in any company.
struct PagedAttentionTests {
    static let heads = 6, kvHeads = 2, headDim = 20, blockSize = 4

    /// Values that vary by position, head and element.
    static func rows(_ count: Int, width: Int, salt: Int) -> [Float] {
        (0..<count * width).map { i in Float(((i * 37 + salt * 101) % 97) - 48) / 53 }
    }

    static func desc(k: UnsafeRawPointer, v: UnsafeRawPointer, table: UnsafePointer<Int32>?, f16: Bool,
                     window: Int = 0) -> loom_attention_desc {
        loom_attention_desc(n_head: Int64(heads), n_kv_head: Int64(kvHeads), head_dim: Int64(headDim), kv_type: f16 ? 1 : 0,
                            kv_stride: Int64(kvHeads * headDim), k: k, v: v, scale: 0.2, block_table: table,
                            block_size: Int64(blockSize), window: Int64(window))
    }

    /// Keys and values of `positions` positions laid out in a pool of `poolRows` rows through
    /// `table` (rows no position maps to hold NaN).
    static func scatter(_ k: [Float], _ v: [Float], positions: Int, table: [Int32], poolRows: Int) -> ([Float], [Float]) {
        let width = kvHeads * headDim
        var pk = [Float](repeating: .nan, count: poolRows * width), pv = pk
        for p in 0..<positions {
            let row = Int(table[p / blockSize]) * blockSize + p % blockSize
            for e in 0..<width {
                pk[row * width + e] = k[p * width + e]
                pv[row * width + e] = v[p * width + e]
            }
        }
        return (pk, pv)
    }

    @Test("A sliding window equals plain attention over the window's rows, contiguous and paged",
          arguments: [(13, 5), (16, 4), (7, 9), (12, 1)])
    func slidingWindow(positions: Int, window: Int) throws {
        do {
            let width = kvHeadsWidth
            let k = Self.rows(positions, width: width, salt: 7), v = Self.rows(positions, width: width, salt: 8)
            let blocks = (positions + Self.blockSize - 1) / Self.blockSize
            let table: [Int32] = (0..<blocks).map { Int32(blocks - 1 - $0) }
            let (pk, pv) = Self.scatter(k, v, positions: positions, table: table, poolRows: blocks * Self.blockSize)
            let q = Self.rows(1, width: Self.heads * Self.headDim, salt: 9)
            let seen = min(window, positions), first = positions - seen
            var expected = [Float](repeating: 0, count: Self.heads * Self.headDim), windowed = expected, paged = expected
            var scratch = [Float](repeating: 0, count: Self.heads * positions)  // loom_attention_scratch_floats: a row per query head
            k.withUnsafeBytes { kb in v.withUnsafeBytes { vb in
                var plain = Self.desc(k: kb.baseAddress! + first * width * 4, v: vb.baseAddress! + first * width * 4,
                                      table: nil, f16: false)
                #expect(loom_attention(&plain, q, &expected, Int64(seen), 0, Int64(Self.heads), &scratch) == 0)
                var d = Self.desc(k: kb.baseAddress!, v: vb.baseAddress!, table: nil, f16: false, window: window)
                #expect(loom_attention(&d, q, &windowed, Int64(positions), 0, Int64(Self.heads), &scratch) == 0)
            } }
            pk.withUnsafeBytes { kb in pv.withUnsafeBytes { vb in table.withUnsafeBufferPointer { t in
                var d = Self.desc(k: kb.baseAddress!, v: vb.baseAddress!, table: t.baseAddress, f16: false, window: window)
                #expect(loom_attention(&d, q, &paged, Int64(positions), 0, Int64(Self.heads), &scratch) == 0)
            } } }
            #expect(windowed.map(\.bitPattern) == expected.map(\.bitPattern))
            #expect(paged.map(\.bitPattern) == expected.map(\.bitPattern))
        }
    }

    @Test("Paged attention equals contiguous attention bit for bit", arguments: [1, 5, 13, 16])
    func pagedEqualsContiguous(positions: Int) throws {
        do {
            let width = kvHeadsWidth
            let k = Self.rows(positions, width: width, salt: 1), v = Self.rows(positions, width: width, salt: 2)
            // Scatter the positions over a pool of blocks in a shuffled order.
            let blocks = (positions + Self.blockSize - 1) / Self.blockSize
            let table: [Int32] = (0..<blocks).map { Int32((blocks - 1 - $0) * 2 + 1) }
            let poolRows = (2 * blocks + 1) * Self.blockSize
            let (pk, pv) = Self.scatter(k, v, positions: positions, table: table, poolRows: poolRows)
            let q = Self.rows(1, width: Self.heads * Self.headDim, salt: 3)
            var contiguous = [Float](repeating: 0, count: Self.heads * Self.headDim), paged = contiguous
            var scratch = [Float](repeating: 0, count: Self.heads * positions)  // loom_attention_scratch_floats: a row per query head
            k.withUnsafeBytes { kb in v.withUnsafeBytes { vb in
                var d = Self.desc(k: kb.baseAddress!, v: vb.baseAddress!, table: nil, f16: false)
                #expect(loom_attention(&d, q, &contiguous, Int64(positions), 0, Int64(Self.heads), &scratch) == 0)
            } }
            pk.withUnsafeBytes { kb in pv.withUnsafeBytes { vb in table.withUnsafeBufferPointer { t in
                var d = Self.desc(k: kb.baseAddress!, v: vb.baseAddress!, table: t.baseAddress, f16: false)
                #expect(loom_attention(&d, q, &paged, Int64(positions), 0, Int64(Self.heads), &scratch) == 0)
            } } }
            #expect(paged.map(\.bitPattern) == contiguous.map(\.bitPattern))
        }
    }

    var kvHeadsWidth: Int { Self.kvHeads * Self.headDim }

    @Test("A batch of sequences gives each the result it gets alone, on 1 and 2 threads", arguments: [1, 2])
    func batchEqualsAlone(threads: Int32) throws {
        do {
            let width = kvHeadsWidth
            // Three sequences in one pool: a prompt chunk of 3 tokens at 5, one decode token at 9,
            // one decode token at 0.
            let segments: [(row: Int, tokens: Int, pos0: Int, table: [Int32])] = [
                (0, 3, 5, [2, 0]), (3, 1, 9, [4, 1, 3]), (4, 1, 0, [5]),
            ]
            let poolRows = 6 * Self.blockSize
            let k = Self.rows(poolRows, width: width, salt: 4), v = Self.rows(poolRows, width: width, salt: 5)
            let qWidth = Self.heads * Self.headDim
            let q = Self.rows(5, width: qWidth, salt: 6)
            var batched = [Float](repeating: 0, count: 5 * qWidth), alone = batched
            let pool = try #require(loom_pool_create(threads))
            defer { loom_pool_destroy(pool) }
            k.withUnsafeBytes { kb in v.withUnsafeBytes { vb in
                let tables = segments.map { s -> UnsafeMutablePointer<Int32> in
                    let p = UnsafeMutablePointer<Int32>.allocate(capacity: s.table.count)
                    p.initialize(from: s.table, count: s.table.count)
                    return p
                }
                defer { tables.forEach { $0.deallocate() } }
                var d = Self.desc(k: kb.baseAddress!, v: vb.baseAddress!, table: nil, f16: false)
                // The function's own size: each thread's share of it also holds a prompt tile.
                var scratch = [Float](repeating: 0, count: loom_par_attention_scratch_floats(pool, &d, 16))
                let segs = segments.enumerated().map { i, s in
                    loom_attention_segment(row: Int64(s.row), n_tokens: Int64(s.tokens), pos0: Int64(s.pos0),
                                           block_table: tables[i])
                }
                #expect(loom_par_attention_batch(pool, &d, segs, Int32(segs.count), Int32(segs.count), q, Int64(qWidth), &batched,
                                                 Int64(qWidth), 16, &scratch) == 0)
                for (i, s) in segments.enumerated() {
                    d.block_table = UnsafePointer(tables[i])
                    for t in 0..<s.tokens {
                        let row = s.row + t
                        q.withUnsafeBufferPointer { qp in alone.withUnsafeMutableBufferPointer { op in
                            _ = loom_attention(&d, qp.baseAddress! + row * qWidth, op.baseAddress! + row * qWidth,
                                               Int64(s.pos0 + t + 1), 0, Int64(Self.heads), &scratch)
                        } }
                    }
                }
            } }
            #expect(batched.map(\.bitPattern) == alone.map(\.bitPattern))
        }
    }
}
