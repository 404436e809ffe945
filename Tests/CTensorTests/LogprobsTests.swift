import CTensor
import Foundation
import Testing

/// `loom_logprobs`: log-softmax and the top list checked against a float64 computation, with and
/// without a mask, ties, non-finite logits and bad arguments.
@Suite struct LogprobsTests {
    /// Runs the kernel; returns (chosen logprob, top ids, top logprobs, return code).
    static func run(_ logits: [Float], mask: [UInt64]? = nil, chosen: Int32, k: Int)
        -> (chosen: Float, ids: [Int32], values: [Float], code: Int32) {
        var chosenValue: Float = 0
        var ids = [Int32](repeating: -7, count: max(k, 1))
        var values = [Float](repeating: .nan, count: max(k, 1))
        let code: Int32
        if let mask {
            code = loom_logprobs(logits, Int32(logits.count), mask, chosen, Int32(k), &chosenValue, &ids, &values)
        } else {
            code = loom_logprobs(logits, Int32(logits.count), nil, chosen, Int32(k), &chosenValue, &ids, &values)
        }
        let n = max(Int(code), 0)
        return (chosenValue, Array(ids.prefix(n)), Array(values.prefix(n)), code)
    }

    /// The float64 reference: log-softmax over the allowed finite logits, and the allowed ids
    /// sorted by logit descending, id ascending.
    static func reference(_ logits: [Float], allowed: (Int) -> Bool) -> (logprob: [Int: Double], order: [Int]) {
        let ids = logits.indices.filter { allowed($0) && logits[$0].isFinite }
        let m = ids.map { Double(logits[$0]) }.max()!
        let lse = m + log(ids.reduce(0.0) { $0 + exp(Double(logits[$1]) - m) })
        var out: [Int: Double] = [:]
        for i in ids { out[i] = Double(logits[i]) - lse }
        let order = ids.sorted { logits[$0] != logits[$1] ? logits[$0] > logits[$1] : $0 < $1 }
        return (out, order)
    }

    static func randomLogits(_ n: Int, seed: UInt64) -> [Float] {
        var rng = loom_rng()
        loom_rng_seed(&rng, seed)
        return (0..<n).map { _ in Float(loom_rng_uniform(&rng) * 30 - 15) }
    }

    @Test(arguments: [1, 5, 20]) func matchesFloat64LogSoftmaxOverTheWholeVocabulary(k: Int) {
        let logits = Self.randomLogits(49_152, seed: 7)
        let ref = Self.reference(logits) { _ in true }
        for chosen in [0, 1234, 49_151] {
            let r = Self.run(logits, chosen: Int32(chosen), k: k)
            #expect(r.code == Int32(k))
            #expect(abs(Double(r.chosen) - ref.logprob[chosen]!) < 1e-5)
            #expect(r.ids.map(Int.init) == Array(ref.order.prefix(k)))
            for (id, v) in zip(r.ids, r.values) { #expect(abs(Double(v) - ref.logprob[Int(id)]!) < 1e-5) }
        }
    }

    @Test func normalisesOverTheMaskAndNeverListsMaskedTokens() {
        let n = 1000
        let logits = Self.randomLogits(n, seed: 3)
        let isAllowed: (Int) -> Bool = { $0 % 7 == 0 || $0 == 999 }
        var mask = [UInt64](repeating: 0, count: (n + 63) / 64)
        for i in 0..<n where isAllowed(i) { mask[i / 64] |= 1 << UInt64(i % 64) }
        let ref = Self.reference(logits, allowed: isAllowed)
        let r = Self.run(logits, mask: mask, chosen: 999, k: 20)
        #expect(r.code == 20)
        #expect(r.ids.allSatisfy { isAllowed(Int($0)) })
        #expect(r.ids.map(Int.init) == Array(ref.order.prefix(20)))
        #expect(abs(Double(r.chosen) - ref.logprob[999]!) < 1e-5)
        // The allowed set's probabilities sum to 1.
        let total = ref.logprob.values.reduce(0.0) { $0 + exp($1) }
        #expect(abs(total - 1) < 1e-9)
        // A masked-out choice has no probability.
        #expect(Self.run(logits, mask: mask, chosen: 1, k: 0).chosen == -.infinity)
    }

    @Test func fewerAllowedTokensThanKListsOnlyThose() {
        let logits: [Float] = [1, 2, 3, 4, 5, 6, 7, 8]
        let mask: [UInt64] = [0b0010_0100]
        let r = Self.run(logits, mask: mask, chosen: 5, k: 5)
        #expect(r.code == 2)
        #expect(r.ids == [5, 2])
        let lse = log(exp(6.0) + exp(3.0))
        #expect(abs(Double(r.values[0]) - (6 - lse)) < 1e-6)
        #expect(abs(Double(r.values[1]) - (3 - lse)) < 1e-6)
        #expect(r.chosen == r.values[0])
    }

    @Test func oneAllowedTokenHasLogprobZero() {
        let logits: [Float] = [9, -3, 0.5]
        let r = Self.run(logits, mask: [0b010], chosen: 1, k: 3)
        #expect(r.code == 1)
        #expect(r.ids == [1])
        #expect(r.chosen == 0)
        #expect(r.values == [0])
    }

    @Test func tiesGoToTheLowerIdAndNonFiniteLogitsCarryNoProbability() {
        let logits: [Float] = [2, .nan, 2, -.infinity, 1, 2]
        let r = Self.run(logits, chosen: 3, k: 6)
        #expect(r.code == 4)
        #expect(r.ids == [0, 2, 5, 4])
        let lse = log(3 * exp(2.0) + exp(1.0))
        #expect(abs(Double(r.values[0]) - (2 - lse)) < 1e-6)
        #expect(r.chosen == -.infinity)
    }

    @Test func refusesBadArgumentsAndRowsWithoutADistribution() {
        let logits: [Float] = [1, 2]
        #expect(Self.run(logits, chosen: 2, k: 1).code == LOOM_SAMPLE_INVALID)
        #expect(Self.run(logits, chosen: 0, k: -1).code == LOOM_SAMPLE_INVALID)
        #expect(Self.run(logits, mask: [0], chosen: 0, k: 1).code == LOOM_SAMPLE_NO_TOKEN)
        #expect(Self.run([.nan, -.infinity], chosen: 0, k: 1).code == LOOM_SAMPLE_NO_TOKEN)
        // k = 0 reports only the chosen token.
        let r = Self.run(logits, chosen: 1, k: 0)
        #expect(r.code == 0)
        #expect(abs(Double(r.chosen) - (2 - log(exp(1.0) + exp(2.0)))) < 1e-6)
    }
}
