import CTensor
import Foundation
import Testing

/// RoPE in both pairings against the rotation formula evaluated in float64.
@Suite struct RopeTests {
    /// Rotates one head of `x` in float64: pair i by pos * scale * base^(-2i/nDims) / factor[i].
    static func reference(_ x: [Float], headDim: Int, nDims: Int, neox: Bool, pos: Int32, base: Float, scale: Float,
                          factors: [Float]?) -> [Double] {
        var out = x.map(Double.init)
        let half = nDims / 2
        for i in 0..<half {
            var theta = Double(pos) * Double(scale) * pow(Double(base), -2.0 * Double(i) / Double(nDims))
            if let f = factors { theta /= Double(f[i]) }
            let (a, b) = neox ? (i, i + half) : (2 * i, 2 * i + 1)
            let xa = Double(x[a]), xb = Double(x[b])
            out[a] = xa * cos(theta) - xb * sin(theta)
            out[b] = xa * sin(theta) + xb * cos(theta)
        }
        return out
    }

    @Test(arguments: [LOOM_ROPE_ADJACENT, LOOM_ROPE_NEOX])
    func rotationMatchesTheFormula(layout: loom_rope_layout) {
        var gen = OpsSupport.Numbers(seed: 10)
        let configs: [(headDim: Int, nDims: Int, base: Float, scale: Float, factors: Bool)] = [
            (64, 64, 10000, 1, false), (64, 32, 10000, 1, false), (128, 128, 500000, 0.25, true), (6, 4, 100, 1, false),
        ]
        for c in configs {
            let nTokens = 5, nHeads = 3
            let positions: [Int32] = [0, 1, 17, 1000, 32767]
            let x = gen.floats(nTokens * nHeads * c.headDim, -2, 2)
            let factors: [Float]? = c.factors ? (0..<(c.nDims / 2)).map { 1 + Float($0) * 0.25 } : nil
            var y = x
            let rc = (factors ?? []).withUnsafeBufferPointer { fp -> Int32 in
                var p = loom_rope_params(n_dims: Int32(c.nDims), layout: Int32(layout.rawValue), freq_base: c.base,
                                         freq_scale: c.scale, freq_factors: factors == nil ? nil : fp.baseAddress)
                return loom_rope(&y, Int64(nTokens), Int64(nHeads), Int64(c.headDim), 0, positions, &p)
            }
            #expect(rc == 0)
            for t in 0..<nTokens {
                for h in 0..<nHeads {
                    let o = (t * nHeads + h) * c.headDim
                    let head = Array(x[o..<(o + c.headDim)])
                    let ref = Self.reference(head, headDim: c.headDim, nDims: c.nDims, neox: layout == LOOM_ROPE_NEOX,
                                             pos: positions[t], base: c.base, scale: c.scale, factors: factors)
                    let got = Array(y[o..<(o + c.headDim)])
                    // cos/sin are rounded to float before rotating: a couple of float ulps.
                    #expect(OpsSupport.maxRelError(got, ref) < 1e-6, "layout \(layout) cfg \(c) t \(t)")
                    // Dimensions past n_dims pass through untouched.
                    #expect(Array(got[c.nDims...]) == Array(head[c.nDims...]))
                }
            }
        }
    }

    @Test func cachedTableAndTokenStrideGiveTheSameResult() {
        var gen = OpsSupport.Numbers(seed: 11)
        let nTokens = 4, nHeads = 2, headDim = 16, stride = 3 * nHeads * headDim
        let positions: [Int32] = [3, 4, 5, 6]
        var p = loom_rope_params(n_dims: 16, layout: Int32(LOOM_ROPE_NEOX.rawValue), freq_base: 10000, freq_scale: 1,
                                 freq_factors: nil)
        let fused = gen.floats(nTokens * stride)
        var a = fused, b = fused
        #expect(loom_rope(&a, Int64(nTokens), Int64(nHeads), Int64(headDim), Int64(stride), positions, &p) == 0)
        var cache = [Float](repeating: 0, count: loom_rope_cache_floats(Int64(nTokens), &p))
        #expect(loom_rope_cache_fill(&cache, Int64(nTokens), positions, &p) == 0)
        #expect(loom_rope_cached(&b, Int64(nTokens), Int64(nHeads), Int64(headDim), Int64(stride), cache, &p) == 0)
        #expect(a == b)
        // Only the first nHeads*headDim floats of each token row moved.
        for t in 0..<nTokens {
            let tail = (t * stride + nHeads * headDim)..<((t + 1) * stride)
            #expect(Array(a[tail]) == Array(fused[tail]))
        }
    }

    @Test func invalidDimensionsAreRejected() {
        var x = [Float](repeating: 1, count: 16)
        let pos: [Int32] = [1]
        for nDims: Int32 in [0, 3, 18, -2] {
            var p = loom_rope_params(n_dims: nDims, layout: 0, freq_base: 10000, freq_scale: 1, freq_factors: nil)
            #expect(loom_rope(&x, 1, 1, 16, 0, pos, &p) == -1)
        }
        #expect(x.allSatisfy { $0 == 1 })
    }
}
