import CTensor
import Foundation
import Testing

/// The sampler chain: masks, greedy ties, filters, penalties, seeded reproducibility, and the
/// distribution of draws (fixed-seed chi-square).
@Suite struct SamplingTests {
    final class Sampler {
        let raw: OpaquePointer
        let nVocab: Int
        init(nVocab: Int, _ configure: (inout loom_sampler_params) -> Void = { _ in }) {
            var p = loom_sampler_default_params()
            configure(&p)
            raw = loom_sampler_create(Int32(nVocab), &p)!
            self.nVocab = nVocab
        }
        deinit { loom_sampler_destroy(raw) }
        func sample(_ logits: [Float], mask: [UInt64]? = nil) -> Int32 {
            if let mask { return loom_sampler_sample(raw, logits, mask) }
            return loom_sampler_sample(raw, logits, nil)
        }
        func accept(_ t: Int32) { #expect(loom_sampler_accept(raw, t) == 0) }
    }

    static func mask(_ nVocab: Int, allowed: (Int) -> Bool) -> [UInt64] {
        var words = [UInt64](repeating: 0, count: (nVocab + 63) / 64)
        for i in 0..<nVocab where allowed(i) { words[i / 64] |= 1 << UInt64(i % 64) }
        return words
    }

    @Test func generatorFollowsXoshiro256StarStarSeededBySplitmix() {
        var rng = loom_rng()
        loom_rng_seed(&rng, 42)
        // Independently computed from the published algorithms (splitmix64 → xoshiro256**).
        #expect(loom_rng_next(&rng) == 0x1578_0B2E_0C2E_C716)
        #expect(loom_rng_next(&rng) == 0x6104_D986_6D11_3A7E)
        #expect(loom_rng_next(&rng) == 0xAE17_5332_39E4_99A1)
        for _ in 0..<1000 {
            let u = loom_rng_uniform(&rng)
            #expect(u >= 0 && u < 1)
        }
    }

    @Test func argmaxTiesGoToTheLowestIdAndRespectTheMaskOnEveryTier() {
        var gen = OpsSupport.Numbers(seed: 30)
        OpsSupport.forEachTier { tier in
            for n in [1, 7, 63, 64, 65, 130, 1000, 49152] {
                var x = gen.floats(n, -10, 10)
                let top = n / 2
                x[top] = 20
                if n > 3 { x[n - 1] = 20 }  // tie: the lower id wins
                if top + 1 < n - 1 { x[top + 1] = 20 }  // a tie inside the same vector too
                #expect(loom_argmax_masked(x, Int64(n), nil) == Int64(top), "tier \(tier) n \(n)")
                // Mask out the winner: the best remaining allowed token wins.
                let m = Self.mask(n) { $0 % 3 != 0 && $0 != top }
                let expected = (0..<n).filter { $0 % 3 != 0 && $0 != top }.max { x[$0] < x[$1] || (x[$0] == x[$1] && $0 > $1) }
                let got = loom_argmax_masked(x, Int64(n), m)
                #expect(got == Int64(expected ?? -1), "tier \(tier) n \(n)")
                // NaN and -inf never win; no allowed finite entry → -1.
                var y = [Float](repeating: -.infinity, count: n)
                y[0] = .nan
                #expect(loom_argmax_masked(y, Int64(n), nil) == -1)
                let none = [UInt64](repeating: 0, count: (n + 63) / 64)
                #expect(loom_argmax_masked(x, Int64(n), none) == -1)
            }
        }
    }

    @Test func maskedTokensAreNeverSampled() {
        let n = 300
        var gen = OpsSupport.Numbers(seed: 31)
        let logits = gen.floats(n, -3, 3)
        for config in 0..<4 {
            let s = Sampler(nVocab: n) { p in
                p.seed = UInt64(config)
                p.temperature = 5
                if config == 1 { p.top_k = 5 }
                if config == 2 { p.top_p = 0.5 }
                if config == 3 { p.min_p = 0.2; p.repeat_penalty = 1.3 }
            }
            for round in 0..<200 {
                let m = Self.mask(n) { ($0 * 7 + round) % 11 == 0 }
                for _ in 0..<20 {
                    let t = s.sample(logits, mask: m)
                    #expect(t >= 0 && t < n && (m[Int(t) / 64] >> UInt64(t % 64)) & 1 == 1, "config \(config)")
                    s.accept(t)
                }
            }
        }
    }

    @Test func emptyMaskAndAllMinusInfinityReturnNoToken() {
        let s = Sampler(nVocab: 70)
        let logits = [Float](repeating: 1, count: 70)
        #expect(s.sample(logits, mask: [0, 0]) == LOOM_SAMPLE_NO_TOKEN)
        // Bits past the vocabulary do not count as allowed tokens.
        #expect(s.sample(logits, mask: [0, ~UInt64(0) << 6]) == LOOM_SAMPLE_NO_TOKEN)
        var banned = logits
        banned[5] = -.infinity
        #expect(s.sample(banned, mask: Self.mask(70) { $0 == 5 }) == LOOM_SAMPLE_NO_TOKEN)
        let greedy = Sampler(nVocab: 70) { $0.temperature = 0 }
        #expect(greedy.sample(logits, mask: [0, 0]) == LOOM_SAMPLE_NO_TOKEN)
        #expect(loom_sampler_accept(s.raw, 70) == LOOM_SAMPLE_INVALID)
        #expect(loom_sampler_sample(s.raw, nil, nil) == LOOM_SAMPLE_INVALID)
    }

    @Test func seededRunsReproduce() {
        var gen = OpsSupport.Numbers(seed: 32)
        let logits = gen.floats(5000, -4, 4)
        func run(seed: UInt64) -> [Int32] {
            let s = Sampler(nVocab: 5000) { p in
                p.seed = seed
                p.top_p = 0.95
                p.repeat_penalty = 1.1
            }
            return (0..<300).map { _ in
                let t = s.sample(logits)
                s.accept(t)
                return t
            }
        }
        #expect(run(seed: 7) == run(seed: 7))
        // The same tokens whichever tier computes the weights (a hot temperature and min-p make
        // the weights non-trivial for every candidate).
        let hot = gen.floats(3000, -6, 6)
        func runTier() -> [Int32] {
            let s = Sampler(nVocab: 3000) { p in p.seed = 11; p.temperature = 1.7; p.min_p = 0.001 }
            return (0..<400).map { _ in s.sample(hot) }
        }
        var perTier: [[Int32]] = []
        OpsSupport.forEachTier { _ in perTier.append(runTier()) }
        #expect(perTier.allSatisfy { $0 == perTier[0] })
        #expect(run(seed: 7) != run(seed: 8))
        // reset(seed) replays from the start.
        let s = Sampler(nVocab: 5000) { $0.seed = 9 }
        let a = (0..<50).map { _ in s.sample(logits) }
        loom_sampler_reset(s.raw, 9)
        #expect((0..<50).map { _ in s.sample(logits) } == a)
    }

    @Test func drawsFollowTheDistribution() {
        // Fixed seed, so the statistic is deterministic; 24.32 is the 0.999 quantile of χ²(7).
        let probs: [Double] = [0.30, 0.20, 0.15, 0.12, 0.10, 0.07, 0.04, 0.02]
        let logits = probs.map { Float(log($0)) }
        let s = Sampler(nVocab: probs.count) { $0.seed = 12345 }
        let draws = 40000
        var counts = [Int](repeating: 0, count: probs.count)
        for _ in 0..<draws { counts[Int(s.sample(logits))] += 1 }
        let chi2 = zip(counts, probs).reduce(0.0) { acc, e in
            let expected = Double(draws) * e.1
            return acc + (Double(e.0) - expected) * (Double(e.0) - expected) / expected
        }
        #expect(chi2 < 24.32, "chi2 \(chi2) counts \(counts)")
        // Temperature 2 flattens: p ∝ sqrt(p0).
        let hot = Sampler(nVocab: probs.count) { $0.seed = 99; $0.temperature = 2 }
        let flat = probs.map { $0.squareRoot() }
        let z = flat.reduce(0, +)
        counts = [Int](repeating: 0, count: probs.count)
        for _ in 0..<draws { counts[Int(hot.sample(logits))] += 1 }
        let chi2Hot = zip(counts, flat).reduce(0.0) { acc, e in
            let expected = Double(draws) * e.1 / z
            return acc + (Double(e.0) - expected) * (Double(e.0) - expected) / expected
        }
        #expect(chi2Hot < 24.32, "chi2 \(chi2Hot) counts \(counts)")
    }

    @Test func topKTopPAndMinPKeepTheDocumentedSets() {
        // Probabilities 0.5, 0.3, 0.15, 0.05 (plus a banned token).
        let logits: [Float] = [log(0.5), log(0.3), log(0.15), log(0.05), -.infinity].map { Float($0) }
        func seen(_ configure: @escaping (inout loom_sampler_params) -> Void) -> Set<Int32> {
            let s = Sampler(nVocab: logits.count) { p in
                p.seed = 5
                configure(&p)
            }
            return Set((0..<3000).map { _ in s.sample(logits) })
        }
        #expect(seen { _ in } == [0, 1, 2, 3])
        #expect(seen { $0.top_k = 2 } == [0, 1])
        #expect(seen { $0.top_k = 1 } == [0])
        #expect(seen { $0.top_p = 0.75 } == [0, 1])  // 0.5 < 0.75 <= 0.8
        #expect(seen { $0.top_p = 0.4 } == [0])
        #expect(seen { $0.top_p = 0.9 } == [0, 1, 2])
        #expect(seen { $0.min_p = 0.25 } == [0, 1, 2])  // 0.15 >= 0.125 > 0.05
        #expect(seen { $0.min_p = 0.7 } == [0])
        // Filters run at temperature 1, before temperature: a hot sampler keeps the same set.
        #expect(seen { $0.top_p = 0.75; $0.temperature = 10 } == [0, 1])
        // Within top-k, a large vocabulary with ties still picks among exactly k tokens.
        var wide = [Float](repeating: 0, count: 1000)
        for i in 0..<1000 { wide[i] = Float(i % 50) }
        let s = Sampler(nVocab: 1000) { $0.top_k = 20; $0.seed = 3 }
        let got = Set((0..<2000).map { _ in s.sample(wide) })
        #expect(got.count == 20 && got.allSatisfy { $0 % 50 == 49 })
    }

    @Test func topPOnAFlatLargeVocabularyKeepsExactlyTheSortedPrefix() {
        // Far too flat for the 64-candidate fast path: the bucketed path decides the cut.
        let n = 800
        var gen = OpsSupport.Numbers(seed: 33)
        let logits = (0..<n).map { _ in gen.float(-3, 0) }
        for topP: Float in [0.3, 0.5, 0.9] {
            let order = (0..<n).sorted { logits[$0] > logits[$1] || (logits[$0] == logits[$1] && $0 < $1) }
            let m = Double(logits.max()!)
            let w = logits.map { exp(Double($0) - m) }
            let target = Double(topP) * w.reduce(0, +)
            var cum = 0.0, keep = 0
            while keep < n {
                cum += w[order[keep]]
                keep += 1
                if cum >= target { break }
            }
            let expected = Set(order[0..<keep].map { Int32($0) })
            // A hot temperature spreads draws evenly over the kept set, so all of it shows up.
            let s = Sampler(nVocab: n) { p in p.top_p = topP; p.temperature = 1000; p.seed = 77 }
            var seen = Set<Int32>()
            for _ in 0..<(keep * 15) { seen.insert(s.sample(logits)) }
            #expect(seen.isSubset(of: expected), "top_p \(topP)")
            #expect(seen.count >= expected.count - 1, "top_p \(topP): \(seen.count) of \(expected.count)")
        }
    }

    @Test func penaltiesApplyOverTheWindow() {
        let logits: [Float] = [2.0, 1.9, -1.0, -1.1, 0.5]
        // Repetition: positive logits divide, negative multiply.
        let rep = Sampler(nVocab: 5) { p in p.temperature = 0; p.repeat_penalty = 2; p.penalty_last_n = 2 }
        #expect(rep.sample(logits) == 0)
        rep.accept(0)
        #expect(rep.sample(logits) == 1)  // 2.0 → 1.0 < 1.9
        // A window of 2: two later tokens push token 0 out, and its logit is whole again.
        rep.accept(3)
        rep.accept(3)
        #expect(rep.sample(logits) == 0)
        // A negative logit is multiplied: with penalty 0.1, token 3's -1.1 becomes -0.11 and
        // beats token 2's untouched -1.0 (only those two allowed).
        let neg = Sampler(nVocab: 5) { p in p.temperature = 0; p.repeat_penalty = 0.1; p.penalty_last_n = 4 }
        #expect(neg.sample(logits, mask: [0b01100]) == 2)
        neg.accept(3)
        #expect(neg.sample(logits, mask: [0b01100]) == 3)
        // Frequency and presence: 3 occurrences × 0.4 + 0.2 = 1.4 off token 0 (2.0 → 0.6).
        let freq = Sampler(nVocab: 5) { p in
            p.temperature = 0; p.frequency_penalty = 0.4; p.presence_penalty = 0.2; p.penalty_last_n = 8
        }
        for _ in 0..<3 { freq.accept(0) }
        freq.accept(1)  // 1.9 - 0.6 = 1.3
        #expect(freq.sample(logits) == 1)
        freq.accept(1)
        freq.accept(1)  // 1.9 - 1.4 = 0.5; token 0 at 0.6 wins
        #expect(freq.sample(logits) == 0)
        // Logits passed in are never modified.
        #expect(logits == [2.0, 1.9, -1.0, -1.1, 0.5])
    }

    @Test func invalidParametersAreRejected() {
        var p = loom_sampler_default_params()
        #expect(loom_sampler_create(0, &p) == nil)
        p.temperature = .nan
        #expect(loom_sampler_create(10, &p) == nil)
        p = loom_sampler_default_params()
        p.repeat_penalty = 0
        #expect(loom_sampler_create(10, &p) == nil)
        p = loom_sampler_default_params()
        p.penalty_last_n = -1
        #expect(loom_sampler_create(10, &p) == nil)
        p = loom_sampler_default_params()
        let s = loom_sampler_create(10, &p)!
        defer { loom_sampler_destroy(s) }
        p.penalty_last_n = 1000  // above the capacity fixed at creation
        #expect(loom_sampler_set_params(s, &p) == LOOM_SAMPLE_INVALID)
    }
}
