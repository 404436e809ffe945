import CTensor
import LoomSupport
import Testing
import ThreadFreezer

/// The batched decode products (`loom_par_matmul_fused`, `loom_par_matmul_swiglu`) are
/// batch-invariant: row b of every output equals, bit for bit, the one-row product
/// (`loom_par_matvec_fused`, `loom_par_matvec_swiglu`) of input row b at the same kernel tier,
/// whatever the batch size, the other rows and the thread count. A sequence decoded beside
/// others must produce the logits it produces alone.
@Suite struct BatchedFusedProductTests {
    static let batchSizes = Array(1...16) + [31]

    /// Whole blocks, but for legacy formats not a multiple of the 8-block group (a row ends in a
    /// partial group) and for float weights not a multiple of any vector width.
    static func columns(_ c: QuantCase) -> Int {
        if c.isFloat { return 45 }
        return c.blockElems == 256 ? 768 : 416
    }

    /// Input rows are this many floats apart beyond their length, so a kernel that assumed
    /// ldx == n_cols would read the wrong activations.
    static let inputGap = 5

    /// One weight matrix with a batched output (rows `ldy` floats apart, the gaps holding a
    /// sentinel that no write may touch) and a one-row output.
    final class Part {
        static let sentinel: Float = -12345.5
        let type: Int32
        let rows: Int
        let rowBytes: Int
        let ldy: Int
        let accumulate: Bool
        let weights: UnsafeMutableRawPointer
        let weightBytes: [UInt8]
        let bias: UnsafeMutablePointer<Float>?
        /// What an accumulating part adds to, per input row (`maxBatch` rows of `rows`).
        let residual: [Float]
        let y: UnsafeMutablePointer<Float>
        let y1: UnsafeMutablePointer<Float>
        let maxBatch: Int

        init(_ c: QuantCase, rows: Int, cols: Int, maxBatch: Int, bias: Bool, accumulate: Bool, rng: inout TestRNG) {
            type = c.type
            self.rows = rows
            self.maxBatch = maxBatch
            self.accumulate = accumulate
            rowBytes = Int(loom_row_bytes(c.type, Int64(cols)))
            ldy = rows + 3
            weightBytes = randomWeights(c, rows: rows, cols: cols, rng: &rng)
            weights = UnsafeMutableRawPointer.allocate(byteCount: max(weightBytes.count, 1), alignment: 64)
            weights.copyMemory(from: weightBytes, byteCount: weightBytes.count)
            if bias {
                let b = UnsafeMutablePointer<Float>.allocate(capacity: rows)
                for r in 0..<rows { b[r] = rng.float() }
                self.bias = b
            } else {
                self.bias = nil
            }
            residual = (0..<(maxBatch * rows)).map { _ in rng.float() * 4 }
            y = .allocate(capacity: maxBatch * ldy)
            y1 = .allocate(capacity: rows)
        }

        deinit {
            weights.deallocate()
            bias?.deallocate()
            y.deallocate()
            y1.deallocate()
        }

        /// The part writing the batched output, or the one-row output.
        func part(batched: Bool) -> loom_matvec_part {
            loom_matvec_part(type: type, w: weights, row_bytes: rowBytes, n_rows: Int64(rows), y: batched ? y : y1,
                             ldy: Int64(batched ? ldy : 0), bias: bias.map { UnsafePointer($0) },
                             accumulate: accumulate ? 1 : 0)
        }

        /// The batch's output rows set to what the product adds to (or NaN); the gaps and the
        /// rows past the batch to the sentinel.
        func resetBatched(_ batch: Int) {
            for i in 0..<(maxBatch * ldy) { y[i] = Self.sentinel }
            for b in 0..<batch {
                for r in 0..<rows { y[b * ldy + r] = accumulate ? residual[b * rows + r] : .nan }
            }
        }

        func resetSingle(_ b: Int) {
            for r in 0..<rows { y1[r] = accumulate ? residual[b * rows + r] : .nan }
        }

        func batchedRow(_ b: Int) -> [UInt32] { (0..<rows).map { y[b * ldy + $0].bitPattern } }
        var singleRow: [UInt32] { (0..<rows).map { y1[$0].bitPattern } }

        /// Gaps between the batched rows, and rows past the batch, still hold the sentinel.
        func untouchedBeyond(batch: Int) -> Bool {
            (0..<(maxBatch * ldy)).allSatisfy { i in i / ldy < batch && i % ldy < rows || y[i] == Self.sentinel }
        }
    }

    /// A biased part and an accumulating (residual) one, with row counts that are not
    /// multiples of LOOM_PAR_ROW_ALIGN and each more than one split unit.
    static func parts(_ c: QuantCase, cols: Int, rng: inout TestRNG) -> [Part] {
        let maxBatch = batchSizes.max()!
        return [Part(c, rows: 19, cols: cols, maxBatch: maxBatch, bias: true, accumulate: false, rng: &rng),
                Part(c, rows: 21, cols: cols, maxBatch: maxBatch, bias: false, accumulate: true, rng: &rng)]
    }

    static func input(cols: Int, rng: inout TestRNG) -> [Float] {
        randomActivations(count: batchSizes.max()! * (cols + inputGap), rng: &rng)
    }

    @Test(arguments: QuantCase.all)
    func batchedRowsEqualOneRowProducts(_ c: QuantCase) {
        let cols = Self.columns(c), ldx = cols + Self.inputGap
        var rng = TestRNG(seed: 4000 + UInt64(c.type))
        let parts = Self.parts(c, cols: cols, rng: &rng)
        let x = Self.input(cols: cols, rng: &rng)
        // Bit-exact comparisons need one kernel tier throughout: forEachTier holds off other
        // tests that force one.
        OpsSupport.forEachTier { tier in
            for threads in [1, 2] {
                let pool = loom_pool_create(Int32(threads))!
                defer { loom_pool_destroy(pool) }
                var scratch = [UInt8](repeating: 0, count: loom_par_matmul_fused_scratch_bytes(
                    pool, Int64(cols), Int64(Self.batchSizes.max()!)))
                for nb in Self.batchSizes {
                    for p in parts { p.resetBatched(nb) }
                    loom_par_matmul_fused(pool, parts.map { $0.part(batched: true) }, 2, Int64(cols), x, Int64(ldx),
                                          Int64(nb), &scratch)
                    for b in 0..<nb {
                        for p in parts { p.resetSingle(b) }
                        x.withUnsafeBufferPointer { xb in
                            loom_par_matvec_fused(pool, parts.map { $0.part(batched: false) }, 2, Int64(cols),
                                                  xb.baseAddress! + b * ldx, &scratch)
                        }
                        for (i, p) in parts.enumerated() {
                            #expect(p.batchedRow(b) == p.singleRow,
                                    "\(c) \(tier) threads \(threads) batch \(nb) row \(b) part \(i)")
                        }
                    }
                    for (i, p) in parts.enumerated() {
                        #expect(p.untouchedBeyond(batch: nb), "\(c) \(tier) batch \(nb) part \(i) wrote outside its rows")
                    }
                }
            }
        }
    }

    @Test(arguments: QuantCase.all)
    func batchedSwigluRowsEqualOneRowSwiglu(_ c: QuantCase) {
        let cols = Self.columns(c), ldx = cols + Self.inputGap, rows = 37, ldh = rows + 2
        let maxBatch = Self.batchSizes.max()!
        var rng = TestRNG(seed: 5000 + UInt64(c.type))
        let gate = Part(c, rows: rows, cols: cols, maxBatch: maxBatch, bias: false, accumulate: false, rng: &rng)
        let up = Part(c, rows: rows, cols: cols, maxBatch: maxBatch, bias: false, accumulate: false, rng: &rng)
        let x = Self.input(cols: cols, rng: &rng)
        OpsSupport.forEachTier { tier in
            for threads in [1, 2] {
                let pool = loom_pool_create(Int32(threads))!
                defer { loom_pool_destroy(pool) }
                var scratch = [UInt8](repeating: 0, count: loom_par_matmul_fused_scratch_bytes(
                    pool, Int64(cols), Int64(maxBatch)))
                for nb in Self.batchSizes {
                    var h = [Float](repeating: .nan, count: maxBatch * ldh)
                    gate.resetBatched(nb)
                    up.resetBatched(nb)
                    let rc = loom_par_matmul_swiglu(pool, [gate.part(batched: true)], [up.part(batched: true)],
                                                    Int64(cols), x, Int64(ldx), Int64(nb), &h, Int64(ldh), &scratch)
                    #expect(rc == 0)
                    for b in 0..<nb {
                        var h1 = [Float](repeating: .nan, count: rows)
                        x.withUnsafeBufferPointer { xb in
                            _ = loom_par_matvec_swiglu(pool, [gate.part(batched: false)], [up.part(batched: false)],
                                                       Int64(cols), xb.baseAddress! + b * ldx, &h1, &scratch)
                        }
                        #expect(h[(b * ldh)..<(b * ldh + rows)].map(\.bitPattern) == h1.map(\.bitPattern),
                                "\(c) \(tier) threads \(threads) batch \(nb) row \(b)")
                    }
                }
            }
        }
    }

    /// Every tier's batched product stays within QuantKernelTests' error bound of the scalar
    /// reference tier (and so of the float64 product of the dequantized weights).
    @Test(arguments: QuantCase.all)
    func batchedProductsStayWithinTheReferenceBound(_ c: QuantCase) {
        let cols = Self.columns(c), rows = 37
        var rng = TestRNG(seed: 6000 + UInt64(c.type))
        let rowBytes = Int(loom_row_bytes(c.type, Int64(cols)))
        let w = randomWeights(c, rows: rows, cols: cols, rng: &rng)
        var wf = [Float](repeating: 0, count: rows * cols)
        loom_dequantize_row_isa(LOOM_ISA_SCALAR, c.type, w, &wf, Int64(rows * cols))
        let maxBatch = Self.batchSizes.max()!
        let x = randomActivations(count: maxBatch * cols, rng: &rng)
        let groupMax = QuantKernelTests.groupMaxima(x)
        var ref = [Float](repeating: 0, count: maxBatch * rows)
        loom_matmul_isa(LOOM_ISA_SCALAR, c.type, w, rowBytes, Int64(cols), x, Int64(cols), &ref, Int64(rows),
                        Int64(maxBatch), 0, Int64(rows))
        var bounds = [Double](repeating: 0, count: maxBatch * rows)
        for b in 0..<maxBatch {
            for r in 0..<rows {
                bounds[b * rows + r] = QuantKernelTests.bound(
                    c, w: wf[(r * cols)..<((r + 1) * cols)], x: x[(b * cols)..<((b + 1) * cols)],
                    groupMax: groupMax[(b * cols / 32)..<((b + 1) * cols / 32)])
            }
        }
        let weights = UnsafeMutableRawPointer.allocate(byteCount: w.count, alignment: 64)
        defer { weights.deallocate() }
        weights.copyMemory(from: w, byteCount: w.count)
        OpsSupport.forEachTier { tier in
            let pool = loom_pool_create(2)!
            defer { loom_pool_destroy(pool) }
            var scratch = [UInt8](repeating: 0, count: loom_par_matmul_fused_scratch_bytes(pool, Int64(cols), Int64(maxBatch)))
            for nb in Self.batchSizes {
                var y = [Float](repeating: .nan, count: nb * rows)
                y.withUnsafeMutableBufferPointer { yb in
                    let part = loom_matvec_part(type: c.type, w: weights, row_bytes: rowBytes, n_rows: Int64(rows),
                                                y: yb.baseAddress!, ldy: Int64(rows), bias: nil, accumulate: 0)
                    loom_par_matmul_fused(pool, [part], 1, Int64(cols), x, Int64(cols), Int64(nb), &scratch)
                }
                var worst = 0.0
                for i in 0..<(nb * rows) {
                    let e = abs(Double(y[i]) - Double(ref[i])) / bounds[i]
                    worst = e.isNaN ? .infinity : max(worst, e)
                }
                #expect(worst <= 1, "\(c) \(tier) batch \(nb): error/bound against the reference \(worst)")
            }
        }
    }

    /// The thread count decides which thread computes a row and which quantizes an input row,
    /// never a result: 1, 2 and 3 threads give identical bytes.
    @Test(arguments: QuantCase.all)
    func threadCountDoesNotChangeBatchedBytes(_ c: QuantCase) {
        let cols = Self.columns(c), ldx = cols + Self.inputGap
        var rng = TestRNG(seed: 7000 + UInt64(c.type))
        let parts = Self.parts(c, cols: cols, rng: &rng)
        let x = Self.input(cols: cols, rng: &rng)
        do {
            for nb in [2, 7, 16, 31] {
                var outputs: [[[UInt32]]] = []
                for threads in [1, 2, 3] {
                    let pool = loom_pool_create(Int32(threads))!
                    defer { loom_pool_destroy(pool) }
                    var scratch = [UInt8](repeating: 0, count: loom_par_matmul_fused_scratch_bytes(
                        pool, Int64(cols), Int64(nb)))
                    for p in parts { p.resetBatched(nb) }
                    loom_par_matmul_fused(pool, parts.map { $0.part(batched: true) }, 2, Int64(cols), x, Int64(ldx),
                                          Int64(nb), &scratch)
                    outputs.append(parts.map { p in (0..<nb).flatMap { p.batchedRow($0) } })
                }
                #expect(outputs[1] == outputs[0], "\(c) batch \(nb): 2 threads differ from 1")
                #expect(outputs[2] == outputs[0], "\(c) batch \(nb): 3 threads differ from 1")
            }
        }
    }

    /// What the thread running the products reads: the parts, the input and the scratch.
    struct ProductArguments: @unchecked Sendable {
        let pool: OpaquePointer
        let parts: [loom_matvec_part]
        let x: UnsafePointer<Float>
        let ldx: Int
        let cols: Int
        let batch: Int
        let scratch: UnsafeMutableRawPointer
    }

    /// A busy machine can keep a woken worker off the CPU for milliseconds. A batched product
    /// must not wait for it: the running threads quantize every input row and take every claim
    /// of rows. A worker stopped in a signal handler stands in for it, the products run on a
    /// thread of their own (so a product that does wait fails the liveness bound instead of
    /// hanging the suite), and their rows are still the one-row products' bits.
    @Test(.timeLimit(.minutes(2))) func aWorkerThatIsNotRunningDoesNotHoldUpABatchedProduct() throws {
        let c = try #require(QuantCase.all.first { $0.type == Int32(LOOM_TYPE_Q4_1.rawValue) })
        let cols = Self.columns(c), ldx = cols + Self.inputGap, batch = 8
        var rng = TestRNG(seed: 9000)
        let parts = Self.parts(c, cols: cols, rng: &rng)
        let x = Self.input(cols: cols, rng: &rng)
        #expect(loom_test_allow_freezing_children() == 0)
        let pool = try #require(loom_pool_create(3))
        loom_test_restore_signal_mask()
        defer { loom_pool_destroy(pool) }
        let frozen = try PoolTests.aWorker(of: pool)
        let scratchBytes = loom_par_matmul_fused_scratch_bytes(pool, Int64(cols), Int64(batch))
        let scratch = UnsafeMutableRawPointer.allocate(byteCount: scratchBytes, alignment: 64)
        defer { scratch.deallocate() }
        let done = Locked(false)
        try x.withUnsafeBufferPointer { xb in
            let args = ProductArguments(pool: pool, parts: parts.map { $0.part(batched: true) },
                                        x: xb.baseAddress!, ldx: ldx, cols: cols, batch: batch, scratch: scratch)
            for p in parts { p.resetBatched(batch) }
            #expect(loom_test_freeze_thread(frozen) == 0)
            #expect(DedicatedThread.start {
                loom_par_matmul_fused(args.pool, args.parts, 2, Int64(args.cols), args.x, Int64(args.ldx),
                                      Int64(args.batch), args.scratch)
                done.withLockSignalling { $0 = true }
            })
            let finished = done.wait(until: { $0 }, timeoutNanoseconds: 30_000_000_000) { value, _ in value }
            #expect(finished, "a batched product did not complete while a worker was frozen")
            loom_test_thaw_thread()
            done.wait(until: { $0 }) { _, _ in }
            try #require(finished)
            for b in 0..<batch {
                for p in parts { p.resetSingle(b) }
                loom_par_matvec_fused(pool, parts.map { $0.part(batched: false) }, 2, Int64(cols), xb.baseAddress! + b * ldx,
                                      scratch)
                for (i, p) in parts.enumerated() { #expect(p.batchedRow(b) == p.singleRow, "row \(b) part \(i)") }
            }
        }
    }

    @Test func swigluRejectsMismatchedParts() throws {
        let c = try #require(QuantCase.all.first { $0.type == 0 })
        var rng = TestRNG(seed: 8000)
        let gate = Part(c, rows: 16, cols: 32, maxBatch: 2, bias: false, accumulate: false, rng: &rng)
        let up = Part(c, rows: 17, cols: 32, maxBatch: 2, bias: false, accumulate: false, rng: &rng)
        var h = [Float](repeating: 0, count: 2 * 17)
        var scratch = [UInt8](repeating: 0, count: loom_par_matmul_fused_scratch_bytes(nil, 32, 2))
        let x = [Float](repeating: 1, count: 64)
        let rc = loom_par_matmul_swiglu(nil, [gate.part(batched: true)], [up.part(batched: true)], 32, x, 32, 2, &h,
                                        17, &scratch)
        #expect(rc == -1)
    }
}
