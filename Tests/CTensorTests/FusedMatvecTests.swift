import CTensor
import Testing

/// The decode path's fused products (`loom_par_matvec_fused`, `loom_par_matvec_swiglu`) give
/// bit for bit what one `loom_matvec` per matrix followed by the separate bias, residual and
/// SwiGLU ops gives: fusing changes how rows are spread over threads and how often x is
/// quantized, never a result.
@Suite struct FusedMatvecTests {
    /// A weight matrix of random rows and the output buffer its part writes.
    final class Matrix {
        let type: Int32
        let rows: Int
        let weights: [UInt8]
        let rowBytes: Int
        var y: [Float]
        init(_ type: Int32, rows: Int, cols: Int, rng: inout TestRNG) {
            self.type = type
            self.rows = rows
            let c = QuantCase.all.first { $0.type == type }!
            weights = randomWeights(c, rows: rows, cols: cols, rng: &rng)
            rowBytes = Int(loom_row_bytes(type, Int64(cols)))
            y = [Float](repeating: .nan, count: rows)
        }
        /// The unfused result: one single-threaded matvec over every row.
        func reference(_ x: [Float], cols: Int) -> [Float] {
            var out = [Float](repeating: 0, count: rows)
            loom_matvec(type, weights, rowBytes, Int64(cols), x, &out, 0, Int64(rows))
            return out
        }
    }

    /// Calls `body` with parts describing `matrices` (pointers valid only inside).
    static func withParts<R>(_ matrices: [Matrix], bias: [[Float]?], accumulate: [Bool],
                             _ body: ([loom_matvec_part]) -> R) -> R {
        var parts: [loom_matvec_part] = []
        var pins: [() -> Void] = []
        for (i, m) in matrices.enumerated() {
            let w = UnsafeMutableRawPointer.allocate(byteCount: max(m.weights.count, 1), alignment: 64)
            w.copyMemory(from: m.weights, byteCount: m.weights.count)
            let y = UnsafeMutablePointer<Float>.allocate(capacity: m.rows)
            y.initialize(from: m.y, count: m.rows)
            let b = bias[i].map { src -> UnsafeMutablePointer<Float> in
                let p = UnsafeMutablePointer<Float>.allocate(capacity: src.count)
                p.initialize(from: src, count: src.count)
                return p
            }
            parts.append(loom_matvec_part(type: m.type, w: w, row_bytes: m.rowBytes, n_rows: Int64(m.rows), y: y,
                                          ldy: 0, bias: b.map { UnsafePointer($0) }, accumulate: accumulate[i] ? 1 : 0))
            pins.append {
                m.y = Array(UnsafeBufferPointer(start: y, count: m.rows))
                w.deallocate(); y.deallocate(); b?.deallocate()
            }
        }
        let r = body(parts)
        for pin in pins { pin() }
        return r
    }

    /// Q/K/V-like shapes (row counts not multiples of the 16-row split unit), mixed types as
    /// Q4_K_M files mix them, biases and a residual part, on 1–3 threads.
    @Test(arguments: [
        [LOOM_TYPE_Q4_1, LOOM_TYPE_Q4_1, LOOM_TYPE_Q4_1], [LOOM_TYPE_Q4_K, LOOM_TYPE_Q4_K, LOOM_TYPE_Q6_K],
        [LOOM_TYPE_F32, LOOM_TYPE_F32, LOOM_TYPE_F32], [LOOM_TYPE_Q8_0, LOOM_TYPE_F16, LOOM_TYPE_Q5_0],
    ])
    func fusedEqualsOneMatvecPerMatrix(types: [loom_type]) {
        let cols = 512
        var rng = TestRNG(seed: 77)
        let x = randomActivations(count: cols, rng: &rng)
        let rowCounts = [72, 24, 37]
        let biases: [[Float]?] = [rowCounts[0], nil, rowCounts[2]].map { n in n.map { (0..<$0).map { _ in rng.float() } } }
        let residual = (0..<rowCounts[1]).map { _ in rng.float() * 4 }
        do {
            for threads in [1, 2, 3] {
                let pool = loom_pool_create(Int32(threads))!
                defer { loom_pool_destroy(pool) }
                let matrices = zip(types, rowCounts).map { Matrix(Int32($0.0.rawValue), rows: $0.1, cols: cols, rng: &rng) }
                matrices[1].y = residual
                var scratch = [UInt8](repeating: 0, count: loom_par_matvec_scratch_bytes(pool, Int64(cols)))
                Self.withParts(matrices, bias: biases, accumulate: [false, true, false]) { parts in
                    parts.withUnsafeBufferPointer { p in
                        loom_par_matvec_fused(pool, p.baseAddress, Int32(p.count), Int64(cols), x, &scratch)
                    }
                }
                for (i, m) in matrices.enumerated() {
                    var expected = m.reference(x, cols: cols)
                    if i == 1 { expected = zip(residual, expected).map { $0 + $1 } }
                    if let b = biases[i] { expected = zip(expected, b).map { $0 + $1 } }
                    #expect(m.y == expected, "\(types) part \(i) threads \(threads)")
                }
            }
        }
    }

    /// Gate and up rows multiplied and combined by SwiGLU in one dispatch equal two matvecs and
    /// `loom_swiglu` over the whole vector, for row counts that do and do not fill 8-lane groups.
    @Test(arguments: [(LOOM_TYPE_Q4_1, 1536), (LOOM_TYPE_Q4_K, 172), (LOOM_TYPE_F32, 100)])
    func swigluEqualsTwoMatvecsAndTheActivation(type: loom_type, rows: Int) {
        let cols = 256
        var rng = TestRNG(seed: 78)
        let x = randomActivations(count: cols, rng: &rng)
        do {
            for threads in [1, 2, 3] {
                let pool = loom_pool_create(Int32(threads))!
                defer { loom_pool_destroy(pool) }
                let gate = Matrix(Int32(type.rawValue), rows: rows, cols: cols, rng: &rng)
                let up = Matrix(Int32(type.rawValue), rows: rows, cols: cols, rng: &rng)
                var expected = [Float](repeating: 0, count: rows)
                loom_swiglu(&expected, gate.reference(x, cols: cols), up.reference(x, cols: cols), Int64(rows))
                var h = [Float](repeating: .nan, count: rows)
                var scratch = [UInt8](repeating: 0, count: loom_par_matvec_scratch_bytes(pool, Int64(cols)))
                let rc = Self.withParts([gate, up], bias: [nil, nil], accumulate: [false, false]) { parts in
                    loom_par_matvec_swiglu(pool, [parts[0]], [parts[1]], Int64(cols), x, &h, &scratch)
                }
                #expect(rc == 0)
                #expect(h == expected, "\(type) rows \(rows) threads \(threads)")
            }
        }
    }

    @Test func swigluRejectsMismatchedParts() {
        var rng = TestRNG(seed: 79)
        let gate = Matrix(Int32(LOOM_TYPE_F32.rawValue), rows: 16, cols: 32, rng: &rng)
        let up = Matrix(Int32(LOOM_TYPE_F32.rawValue), rows: 17, cols: 32, rng: &rng)
        var h = [Float](repeating: 0, count: 17)
        var scratch = [UInt8](repeating: 0, count: loom_par_matvec_scratch_bytes(nil, 32))
        let x = [Float](repeating: 1, count: 32)
        let rc = Self.withParts([gate, up], bias: [nil, nil], accumulate: [false, false]) { parts in
            loom_par_matvec_swiglu(nil, [parts[0]], [parts[1]], 32, x, &h, &scratch)
        }
        #expect(rc == -1)
    }
}
