import CTensor

/// The forward pass's entry points into CTensor, in one place so the transformer reads as math.
///
/// TEMPORARY: until the `kernels` and `ops` branches land, the bodies below are plain Swift loops
/// for F32/F16/BF16 weights (enough to prove exactness on the F32 models). They are replaced by
/// the CTensor calls at merge time; no kernel code is meant to stay here.
enum Kernels {
    /// Dequantizes `count` elements (whole blocks) of type `type` to F32.
    @inline(__always)
    static func dequantizeRow(type: Int32, source: UnsafeRawPointer, destination: UnsafeMutablePointer<Float>, count: Int) {
        loom_dequantize_row(type, source, destination, Int64(count))
    }

    /// `y[b*ldy + r] = dot(W row r, x[b*ldx ...])` for every row r of `w` and b in 0..<batch.
    static func matmul(_ pool: ThreadPool, _ w: WeightMatrix, x: UnsafePointer<Float>, ldx: Int,
                       y: UnsafeMutablePointer<Float>, ldy: Int, batch: Int) {
        if batch == 1 {
            loom_matvec(w.type, w.data, w.rowBytes, Int64(w.columns), x, y, 0, Int64(w.rows))
        } else {
            loom_matmul(w.type, w.data, w.rowBytes, Int64(w.columns), x, Int64(ldx), y, Int64(ldy), Int64(batch),
                        0, Int64(w.rows))
        }
    }

    /// `out = gain * x / sqrt(mean(x²) + eps)` over `n` elements.
    static func rmsNorm(_ x: UnsafePointer<Float>, gain: UnsafePointer<Float>, out: UnsafeMutablePointer<Float>,
                        count n: Int, epsilon: Float) {
        var ss: Double = 0
        for i in 0..<n { ss += Double(x[i]) * Double(x[i]) }
        let scale = Float(1.0 / (ss / Double(n) + Double(epsilon)).squareRoot())
        for i in 0..<n { out[i] = gain[i] * (x[i] * scale) }
    }

    /// Rotates `heads` heads of `headDim` components in place by the per-pair angles whose
    /// cosines/sines are `cos[i]`, `sin[i]` for pair i < `rotated/2`.
    static func rope(_ x: UnsafeMutablePointer<Float>, heads: Int, headDim: Int, rotated: Int,
                     cos: UnsafePointer<Float>, sin: UnsafePointer<Float>, halfSplit: Bool) {
        let half = rotated / 2
        for h in 0..<heads {
            let v = x + h * headDim
            for i in 0..<half {
                let (ia, ib) = halfSplit ? (i, i + half) : (2 * i, 2 * i + 1)
                let a = v[ia], b = v[ib]
                v[ia] = a * cos[i] - b * sin[i]
                v[ib] = a * sin[i] + b * cos[i]
            }
        }
    }

    /// Causal GQA attention of one query token over cache positions `0..<length`.
    static func attention(query: UnsafePointer<Float>, keys: UnsafeRawPointer, values: UnsafeRawPointer,
                          f16: Bool, length: Int, heads: Int, kvHeads: Int, headDim: Int,
                          out: UnsafeMutablePointer<Float>, scores: UnsafeMutablePointer<Float>) {
        let kvStride = kvHeads * headDim
        let group = heads / kvHeads
        let scale = 1 / Float(headDim).squareRoot()
        func load(_ base: UnsafeRawPointer, _ index: Int) -> Float {
            f16 ? loom_fp16_to_fp32(base.assumingMemoryBound(to: UInt16.self)[index])
                : base.assumingMemoryBound(to: Float.self)[index]
        }
        for h in 0..<heads {
            let q = query + h * headDim
            let kvOffset = (h / group) * headDim
            var maxScore = -Float.infinity
            for t in 0..<length {
                var dot: Float = 0
                for i in 0..<headDim { dot += q[i] * load(keys, t * kvStride + kvOffset + i) }
                scores[t] = dot * scale
                maxScore = max(maxScore, scores[t])
            }
            var sum: Float = 0
            for t in 0..<length {
                scores[t] = (scores[t] - maxScore).exp
                sum += scores[t]
            }
            let o = out + h * headDim
            for i in 0..<headDim { o[i] = 0 }
            for t in 0..<length {
                let w = scores[t] / sum
                for i in 0..<headDim { o[i] += w * load(values, t * kvStride + kvOffset + i) }
            }
        }
    }

    /// `gate[i] = silu(gate[i]) * up[i]`.
    static func swiglu(gate: UnsafeMutablePointer<Float>, up: UnsafePointer<Float>, count: Int) {
        for i in 0..<count {
            let g = gate[i]
            gate[i] = g / (1 + (-g).exp) * up[i]
        }
    }
}

private extension Float {
    var exp: Float { Float(Foundation_exp(Double(self))) }
}

#if canImport(Glibc)
import Glibc
private func Foundation_exp(_ x: Double) -> Double { Glibc.exp(x) }
#else
import Darwin
private func Foundation_exp(_ x: Double) -> Double { Darwin.exp(x) }
#endif
