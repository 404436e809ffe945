import CTensor
import Testing

/// Rows interleaved by eight (loom_repack_x8): the same matrix as its row-major form, products
/// bit-identical at every tier and for every batch size, and refusals for what the layout
/// cannot hold.
@Suite struct InterleavedProductTests {
    /// Q4_0, Q4_1, Q5_0, Q5_1, Q8_0, Q2_K, Q3_K, Q4_K, Q5_K, Q6_K: every format with an
    /// interleaved layout.
    static let formats = Array(QuantCase.all[3...7]) + Array(QuantCase.all[9...13])

    /// `legacy` columns for the 32-element formats, whole super-blocks for the K-quants.
    static func columns(_ c: QuantCase, _ legacy: Int) -> Int {
        c.blockElems == 256 ? (legacy + 255) / 256 * 256 : legacy
    }
    static let q4_1 = QuantCase.all[4]

    /// Random row-major rows of `c` and their interleaved copy (of type `x8`).
    static func matrix(_ c: QuantCase, rows: Int, cols: Int, seed: UInt64)
        -> (rowMajor: [UInt8], packed: [UInt8], rowBytes: Int, x8: Int32) {
        var rng = TestRNG(seed: seed)
        let rowBytes = Int(loom_row_bytes(c.type, Int64(cols)))
        let w = randomWeights(c, rows: rows, cols: cols, rng: &rng)
        var packed = [UInt8](repeating: 0, count: w.count)
        let x8 = loom_repack_x8(c.type, w, rowBytes, Int64(rows), Int64(cols), &packed)
        #expect(x8 == loom_repack_x8_type(c.type) && x8 == 256 + c.type)
        return (w, packed, rowBytes, x8)
    }

    static func activations(_ count: Int, seed: UInt64) -> [Float] {
        var rng = TestRNG(seed: seed)
        return randomActivations(count: count, rng: &rng)
    }

    static func quantized(_ x: [Float], cols: Int, batch: Int, tier: loom_isa) -> (bytes: [UInt8], stride: Int) {
        let stride = loom_activation_bytes(Int64(cols))
        var xq = [UInt8](repeating: 0, count: stride * batch)
        x.withUnsafeBufferPointer { xb in
            xq.withUnsafeMutableBufferPointer { qb in
                for b in 0..<batch {
                    loom_quantize_activation_isa(tier, xb.baseAddress! + b * cols, Int64(cols), qb.baseAddress! + b * stride)
                }
            }
        }
        return (xq, stride)
    }

    static func product(_ x8: Int32, _ packed: [UInt8], rowBytes: Int, rows: Int, cols: Int, xq: [UInt8], stride: Int,
                        batch: Int, tier: loom_isa, range: Range<Int>? = nil, fill: Float = 0) -> [Float] {
        let r = range ?? 0..<rows
        var y = [Float](repeating: fill, count: batch * rows)
        loom_matmul_q_isa(tier, x8, packed, rowBytes, Int64(cols), nil, 0, xq, stride, &y, Int64(rows), Int64(batch),
                          Int64(r.lowerBound), Int64(r.upperBound))
        return y
    }

    @Test(arguments: formats)
    func rowsReadBackAsTheRowMajorRows(_ c: QuantCase) {
        let rows = 24, cols = Self.columns(c, 96)
        let m = Self.matrix(c, rows: rows, cols: cols, seed: 3)
        var expected = [Float](repeating: 0, count: rows * cols)
        loom_dequantize_row_isa(LOOM_ISA_SCALAR, c.type, m.rowMajor, &expected, Int64(rows * cols))
        var got = [Float](repeating: .nan, count: rows * cols)
        loom_dequantize_rows(m.x8, m.packed, m.rowBytes, Int64(cols), 0, Int64(rows), &got)
        #expect(got == expected)
        // A range with rows before, inside and after a whole group (the SIMD dequantizer takes
        // whole groups, single rows go one by one).
        var span = [Float](repeating: .nan, count: 16 * cols)
        loom_dequantize_rows(m.x8, m.packed, m.rowBytes, Int64(cols), 5, 16, &span)
        #expect(span == Array(expected[5 * cols..<21 * cols]))
        // A row range starting inside a group, and the row-major type through the same entry point.
        var part = [Float](repeating: .nan, count: 5 * cols)
        loom_dequantize_rows(m.x8, m.packed, m.rowBytes, Int64(cols), 11, 5, &part)
        #expect(part == Array(expected[11 * cols..<16 * cols]))
        loom_dequantize_rows(c.type, m.rowMajor, m.rowBytes, Int64(cols), 11, 5, &part)
        #expect(part == Array(expected[11 * cols..<16 * cols]))
    }

    /// The property batching and speculation rest on: a row's result is the same bits whatever
    /// rows share its batch, and every tier computes the scalar reference's bits.
    /// Every batch size a pass over a group can take (1–8 rows, then 8 plus 1–8: the AVX-512
    /// tier serves two or more rows two groups at a time, and one row a group at a time with
    /// 512-bit steps) gives each row the bits it gets alone from the scalar reference.
    @Test(arguments: formats)
    func everyBatchSizeGivesEachRowItsAloneBits(_ c: QuantCase) {
        let rows = 16, cols = Self.columns(c, 96), maxBatch = 16
        let m = Self.matrix(c, rows: rows, cols: cols, seed: 31)
        let x = Self.activations(maxBatch * cols, seed: 32)
        let q = Self.quantized(x, cols: cols, batch: maxBatch, tier: LOOM_ISA_SCALAR)
        var alone: [Float] = []
        for b in 0..<maxBatch {
            alone += Self.product(m.x8, m.packed, rowBytes: m.rowBytes, rows: rows, cols: cols,
                                  xq: Array(q.bytes[b * q.stride..<(b + 1) * q.stride]), stride: q.stride, batch: 1,
                                  tier: LOOM_ISA_SCALAR)
        }
        for tier in availableTiers {
            for batch in 1...maxBatch {
                let y = Self.product(m.x8, m.packed, rowBytes: m.rowBytes, rows: rows, cols: cols, xq: q.bytes,
                                     stride: q.stride, batch: batch, tier: tier)
                #expect(y == Array(alone[0..<batch * rows]), "\(tier): batch of \(batch)")
            }
        }
    }

    @Test(arguments: formats)
    func productsAreBitIdenticalAcrossBatchesAndTiers(_ c: QuantCase) {
        let rows = 40, cols = Self.columns(c, 544), batch = 11
        let m = Self.matrix(c, rows: rows, cols: cols, seed: 17)
        let x = Self.activations(batch * cols, seed: 18)
        let q = Self.quantized(x, cols: cols, batch: batch, tier: LOOM_ISA_SCALAR)
        let reference = Self.product(m.x8, m.packed, rowBytes: m.rowBytes, rows: rows, cols: cols, xq: q.bytes,
                                     stride: q.stride, batch: batch, tier: LOOM_ISA_SCALAR)
        for tier in availableTiers {
            #expect(Self.product(m.x8, m.packed, rowBytes: m.rowBytes, rows: rows, cols: cols, xq: q.bytes, stride: q.stride,
                                 batch: batch, tier: tier) == reference, "\(tier): batch of \(batch)")
            for b in [0, 5, 10] {
                let one = Array(q.bytes[b * q.stride..<(b + 1) * q.stride])
                let alone = Self.product(m.x8, m.packed, rowBytes: m.rowBytes, rows: rows, cols: cols, xq: one,
                                         stride: q.stride, batch: 1, tier: tier)
                #expect(alone == Array(reference[b * rows..<(b + 1) * rows]), "\(tier): row \(b) alone")
            }
        }
    }

    @Test(arguments: formats)
    func productsStayWithinTheRowMajorErrorBound(_ c: QuantCase) {
        let rows = 16, cols = Self.columns(c, 544), batch = 3
        let m = Self.matrix(c, rows: rows, cols: cols, seed: 23)
        let x = Self.activations(batch * cols, seed: 24)
        var wf = [Float](repeating: 0, count: rows * cols)
        loom_dequantize_row_isa(LOOM_ISA_SCALAR, c.type, m.rowMajor, &wf, Int64(rows * cols))
        let groupMax = QuantKernelTests.groupMaxima(x)
        for tier in availableTiers {
            let q = Self.quantized(x, cols: cols, batch: batch, tier: tier)
            let y = Self.product(m.x8, m.packed, rowBytes: m.rowBytes, rows: rows, cols: cols, xq: q.bytes, stride: q.stride,
                                 batch: batch, tier: tier)
            for b in 0..<batch {
                for r in 0..<rows {
                    let wr = wf[r * cols..<(r + 1) * cols], xb = x[b * cols..<(b + 1) * cols]
                    let err = abs(Double(y[b * rows + r]) - QuantKernelTests.exactDot(wr, xb))
                    let bound = QuantKernelTests.bound(c, w: wr, x: xb,
                                                       groupMax: groupMax[b * cols / 32..<(b + 1) * cols / 32])
                    #expect(err <= bound, "\(tier) b \(b) r \(r)")
                }
            }
        }
    }

    /// A thread's share of rows may start or end inside a group of eight: only its rows change,
    /// and accumulating adds the product once. Batches of several rows take groups two at a
    /// time on the AVX-512 tier, so ranges that cut a pair, or leave one group over, are checked
    /// with one row and with three.
    @Test(arguments: formats)
    func rowRangesWriteOnlyTheirRows(_ c: QuantCase) {
        let rows = 40, cols = Self.columns(c, 96)
        let m = Self.matrix(c, rows: rows, cols: cols, seed: 29)
        for batch in [1, 3] {
            let x = Self.activations(batch * cols, seed: 30)
            for tier in availableTiers {
                let q = Self.quantized(x, cols: cols, batch: batch, tier: tier)
                let full = Self.product(m.x8, m.packed, rowBytes: m.rowBytes, rows: rows, cols: cols, xq: q.bytes,
                                        stride: q.stride, batch: batch, tier: tier)
                for range in [3..<21, 8..<40, 0..<29, 13..<16] {
                    let part = Self.product(m.x8, m.packed, rowBytes: m.rowBytes, rows: rows, cols: cols, xq: q.bytes,
                                            stride: q.stride, batch: batch, tier: tier, range: range, fill: -12345)
                    for b in 0..<batch {
                        let row = b * rows
                        #expect(part[row..<row + range.lowerBound].allSatisfy { $0 == -12345 }, "\(tier) \(range) b \(b)")
                        #expect(part[row + range.upperBound..<row + rows].allSatisfy { $0 == -12345 }, "\(tier) \(range) b \(b)")
                        #expect(Array(part[row + range.lowerBound..<row + range.upperBound])
                                    == Array(full[row + range.lowerBound..<row + range.upperBound]), "\(tier) \(range) b \(b)")
                    }
                }
            }
            // Accumulation, through the default entry point.
            let q = Self.quantized(x, cols: cols, batch: batch, tier: loom_isa_active())
            var y = [Float](repeating: 1, count: batch * rows)
            loom_matmul_q_accumulate(m.x8, m.packed, m.rowBytes, Int64(cols), nil, 0, q.bytes, q.stride, &y, Int64(rows),
                                     Int64(batch), 0, Int64(rows))
            let full = Self.product(m.x8, m.packed, rowBytes: m.rowBytes, rows: rows, cols: cols, xq: q.bytes,
                                    stride: q.stride, batch: batch, tier: loom_isa_active())
            #expect(y == full.map { 1 + $0 }, "batch of \(batch)")
        }
    }

    /// loom_matmul quantizes wide batches in column chunks, which start inside each group. The
    /// chunks' partial sums are added in another order than one pass adds them, so the bound is
    /// relative to the magnitude of what is summed (Σ|w·x|), not to the result, which can cancel.
    @Test(arguments: formats)
    func columnChunksMatchTheWholeRow(_ c: QuantCase) {
        let rows = 8, cols = 2048, batch = 8      // 8192 stack columns / 8 rows: two chunks of 1024
        let m = Self.matrix(c, rows: rows, cols: cols, seed: 31)
        let x = Self.activations(batch * cols, seed: 32)
        var wf = [Float](repeating: 0, count: rows * cols)
        loom_dequantize_row_isa(LOOM_ISA_SCALAR, c.type, m.rowMajor, &wf, Int64(rows * cols))
        let magnitude = (0..<batch * rows).map { i -> Float in
            let b = i / rows, r = i % rows
            return Float((0..<cols).reduce(0.0) { $0 + abs(Double(wf[r * cols + $1]) * Double(x[b * cols + $1])) })
        }
        for tier in availableTiers {
            var chunked = [Float](repeating: .nan, count: batch * rows)
            loom_matmul_isa(tier, m.x8, m.packed, m.rowBytes, Int64(cols), x, Int64(cols), &chunked, Int64(rows),
                            Int64(batch), 0, Int64(rows))
            let q = Self.quantized(x, cols: cols, batch: batch, tier: tier)
            let whole = Self.product(m.x8, m.packed, rowBytes: m.rowBytes, rows: rows, cols: cols, xq: q.bytes,
                                     stride: q.stride, batch: batch, tier: tier)
            for i in whole.indices {
                #expect(abs(chunked[i] - whole[i]) <= 1e-5 * max(1, magnitude[i]), "\(tier) element \(i)")
            }
        }
    }

    @Test func shapesAndTypesTheLayoutCannotHoldAreRefused() {
        var rng = TestRNG(seed: 37)
        let w = randomWeights(Self.q4_1, rows: 12, cols: 64, rng: &rng)
        let rowBytes = Int(loom_row_bytes(Self.q4_1.type, 64))
        var out = [UInt8](repeating: 0xAB, count: w.count)
        #expect(loom_repack_x8(Self.q4_1.type, w, rowBytes, 12, 64, &out) == -1)       // rows not a multiple of 8
        #expect(loom_repack_x8(Self.q4_1.type, w, rowBytes, 8, 48, &out) == -1)        // not whole blocks
        #expect(loom_repack_x8(Int32(LOOM_TYPE_Q8_K.rawValue), w, rowBytes, 8, 64, &out) == -1)
        #expect(out.allSatisfy { $0 == 0xAB })
        #expect(loom_repack_x8_type(Int32(LOOM_TYPE_Q8_1.rawValue)) == -1)
        #expect(loom_repack_x8_type(Int32(LOOM_TYPE_Q8_K.rawValue)) == -1)
        // A file cannot declare the layouts, and a single row of one cannot be dequantized alone.
        let x8 = Int32(LOOM_TYPE_Q4_1_X8.rawValue)
        #expect(Self.formats.allSatisfy { !loom_type_supported(loom_repack_x8_type($0.type)) })
        var row = [Float](repeating: 0, count: 64)
        loom_dequantize_row(x8, w, &row, 64)
        #expect(row.allSatisfy { $0.isNaN })
    }
}
