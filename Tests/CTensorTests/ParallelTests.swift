import CTensor
import Foundation
import Testing

/// Pool-parallel wrappers give the results of the single-threaded kernels they split (to rounding:
/// see OpsSupport.close).
@Suite(.timeLimit(.minutes(2))) struct ParallelTests {
    @Test func splitCoversTheRangeInAlignedDisjointChunks() {
        for n in [0, 1, 15, 16, 17, 100, 1536, 49152] {
            for nth in 1...7 {
                var next: Int64 = 0
                for ith in 0..<nth {
                    var b: Int64 = 0, e: Int64 = 0
                    loom_split_range(Int64(n), Int32(ith), Int32(nth), 16, &b, &e)
                    #expect(b == next, "n \(n) nth \(nth) ith \(ith)")
                    #expect(b % 16 == 0 || b == Int64(n))
                    #expect(e >= b)
                    next = e
                }
                #expect(next == Int64(n))
            }
        }
    }

    static func q8Rows(_ rows: Int, _ cols: Int, gen: inout OpsSupport.Numbers) -> [UInt8] {
        // Q8_0 blocks: an F16 scale and 32 int8 quants.
        var bytes = [UInt8]()
        for _ in 0..<(rows * cols / 32) {
            let d = loom_fp32_to_fp16(gen.float(0.001, 0.02))
            bytes += [UInt8(d & 0xFF), UInt8(d >> 8)]
            for _ in 0..<32 { bytes.append(UInt8(truncatingIfNeeded: Int(gen.next() % 255) - 127)) }
        }
        return bytes
    }

    @Test(arguments: [LOOM_TYPE_F32, LOOM_TYPE_Q8_0])
    func matvecEqualsTheSingleThreadedKernel(type: loom_type) {
        var gen = OpsSupport.Numbers(seed: 50)
        let rows = 200, cols = 96
        let w: [UInt8] = type == LOOM_TYPE_F32
            ? gen.floats(rows * cols).withUnsafeBytes { Array($0) } : Self.q8Rows(rows, cols, gen: &gen)
        let rowBytes = loom_row_bytes(Int32(type.rawValue), Int64(cols))
        let x = gen.floats(cols)
        var serial = [Float](repeating: 0, count: rows), parallel = serial
        loom_matvec(Int32(type.rawValue), w, rowBytes, Int64(cols), x, &serial, 0, Int64(rows))
        for threads in [1, 2, 3] {
            let pool = loom_pool_create(Int32(threads))!
            defer { loom_pool_destroy(pool) }
            loom_par_matvec(pool, Int32(type.rawValue), w, rowBytes, Int64(cols), x, &parallel, Int64(rows))
            #expect(OpsSupport.close(parallel, serial), "threads \(threads)")
        }
    }

    @Test(arguments: [LOOM_TYPE_F32, LOOM_TYPE_Q8_0])
    func matmulMatchesOnBothPaths(type: loom_type) {
        var gen = OpsSupport.Numbers(seed: 51)
        // 600 rows: each of 2 threads walks more than one 256-row dequantized tile.
        let rows = 600, cols = 64
        let w: [UInt8] = type == LOOM_TYPE_F32
            ? gen.floats(rows * cols).withUnsafeBytes { Array($0) } : Self.q8Rows(rows, cols, gen: &gen)
        let t = Int32(type.rawValue)
        let rowBytes = loom_row_bytes(t, Int64(cols))
        // Float64 reference from the dequantized weights.
        var deq = [Float](repeating: 0, count: rows * cols)
        for r in 0..<rows {
            w.withUnsafeBytes { wb in
                deq.withUnsafeMutableBufferPointer { d in
                    loom_dequantize_row(t, wb.baseAddress! + r * rowBytes, d.baseAddress! + r * cols, Int64(cols))
                }
            }
        }
        let pool = loom_pool_create(2)!
        defer { loom_pool_destroy(pool) }
        for batch in [1, 5, Int(loom_blas_min_batch()), Int(loom_blas_min_batch()) + 7] {
            let x = gen.floats(batch * cols)
            var y = [Float](repeating: .nan, count: batch * rows)
            // Sized for longer rows than this matrix has, as an engine sizes it for its widest one.
            let floats = loom_par_matmul_scratch_floats(pool, Int64(cols))
            #expect(loom_par_matmul_scratch_floats(pool, 5000) >= floats)
            var scratch = [Float](repeating: 0, count: batch % 2 == 0 ? floats : loom_par_matmul_scratch_floats(pool, 5000))
            loom_par_matmul(pool, t, w, rowBytes, Int64(cols), Int64(rows), x, Int64(cols), &y, Int64(rows), Int64(batch),
                            &scratch)
            var worst = 0.0
            for b in 0..<batch {
                for r in 0..<rows {
                    var s = 0.0
                    for c in 0..<cols { s += Double(deq[r * cols + c]) * Double(x[b * cols + c]) }
                    worst = max(worst, abs(Double(y[b * rows + r]) - s) / max(1, abs(s)))
                }
            }
            // The quantized kernels round activations (A16); sgemm runs on exact F32 values.
            #expect(worst < (type == LOOM_TYPE_F32 ? 1e-5 : 1e-3), "batch \(batch)")
        }
    }

    @Test func attentionOnThePoolEqualsSerial() {
        var gen = OpsSupport.Numbers(seed: 52)
        let nHead = 6, nKV = 2, hd = 32, pos0 = 4, nTokens = 5
        let k = gen.floats((pos0 + nTokens) * nKV * hd), v = gen.floats((pos0 + nTokens) * nKV * hd)
        let q = gen.floats(nTokens * nHead * hd)
        k.withUnsafeBytes { kb in
            v.withUnsafeBytes { vb in
                var d = loom_attention_desc(n_head: Int64(nHead), n_kv_head: Int64(nKV), head_dim: Int64(hd), kv_type: 0,
                                            kv_stride: Int64(nKV * hd), k: kb.baseAddress, v: vb.baseAddress, scale: 0.18,
                                            block_table: nil, block_size: 0, window: 0)
                let pool = loom_pool_create(3)!
                defer { loom_pool_destroy(pool) }
                for (p0, n) in [(pos0, nTokens), (pos0 + nTokens - 1, 1)] {
                    var serial = [Float](repeating: 0, count: n * nHead * hd), parallel = serial
                    var s1 = [Float](repeating: 0, count: loom_attention_scratch_floats(&d, Int64(p0 + n)))
                    let qs = Array(q[((nTokens - n) * nHead * hd)...])
                    #expect(loom_attention_prefill(&d, qs, Int64(nHead * hd), &serial, Int64(nHead * hd), Int64(n), Int64(p0),
                                                   0, 1, &s1) == 0)
                    var s2 = [Float](repeating: 0, count: loom_par_attention_scratch_floats(pool, &d, Int64(p0 + n)))
                    #expect(loom_par_attention(pool, &d, qs, Int64(nHead * hd), &parallel, Int64(nHead * hd), Int64(n),
                                               Int64(p0), &s2) == 0)
                    #expect(OpsSupport.close(parallel, serial), "tokens \(n)")
                }
            }
        }
    }

    @Test func rowOpsOnThePoolEqualSerial() {
        var gen = OpsSupport.Numbers(seed: 53)
        let n = 100, rows = 7
        let x = gen.floats(n * rows), w = gen.floats(n)
        var serial = x, parallel = x
        for r in 0..<rows {
            serial.withUnsafeMutableBufferPointer { p in loom_rmsnorm(p.baseAddress! + r * n, p.baseAddress! + r * n, w, Int64(n), 1e-6) }
        }
        let pool = loom_pool_create(3)!
        defer { loom_pool_destroy(pool) }
        parallel.withUnsafeMutableBufferPointer { p in
            loom_par_rmsnorm(pool, p.baseAddress, p.baseAddress, w, Int64(n), Int64(rows), Int64(n), 1e-6)
        }
        #expect(OpsSupport.close(parallel, serial))
        for n in [1000, 10001] {  // below and above the size worth a dispatch
            let gate = gen.floats(n), up = gen.floats(n)
            var a = [Float](repeating: 0, count: n), b = a
            loom_swiglu(&a, gate, up, Int64(n))
            loom_par_swiglu(pool, &b, gate, up, Int64(n))
            #expect(OpsSupport.close(a, b))
        }
    }
}
