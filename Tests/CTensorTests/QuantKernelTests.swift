import CTensor
import Testing

/// Every kernel at every tier this machine runs, against the scalar reference and against
/// float64 dot products of the dequantized weights.
@Suite struct QuantKernelTests {
    /// Column counts per format family: several blocks, and (legacy) a partial group of 8 blocks.
    static func columnCounts(_ c: QuantCase) -> [Int] {
        if c.isFloat { return [45, 544] }
        return c.blockElems == 256 ? [256, 768] : [96, 544]
    }

    static let rows = 37        // not a multiple of any SIMD width or batch group
    static let batches = [1, 3, 6]

    /// The error bound of a product against the exact dot of the dequantized weights.
    /// Quantized formats: A16 rounds each activation by at most half a step, d/2 with
    /// d = max|x over its 32-group| / 32767, so |Δ| ≤ Σ|w|·d/2 — 129x tighter than the same
    /// bound for ggml's int8 activations (d = max/127). Both add f32 accumulation error, bounded
    /// by `accumulationSlack` · Σ|w·x|.
    static func bound(_ c: QuantCase, w: ArraySlice<Float>, x: ArraySlice<Float>, groupMax: ArraySlice<Float>) -> Double {
        var wx = 0.0, a16 = 0.0
        var wi = w.startIndex, xi = x.startIndex
        for k in 0..<w.count {
            let wv = Double(w[wi]), xv = Double(x[xi])
            wx += abs(wv * xv)
            if !c.isFloat { a16 += abs(wv) * Double(groupMax[groupMax.startIndex + k / 32]) / 32767 / 2 }
            wi += 1
            xi += 1
        }
        // Sequential f32 summation of n terms errs by at most (n-1)·2^-24·Σ|terms|; the
        // quantized kernels sum per-chunk terms, a few roundings each.
        let accumulationSlack = c.isFloat ? Double(w.count) * 6e-8 : Double(w.count / 32 + 8) * 3e-7
        return a16 * 1.0001 + accumulationSlack * wx + 1e-7
    }

    /// max|x| over each 32-element group of each column.
    static func groupMaxima(_ x: [Float]) -> [Float] {
        stride(from: 0, to: x.count, by: 32).map { g in x[g..<min(g + 32, x.count)].reduce(0) { max($0, abs($1)) } }
    }

    static func exactDot(_ w: ArraySlice<Float>, _ x: ArraySlice<Float>) -> Double {
        var s = 0.0
        var wi = w.startIndex, xi = x.startIndex
        for _ in 0..<w.count {
            s += Double(w[wi]) * Double(x[xi])
            wi += 1
            xi += 1
        }
        return s
    }

    @Test(arguments: QuantCase.all)
    func dequantizeTiersMatchReference(_ c: QuantCase) {
        var rng = TestRNG(seed: UInt64(c.type) * 7919)
        let cols = Self.columnCounts(c).last!
        let w = randomWeights(c, rows: 3, cols: cols, rng: &rng)
        var ref = [Float](repeating: 0, count: 3 * cols)
        loom_dequantize_row_isa(LOOM_ISA_SCALAR, c.type, w, &ref, Int64(3 * cols))
        #expect(ref.allSatisfy { $0.isFinite })
        for tier in availableTiers {
            var out = [Float](repeating: .nan, count: 3 * cols)
            loom_dequantize_row_isa(tier, c.type, w, &out, Int64(3 * cols))
            #expect(out == ref, "\(c.name) \(tier)")
        }
    }

    @Test(arguments: QuantCase.all)
    func productsMatchReferenceAndFloat64(_ c: QuantCase) {
        for cols in Self.columnCounts(c) {
            var rng = TestRNG(seed: UInt64(c.type) &* 31 &+ UInt64(cols))
            let rows = Self.rows
            let rowBytes = Int(loom_row_bytes(c.type, Int64(cols)))
            let w = randomWeights(c, rows: rows, cols: cols, rng: &rng)
            var wf = [Float](repeating: 0, count: rows * cols)
            for r in 0..<rows {
                w.withUnsafeBufferPointer { wb in
                    wf.withUnsafeMutableBufferPointer { ob in
                        loom_dequantize_row_isa(LOOM_ISA_SCALAR, c.type, wb.baseAddress! + r * rowBytes,
                                                ob.baseAddress! + r * cols, Int64(cols))
                    }
                }
            }
            for nb in Self.batches {
                let x = randomActivations(count: nb * cols, rng: &rng)
                let groupMax = Self.groupMaxima(x)
                var ref = [Float](repeating: 0, count: nb * rows)
                loom_matmul_isa(LOOM_ISA_SCALAR, c.type, w, rowBytes, Int64(cols), x, Int64(cols), &ref,
                                Int64(rows), Int64(nb), 0, Int64(rows))
                for tier in availableTiers {
                    var y = [Float](repeating: .nan, count: nb * rows)
                    loom_matmul_isa(tier, c.type, w, rowBytes, Int64(cols), x, Int64(cols), &y, Int64(rows),
                                    Int64(nb), 0, Int64(rows))
                    var worst = 0.0, worstRef = 0.0
                    for b in 0..<nb {
                        let xb = x[b * cols..<(b + 1) * cols]
                        let gm = groupMax[b * cols / 32..<(b + 1) * cols / 32]
                        for r in 0..<rows {
                            let wr = wf[r * cols..<(r + 1) * cols]
                            let exact = Self.exactDot(wr, xb)
                            let bound = Self.bound(c, w: wr, x: xb, groupMax: gm)
                            let got = Double(y[b * rows + r])
                            worst = max(worst, abs(got - exact) / bound)
                            worstRef = max(worstRef, abs(got - Double(ref[b * rows + r])) / bound)
                        }
                    }
                    // Within the bound against float64, and within the same bound of the reference tier.
                    #expect(worst <= 1, "\(c.name) \(tier) cols \(cols) batch \(nb): error/bound \(worst)")
                    #expect(worstRef <= 1, "\(c.name) \(tier) cols \(cols) batch \(nb): vs ref \(worstRef)")
                }
            }
        }
    }

    @Test(arguments: QuantCase.all)
    func batchedAndPrequantizedFormsAgreeWithMatvec(_ c: QuantCase) {
        var rng = TestRNG(seed: UInt64(c.type) &+ 101)
        let cols = Self.columnCounts(c).last!, rows = 11, nb = 5
        let rowBytes = Int(loom_row_bytes(c.type, Int64(cols)))
        let w = randomWeights(c, rows: rows, cols: cols, rng: &rng)
        let x = randomActivations(count: nb * cols, rng: &rng)
        for tier in availableTiers {
            var batched = [Float](repeating: 0, count: nb * rows)
            loom_matmul_isa(tier, c.type, w, rowBytes, Int64(cols), x, Int64(cols), &batched, Int64(rows),
                            Int64(nb), 0, Int64(rows))
            // Column by column through the single-vector path.
            var single = [Float](repeating: 0, count: nb * rows)
            for b in 0..<nb {
                x.withUnsafeBufferPointer { xb in
                    single.withUnsafeMutableBufferPointer { yb in
                        loom_matmul_isa(tier, c.type, w, rowBytes, Int64(cols), xb.baseAddress! + b * cols,
                                        Int64(cols), yb.baseAddress! + b * rows, 0, 1, 0, Int64(rows))
                    }
                }
            }
            #expect(batched == single, "\(c.name) \(tier): batched differs from column-by-column")
            // The same with activations quantized once up front.
            let stride = loom_activation_bytes(Int64(cols))
            var xq = [UInt8](repeating: 0, count: stride * nb)
            for b in 0..<nb {
                x.withUnsafeBufferPointer { xb in
                    xq.withUnsafeMutableBufferPointer { qb in
                        loom_quantize_activation_isa(tier, xb.baseAddress! + b * cols, Int64(cols), qb.baseAddress! + b * stride)
                    }
                }
            }
            var pre = [Float](repeating: 0, count: nb * rows)
            loom_matmul_q_isa(tier, c.type, w, rowBytes, Int64(cols), x, Int64(cols), xq, stride, &pre, Int64(rows),
                              Int64(nb), 0, Int64(rows))
            #expect(pre == batched, "\(c.name) \(tier): pre-quantized form differs")
        }
    }

    @Test(arguments: QuantCase.all)
    func rowRangeWritesOnlyItsRows(_ c: QuantCase) {
        var rng = TestRNG(seed: 5)
        let cols = Self.columnCounts(c).first!, rows = 20
        let rowBytes = Int(loom_row_bytes(c.type, Int64(cols)))
        let w = randomWeights(c, rows: rows, cols: cols, rng: &rng)
        let x = randomActivations(count: cols, rng: &rng)
        for tier in availableTiers {
            var y = [Float](repeating: -12345, count: rows)
            loom_matmul_isa(tier, c.type, w, rowBytes, Int64(cols), x, Int64(cols), &y, 0, 1, 3, 17)
            #expect(y[0..<3].allSatisfy { $0 == -12345 } && y[17...].allSatisfy { $0 == -12345 })
            #expect(y[3..<17].allSatisfy { $0 != -12345 && $0.isFinite })
        }
    }

    /// Rows longer than one stack chunk (8192 columns) and batches above one group of 32 are
    /// processed in pieces that accumulate; the result must not change.
    @Test(arguments: [QuantCase.all[3], QuantCase.all[11]])
    func longRowsAndLargeBatchesAccumulateCorrectly(_ c: QuantCase) {
        var rng = TestRNG(seed: 77)
        for (cols, rows, nb) in [(8192 + 256 + 256, 3, 1), (512, 4, 35)] {
            let rowBytes = Int(loom_row_bytes(c.type, Int64(cols)))
            let w = randomWeights(c, rows: rows, cols: cols, rng: &rng)
            let x = randomActivations(count: nb * cols, rng: &rng)
            var wf = [Float](repeating: 0, count: rows * cols)
            loom_dequantize_row_isa(LOOM_ISA_SCALAR, c.type, w, &wf, Int64(rows * cols))
            let groupMax = Self.groupMaxima(x)
            for tier in availableTiers {
                var y = [Float](repeating: .nan, count: nb * rows)
                loom_matmul_isa(tier, c.type, w, rowBytes, Int64(cols), x, Int64(cols), &y, Int64(rows), Int64(nb),
                                0, Int64(rows))
                for b in 0..<nb {
                    for r in 0..<rows {
                        let wr = wf[r * cols..<(r + 1) * cols], xb = x[b * cols..<(b + 1) * cols]
                        let err = abs(Double(y[b * rows + r]) - Self.exactDot(wr, xb))
                        let bound = Self.bound(c, w: wr, x: xb, groupMax: groupMax[b * cols / 32..<(b + 1) * cols / 32])
                        #expect(err <= bound, "\(c.name) \(tier) cols \(cols) b \(b) r \(r)")
                    }
                }
            }
        }
    }

    @Test func invalidCallsProduceNaNNotNumbers() {
        let w = [UInt8](repeating: 0x11, count: 4096)
        let x = [Float](repeating: 1, count: 512)
        for tier in availableTiers {
            // Type id 4 was removed from ggml; 48 columns is not a whole Q4_0 or Q4_K block row.
            for (type, cols) in [(Int32(4), 64), (Int32(2), 48), (Int32(12), 128)] {
                var y = [Float](repeating: 0, count: 4)
                loom_matmul_isa(tier, type, w, 256, Int64(cols), x, Int64(cols), &y, 0, 1, 0, 4)
                #expect(y.allSatisfy { $0.isNaN }, "type \(type) cols \(cols) \(tier)")
                var d = [Float](repeating: 0, count: cols)
                loom_dequantize_row_isa(tier, type, w, &d, Int64(cols))
                #expect(d.allSatisfy { $0.isNaN }, "dequantize type \(type) n \(cols) \(tier)")
            }
        }
    }

    @Test(arguments: [QuantCase.all[3], QuantCase.all[7], QuantCase.all[11], QuantCase.all[13]])
    func nonFiniteActivationsPropagate(_ c: QuantCase) {
        var rng = TestRNG(seed: 3)
        let cols = 256, rows = 3
        let rowBytes = Int(loom_row_bytes(c.type, Int64(cols)))
        let w = randomWeights(c, rows: rows, cols: cols, rng: &rng)
        for bad in [Float.nan, Float.infinity] {
            var x = randomActivations(count: cols, rng: &rng)
            x[77] = bad
            for tier in availableTiers {
                var y = [Float](repeating: 0, count: rows)
                loom_matmul_isa(tier, c.type, w, rowBytes, Int64(cols), x, Int64(cols), &y, 0, 1, 0, Int64(rows))
                #expect(y.allSatisfy { !$0.isFinite }, "\(c.name) \(tier) with \(bad): \(y)")
            }
        }
    }

    @Test func activationQuantizationIsIdenticalAcrossTiers() {
        var rng = TestRNG(seed: 9)
        let n = 544
        var x = randomActivations(count: n, rng: &rng)
        for i in 64..<96 { x[i] = 0 }  // an all-zero group
        let bytes = loom_activation_bytes(Int64(n))
        var ref = [UInt8](repeating: 0, count: bytes)
        loom_quantize_activation_isa(LOOM_ISA_SCALAR, x, Int64(n), &ref)
        // Layout: f32 d[n/32] | sum32[n/32] | sum16[n/16] | qsum32[n/32] | qsum16[n/16] | i16 q[n].
        let sumsStart = (n / 32) * 8 + (n / 16) * 4
        let qStart = (n / 32) * 12 + (n / 16) * 8
        #expect(bytes == qStart + 2 * n)
        for tier in availableTiers {
            var out = [UInt8](repeating: 0xAA, count: bytes)
            loom_quantize_activation_isa(tier, x, Int64(n), &out)
            #expect(Array(out[0..<(n / 32) * 4]) == Array(ref[0..<(n / 32) * 4]), "\(tier): scales differ")
            #expect(Array(out[sumsStart..<qStart]) == Array(ref[sumsStart..<qStart]), "\(tier): integer sums differ")
            #expect(Array(out[qStart...]) == Array(ref[qStart...]), "\(tier): int16 values differ")
        }
    }
}
