import CTensor
import Foundation
import Testing

/// Attention over F32 and F16 KV caches against a naive float64 implementation.
@Suite struct AttentionTests {
    struct Cache {
        var k: [Float]
        var v: [Float]
        var k16: [UInt16]
        var v16: [UInt16]
        let nHead: Int, nKVHead: Int, headDim: Int, ctx: Int
        var stride: Int { nKVHead * headDim }

        init(nHead: Int, nKVHead: Int, headDim: Int, ctx: Int, gen: inout OpsSupport.Numbers) {
            self.nHead = nHead
            self.nKVHead = nKVHead
            self.headDim = headDim
            self.ctx = ctx
            k = gen.floats(ctx * nKVHead * headDim, -2, 2)
            v = gen.floats(ctx * nKVHead * headDim, -2, 2)
            k16 = k.map { loom_fp32_to_fp16($0) }
            v16 = v.map { loom_fp32_to_fp16($0) }
        }

        /// The values the kernel sees for this KV type (F16 caches hold rounded values).
        func values(f16: Bool) -> ([Float], [Float]) {
            f16 ? (k16.map { loom_fp16_to_fp32($0) }, v16.map { loom_fp16_to_fp32($0) }) : (k, v)
        }

        /// Naive float64 attention of one token's query (all heads) over positions [0, nKV).
        func reference(q: [Float], nKV: Int, scale: Float, f16: Bool) -> [Double] {
            let (kk, vv) = values(f16: f16)
            let g = nHead / nKVHead
            var out = [Double](repeating: 0, count: nHead * headDim)
            for h in 0..<nHead {
                let kvh = h / g
                var s = [Double](repeating: 0, count: nKV)
                for t in 0..<nKV {
                    var d = 0.0
                    for i in 0..<headDim { d += Double(q[h * headDim + i]) * Double(kk[t * stride + kvh * headDim + i]) }
                    s[t] = d * Double(scale)
                }
                let m = s.max()!
                let e = s.map { exp($0 - m) }
                let z = e.reduce(0, +)
                for t in 0..<nKV {
                    for i in 0..<headDim {
                        out[h * headDim + i] += e[t] / z * Double(vv[t * stride + kvh * headDim + i])
                    }
                }
            }
            return out
        }

        func withDesc<R>(f16: Bool, scale: Float, _ body: (inout loom_attention_desc) -> R) -> R {
            func run(_ kp: UnsafeRawPointer, _ vp: UnsafeRawPointer) -> R {
                var d = loom_attention_desc(n_head: Int64(nHead), n_kv_head: Int64(nKVHead), head_dim: Int64(headDim),
                                            kv_type: f16 ? 1 : 0, kv_stride: Int64(stride), k: kp, v: vp, scale: scale,
                                            block_table: nil, block_size: 0, window: 0)
                return body(&d)
            }
            if f16 {
                return k16.withUnsafeBytes { kb in v16.withUnsafeBytes { vb in run(kb.baseAddress!, vb.baseAddress!) } }
            }
            return k.withUnsafeBytes { kb in v.withUnsafeBytes { vb in run(kb.baseAddress!, vb.baseAddress!) } }
        }
    }

    /// Shapes cover the kernels' register blocking: groups of 1–8 heads (in pairs with one left
    /// over, and more than a register block holds), head dimensions in whole 64-element chunks,
    /// with a 16- or 8-element remainder, and with a scalar tail.
    @Test(arguments: [false, true])
    func decodeMatchesFloat64WithGroupedHeads(f16: Bool) {
        var gen = OpsSupport.Numbers(seed: 20)
        let shapes: [(nHead: Int, nKVHead: Int, headDim: Int)] = [(6, 2, 64), (4, 4, 40), (9, 3, 7), (2, 1, 128),
                                                                  (8, 1, 80), (4, 1, 256), (14, 2, 20),
                                                                  (10, 2, 24), (6, 1, 48)]
        OpsSupport.forEachTier { tier in
            for s in shapes {
                let cache = Cache(nHead: s.nHead, nKVHead: s.nKVHead, headDim: s.headDim, ctx: 40, gen: &gen)
                let scale = 1 / Float(s.headDim).squareRoot()
                for nKV in [1, 5, 17, 40] {
                    let q = gen.floats(s.nHead * s.headDim, -2, 2)
                    var out = [Float](repeating: .nan, count: s.nHead * s.headDim)
                    let rc = cache.withDesc(f16: f16, scale: scale) { d -> Int32 in
                        var scratch = [Float](repeating: 0, count: loom_attention_scratch_floats(&d, Int64(nKV)))
                        return loom_attention(&d, q, &out, Int64(nKV), 0, Int64(s.nHead), &scratch)
                    }
                    #expect(rc == 0)
                    let ref = cache.reference(q: q, nKV: nKV, scale: scale, f16: f16)
                    #expect(OpsSupport.maxRelError(out, ref) < 5e-6, "tier \(tier) \(s) nKV \(nKV) f16 \(f16)")
                }
            }
        }
    }

    /// Whole KV groups are walked together (every row once for all of them), a range that cuts
    /// through groups takes them one at a time: the results are the same bits, on every tier.
    @Test(arguments: [false, true])
    func headRangesComposeToTheFullResult(f16: Bool) {
        var gen = OpsSupport.Numbers(seed: 21)
        let shapes: [(nHead: Int, nKVHead: Int, headDim: Int)] = [(9, 3, 16), (9, 3, 64), (14, 2, 20), (8, 4, 7), (12, 4, 32)]
        OpsSupport.forEachTier { tier in
            for s in shapes {
                let cache = Cache(nHead: s.nHead, nKVHead: s.nKVHead, headDim: s.headDim, ctx: 23, gen: &gen)
                let q = gen.floats(s.nHead * s.headDim)
                var whole = [Float](repeating: 0, count: s.nHead * s.headDim), parts = whole
                cache.withDesc(f16: f16, scale: 0.25) { d in
                    var scratch = [Float](repeating: 0, count: loom_attention_scratch_floats(&d, 23))
                    #expect(loom_attention(&d, q, &whole, 23, 0, Int64(s.nHead), &scratch) == 0)
                    // Ranges that cut through GQA groups, and one of two whole groups after a cut.
                    let g = s.nHead / s.nKVHead
                    let cuts = [0, 1, g + 1, s.nHead - 2 * g, s.nHead].sorted()
                    for (a, b) in zip(cuts, cuts.dropFirst()) where a < b {
                        #expect(loom_attention(&d, q, &parts, 23, Int64(a), Int64(b), &scratch) == 0)
                    }
                }
                #expect(whole == parts, "tier \(tier) \(s) f16 \(f16)")
            }
        }
    }

    @Test(arguments: [false, true])
    func prefillIsCausalAndMatchesFloat64(f16: Bool) {
        var gen = OpsSupport.Numbers(seed: 22)
        let nHead = 4, nKVHead = 2, headDim = 24, pos0 = 3, nTokens = 6
        var cache = Cache(nHead: nHead, nKVHead: nKVHead, headDim: headDim, ctx: pos0 + nTokens, gen: &gen)
        let qStride = nHead * headDim + 5  // padded rows, as in a fused QKV buffer
        let q = gen.floats(nTokens * qStride)
        let scale: Float = 0.2
        func run(_ c: Cache) -> [Float] {
            var out = [Float](repeating: 0, count: nTokens * qStride)
            let rc = c.withDesc(f16: f16, scale: scale) { d -> Int32 in
                var scratch = [Float](repeating: 0, count: loom_attention_scratch_floats(&d, Int64(pos0 + nTokens)))
                return loom_attention_prefill(&d, q, Int64(qStride), &out, Int64(qStride), Int64(nTokens), Int64(pos0), 0, 1,
                                              &scratch)
            }
            #expect(rc == 0)
            return out
        }
        OpsSupport.forEachTier { tier in
            let out = run(cache)
            for t in 0..<nTokens {
                let qt = Array(q[(t * qStride)..<(t * qStride + nHead * headDim)])
                let ref = cache.reference(q: qt, nKV: pos0 + t + 1, scale: scale, f16: f16)
                let got = Array(out[(t * qStride)..<(t * qStride + nHead * headDim)])
                #expect(OpsSupport.maxRelError(got, ref) < 5e-6, "tier \(tier) t \(t)")
            }
        }
        // Changing the last position's K/V must not change earlier tokens (causal mask).
        let before = run(cache)
        let last = (pos0 + nTokens - 1) * cache.stride
        for i in last..<(last + cache.stride) {
            cache.k[i] += 1
            cache.v[i] -= 1
            cache.k16[i] = loom_fp32_to_fp16(cache.k[i])
            cache.v16[i] = loom_fp32_to_fp16(cache.v[i])
        }
        let after = run(cache)
        let earlier = 0..<((nTokens - 1) * qStride)
        #expect(OpsSupport.close(Array(before[earlier]), Array(after[earlier]), rel: 1e-6))
        #expect(!OpsSupport.close(Array(before[((nTokens - 1) * qStride)...]), Array(after[((nTokens - 1) * qStride)...]), rel: 1e-3))
    }

    @Test func invalidGeometryIsRejected() {
        var k = [Float](repeating: 0, count: 64)
        let q = [Float](repeating: 0, count: 64)
        var out = [Float](repeating: 0, count: 64)
        var scratch = [Float](repeating: 0, count: 64)
        k.withUnsafeMutableBytes { kb in
            let p = UnsafeRawPointer(kb.baseAddress!)
            var d = loom_attention_desc(n_head: 3, n_kv_head: 2, head_dim: 8, kv_type: 0, kv_stride: 16, k: p, v: p, scale: 1,
                                        block_table: nil, block_size: 0, window: 0)
            #expect(loom_attention(&d, q, &out, 1, 0, 3, &scratch) == -1)  // 3 heads over 2 KV heads
            d.n_head = 4
            d.kv_type = 8  // Q8_0 needs heads of whole 32-value blocks; these have 8
            #expect(loom_attention(&d, q, &out, 1, 0, 4, &scratch) == -1)
            d.kv_type = 0
            #expect(loom_attention(&d, q, &out, 1, 0, 5, &scratch) == -1)  // head range past n_head
            d.kv_stride = 8  // shorter than n_kv_head * head_dim
            #expect(loom_attention(&d, q, &out, 1, 0, 4, &scratch) == -1)
        }
    }
}
