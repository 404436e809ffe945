import CTensor

/// The forward pass's entry points into CTensor (`loom_parallel.h` on the transformer's pool),
/// adapting Swift views (`WeightMatrix`, `ThreadPool`) to the C signatures so the transformer
/// reads as math. No kernel code lives here.
enum Kernels {
    /// Dequantizes `count` elements (whole blocks) of type `type` to F32.
    @inline(__always)
    static func dequantizeRow(type: Int32, source: UnsafeRawPointer, destination: UnsafeMutablePointer<Float>, count: Int) {
        loom_dequantize_row(type, source, destination, Int64(count))
    }

    /// Row `r` of `w` (of any layout) as F32.
    @inline(__always)
    static func dequantizeRow(_ w: WeightMatrix, _ r: Int, destination: UnsafeMutablePointer<Float>) {
        loom_dequantize_rows(w.type, w.data, w.rowBytes, Int64(w.columns), Int64(r), 1, destination)
    }

    /// `y[b*ldy + r] = W_r · x[b*ldx ...]` for every row r of `w` and b in 0..<batch: matvec for
    /// one token, quantized matmul for small batches, dequantized tiles through sgemm from
    /// `loom_blas_min_batch()` tokens where sgemm is the faster (`loom_matmul_beats_sgemm`).
    @inline(__always)
    static func matmul(_ pool: ThreadPool, _ w: WeightMatrix, x: UnsafePointer<Float>, ldx: Int,
                       y: UnsafeMutablePointer<Float>, ldy: Int, batch: Int, scratch: UnsafeMutablePointer<Float>) {
        if batch == 1 {
            loom_par_matvec(pool.pool, w.type, w.data, w.rowBytes, Int64(w.columns), x, y, Int64(w.rows))
        } else {
            loom_par_matmul(pool.pool, w.type, w.data, w.rowBytes, Int64(w.columns), Int64(w.rows), x, Int64(ldx), y,
                            Int64(ldy), Int64(batch), scratch)
        }
    }

    /// RMSNorm of `rows` rows of `n` floats, `stride` apart.
    @inline(__always)
    static func rmsNorm(_ pool: ThreadPool, _ x: UnsafePointer<Float>, gain: UnsafePointer<Float>,
                        out: UnsafeMutablePointer<Float>, count n: Int, rows: Int, stride: Int, epsilon: Float) {
        loom_par_rmsnorm(pool.pool, out, x, gain, Int64(n), Int64(rows), Int64(stride), epsilon)
    }

    /// Causal attention of `tokens` queries at positions `start...` over the cache described by `d`.
    @inline(__always)
    static func attention(_ pool: ThreadPool, _ d: inout loom_attention_desc, q: UnsafePointer<Float>, qStride: Int,
                          out: UnsafeMutablePointer<Float>, outStride: Int, tokens: Int, start: Int,
                          scratch: UnsafeMutablePointer<Float>) {
        let rc = loom_par_attention(pool.pool, &d, q, Int64(qStride), out, Int64(outStride), Int64(tokens), Int64(start),
                                    scratch)
        assert(rc == 0, "attention geometry validated when the transformer was built")
    }

    /// `y = silu(gate) * up` over `n` floats (y may alias gate).
    @inline(__always)
    static func swiglu(_ pool: ThreadPool, _ y: UnsafeMutablePointer<Float>, gate: UnsafePointer<Float>,
                       up: UnsafePointer<Float>, count n: Int) {
        loom_par_swiglu(pool.pool, y, gate, up, Int64(n))
    }

    /// Scratch bytes the fused decode products need for inputs of up to `columns` elements.
    static func matvecScratchBytes(_ pool: ThreadPool, columns: Int) -> Int {
        Int(loom_par_matvec_scratch_bytes(pool.pool, Int64(columns)))
    }

    /// Scratch floats `matmul` needs for rows of `columns` elements.
    static func matmulScratchFloats(_ pool: ThreadPool, columns: Int) -> Int {
        Int(loom_par_matmul_scratch_floats(pool.pool, Int64(columns)))
    }

    /// Scratch floats `attention` needs when the last query sees `positions` positions.
    static func attentionScratchFloats(_ pool: ThreadPool, _ d: loom_attention_desc, positions: Int) -> Int {
        // The size depends only on the geometry, but the C validator also wants K/V pointers:
        // point it at a dummy until a cache is bound.
        var dummy: Float = 0
        return withUnsafePointer(to: &dummy) { p in
            var probe = d
            probe.k = UnsafeRawPointer(p)
            probe.v = UnsafeRawPointer(p)
            return Int(loom_par_attention_scratch_floats(pool.pool, &probe, Int64(positions)))
        }
    }
}
