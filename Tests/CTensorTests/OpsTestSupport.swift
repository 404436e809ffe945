import CTensor
import Foundation
import Testing

/// Helpers shared by the ops, attention, sampling, BLAS and pool suites.
enum OpsSupport {
    /// Every kernel tier this machine can run, lowest first.
    static var tiers: [loom_isa] {
        let best = loom_isa_best().rawValue
        return [LOOM_ISA_SCALAR, LOOM_ISA_AVX2, LOOM_ISA_AVX512].filter { $0.rawValue <= best }
    }

    /// Runs `body` with the calling thread's tier overridable (`loom_isa_set_thread`), restoring
    /// the thread's setting afterwards. The tier is the thread's own, and the pool runs shares at
    /// their caller's: tests running beside it, model suites included, keep theirs, so no test
    /// needs to wait for another (the tiers agree to rounding, not to the bit).
    static func overridingTier<E: Error>(_ body: () throws(E) -> Void) throws(E) {
        let before = loom_isa_thread()
        defer { _ = loom_isa_set_thread(before) }
        try body()
    }

    /// Runs `body` once per tier with that tier forced on this thread.
    static func forEachTier<E: Error>(_ body: (loom_isa) throws(E) -> Void) throws(E) {
        try overridingTier { () throws(E) in
            for tier in tiers {
                _ = loom_isa_set_thread(Int32(tier.rawValue))
                #expect(loom_isa_active() == tier)
                try body(tier)
            }
        }
    }

    /// Deterministic test data (splitmix64), so failures reproduce.
    struct Numbers {
        var state: UInt64
        init(seed: UInt64) { state = seed }
        mutating func next() -> UInt64 {
            state &+= 0x9E37_79B9_7F4A_7C15
            var z = state
            z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
            z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
            return z ^ (z >> 31)
        }
        /// Uniform in [lo, hi).
        mutating func float(_ lo: Float, _ hi: Float) -> Float {
            let u = Double(next() >> 11) * 0x1.0p-53
            return lo + Float(u) * (hi - lo)
        }
        mutating func floats(_ n: Int, _ lo: Float = -1, _ hi: Float = 1) -> [Float] {
            (0..<n).map { _ in float(lo, hi) }
        }
    }

    /// Largest |a - b| / max(1, |b|).
    static func maxRelError(_ a: [Float], _ b: [Double]) -> Double {
        var worst = 0.0
        for i in 0..<min(a.count, b.count) {
            let e = abs(Double(a[i]) - b[i]) / max(1.0, abs(b[i]))
            if e > worst || e.isNaN { worst = e.isNaN ? .infinity : e }
        }
        return worst
    }

    /// Element-wise agreement within `rel` × max(1, |b|). Results of two separate calls may come
    /// from different tiers (tests run in parallel and the tier is process-wide), so equality of
    /// parallel and serial runs is checked to rounding, not bits.
    static func close(_ a: [Float], _ b: [Float], rel: Double = 1e-5) -> Bool {
        guard a.count == b.count else { return false }
        return zip(a, b).allSatisfy { abs(Double($0) - Double($1)) <= rel * max(1, abs(Double($1))) }
    }

    /// Sizes around every vector width (1, 8, 16, 64 lanes) plus model-like rows.
    static let edgeSizes = [1, 2, 7, 8, 9, 15, 16, 17, 31, 32, 33, 63, 64, 65, 127, 576, 1000, 2049]
}
