import CTensor
import Foundation
import Testing

/// Norms, softmax, activations and element-wise ops against float64 references, on every tier.
@Suite struct OpsTests {
    @Test func rmsnormMatchesFloat64OnEveryTier() {
        var gen = OpsSupport.Numbers(seed: 1)
        OpsSupport.forEachTier { tier in
            for n in OpsSupport.edgeSizes {
                let x = gen.floats(n, -3, 3)
                let w = gen.floats(n, 0.5, 1.5)
                let eps: Float = 1e-5
                let ms = x.reduce(0.0) { $0 + Double($1) * Double($1) } / Double(n)
                let inv = 1.0 / (ms + Double(eps)).squareRoot()
                let ref = (0..<n).map { Double(x[$0]) * inv * Double(w[$0]) }
                var y = [Float](repeating: 0, count: n)
                loom_rmsnorm(&y, x, w, Int64(n), eps)
                #expect(OpsSupport.maxRelError(y, ref) < 1e-6, "tier \(tier) n \(n)")
                // In place, and without a weight.
                var inPlace = x
                inPlace.withUnsafeMutableBufferPointer { p in loom_rmsnorm(p.baseAddress, p.baseAddress, nil, Int64(n), eps) }
                let refNoW = (0..<n).map { Double(x[$0]) * inv }
                #expect(OpsSupport.maxRelError(inPlace, refNoW) < 1e-6, "tier \(tier) n \(n) in place")
            }
        }
    }

    @Test func layernormMatchesFloat64OnEveryTier() {
        var gen = OpsSupport.Numbers(seed: 2)
        OpsSupport.forEachTier { tier in
            for n in OpsSupport.edgeSizes {
                // An offset mean checks the two-pass variance.
                let x = gen.floats(n, 9, 11)
                let w = gen.floats(n, 0.5, 1.5)
                let b = gen.floats(n, -0.5, 0.5)
                let eps: Float = 1e-5
                let mean = x.reduce(0.0) { $0 + Double($1) } / Double(n)
                let v = x.reduce(0.0) { $0 + (Double($1) - mean) * (Double($1) - mean) } / Double(n)
                let inv = 1.0 / (v + Double(eps)).squareRoot()
                let ref = (0..<n).map { (Double(x[$0]) - mean) * inv * Double(w[$0]) + Double(b[$0]) }
                var y = [Float](repeating: 0, count: n)
                loom_layernorm(&y, x, w, b, Int64(n), eps)
                // The scaling pass is F32 on values near 10: allow a few ulp of that magnitude.
                #expect(OpsSupport.maxRelError(y, ref) < 2e-5, "tier \(tier) n \(n)")
            }
        }
    }

    @Test func softmaxMatchesFloat64OnEveryTier() {
        var gen = OpsSupport.Numbers(seed: 3)
        OpsSupport.forEachTier { tier in
            for n in OpsSupport.edgeSizes + [49152] {
                var x = gen.floats(n, -30, 30)
                if n > 3 { x[1] = -.infinity; x[n - 1] = -.infinity }
                let m = Double(x.max()!)
                let e = x.map { $0 == -.infinity ? 0 : exp(Double($0) - m) }
                let s = e.reduce(0, +)
                let ref = e.map { $0 / s }
                var y = x
                loom_softmax(&y, Int64(n))
                let worst = zip(y, ref).map { abs(Double($0) - $1) / max($1, 1e-30) }.filter { $0.isFinite }
                    .max() ?? 0
                // Relative error per probability (tiny probabilities included).
                #expect(worst < 5e-6, "tier \(tier) n \(n)")
                if n > 3 { #expect(y[1] == 0 && y[n - 1] == 0) }
                let total = y.reduce(0.0) { $0 + Double($1) }
                #expect(abs(total - 1) < 1e-5)
            }
        }
    }

    @Test func softmaxOfLargeLogitsAndAllMaskedRows() {
        OpsSupport.forEachTier { tier in
            var big: [Float] = [1000, 999, 998, -1000] + [Float](repeating: 500, count: 13)
            loom_softmax(&big, Int64(big.count))
            #expect(big.allSatisfy { $0.isFinite }, "tier \(tier)")
            #expect(abs(Double(big[0]) - 1 / (1 + exp(-1.0) + exp(-2.0))) < 1e-6)
            var masked = [Float](repeating: -.infinity, count: 20)
            loom_softmax(&masked, 20)
            #expect(masked.allSatisfy { $0 == 0 }, "tier \(tier)")
        }
    }

    @Test func activationsMatchFloat64OnEveryTier() {
        var gen = OpsSupport.Numbers(seed: 4)
        func silu(_ x: Double) -> Double { x / (1 + exp(-x)) }
        func gelu(_ x: Double) -> Double {
            0.5 * x * (1 + tanh((2 / Double.pi).squareRoot() * (x + 0.044715 * x * x * x)))
        }
        OpsSupport.forEachTier { tier in
            for n in OpsSupport.edgeSizes {
                var x = gen.floats(n, -12, 12)
                // Saturating inputs: exp overflow/underflow inside the sigmoid.
                let extremes: [Float] = [-100, 100, -88.5, 88.9, -87, 0, -0.0, 1e-8]
                for (i, v) in extremes.enumerated() where i < n { x[i] = v }
                let up = gen.floats(n, -2, 2)
                var y = [Float](repeating: 0, count: n)
                loom_silu(&y, x, Int64(n))
                #expect(OpsSupport.maxRelError(y, x.map { silu(Double($0)) }) < 5e-7, "silu tier \(tier) n \(n)")
                loom_gelu(&y, x, Int64(n))
                #expect(OpsSupport.maxRelError(y, x.map { gelu(Double($0)) }) < 5e-7, "gelu tier \(tier) n \(n)")
                loom_swiglu(&y, x, up, Int64(n))
                let sw = (0..<n).map { silu(Double(x[$0])) * Double(up[$0]) }
                #expect(OpsSupport.maxRelError(y, sw) < 1e-6, "swiglu tier \(tier) n \(n)")
                loom_geglu(&y, x, up, Int64(n))
                let gg = (0..<n).map { gelu(Double(x[$0])) * Double(up[$0]) }
                #expect(OpsSupport.maxRelError(y, gg) < 1e-6, "geglu tier \(tier) n \(n)")
                loom_gelu_erf(&y, x, Int64(n))
                let ge = x.map { 0.5 * Double($0) * (1 + erf(Double($0) / 2.0.squareRoot())) }
                #expect(OpsSupport.maxRelError(y, ge) < 5e-7, "gelu_erf tier \(tier) n \(n)")
                // In place over the gate.
                var g = x
                g.withUnsafeMutableBufferPointer { p in loom_swiglu(p.baseAddress, p.baseAddress, up, Int64(n)) }
                #expect(OpsSupport.maxRelError(g, sw) < 1e-6)
            }
        }
    }

    /// Soft-capping saturates to ±cap without overflow and stays within float rounding of the cap
    /// (the form 1 − 2/(1 + e^2u) loses relative, not absolute, precision near 0).
    @Test func softcapMatchesFloat64OnEveryTier() {
        var gen = OpsSupport.Numbers(seed: 7)
        OpsSupport.forEachTier { tier in
            for n in OpsSupport.edgeSizes {
                var x = gen.floats(n, -200, 200)
                let extremes: [Float] = [-1e6, 1e6, 0, -0.0, 1e-8, 30, -30]
                for (i, v) in extremes.enumerated() where i < n { x[i] = v }
                var y = [Float](repeating: 0, count: n)
                loom_softcap(&y, x, 30, Int64(n))
                let worst = zip(y, x).map { abs(Double($0) - 30 * tanh(Double($1) / 30)) }.max() ?? 0
                #expect(worst < 30 * 4e-7, "softcap tier \(tier) n \(n): \(worst)")
                #expect(y.allSatisfy { abs($0) <= 30 }, "tier \(tier)")
            }
        }
    }

    @Test func halfRowsConvertBitExactlyOnEveryTier() {
        var gen = OpsSupport.Numbers(seed: 6)
        OpsSupport.forEachTier { tier in
            for n in OpsSupport.edgeSizes {
                var x = gen.floats(n, -70000, 70000)
                // Ties, subnormals, overflow, infinities and NaN.
                let specials: [Float] = [1 + 0x1p-11, 1 + 3 * 0x1p-11, 0x1p-20, -0x1p-25, 65520, -70000, .infinity, 0]
                for (i, v) in specials.enumerated() where i < n { x[i] = v * (i % 2 == 0 ? 1 : 0.001) }
                for i in stride(from: 8, to: n, by: 5) { x[i] = gen.float(-1e-4, 1e-4) }
                var h = [UInt16](repeating: 0, count: n)
                loom_fp32_to_fp16_row(&h, x, Int64(n))
                #expect(h == x.map { loom_fp32_to_fp16($0) }, "tier \(tier) n \(n)")
                var back = [Float](repeating: 0, count: n)
                loom_fp16_to_fp32_row(&back, h, Int64(n))
                #expect(back == h.map { loom_fp16_to_fp32($0) }, "tier \(tier) n \(n)")
            }
        }
    }

    @Test func elementwiseArithmeticIsExactOnEveryTier() {
        var gen = OpsSupport.Numbers(seed: 5)
        OpsSupport.forEachTier { tier in
            for n in OpsSupport.edgeSizes {
                let a = gen.floats(n, -5, 5), b = gen.floats(n, -5, 5)
                var y = [Float](repeating: 0, count: n)
                loom_add(&y, a, b, Int64(n))
                #expect(y == zip(a, b).map { $0 + $1 }, "add tier \(tier) n \(n)")
                loom_mul(&y, a, b, Int64(n))
                #expect(y == zip(a, b).map { $0 * $1 }, "mul tier \(tier) n \(n)")
                var s = a
                loom_scale(&s, 0.37, Int64(n))
                #expect(s == a.map { $0 * 0.37 }, "scale tier \(tier) n \(n)")
            }
        }
    }
}
