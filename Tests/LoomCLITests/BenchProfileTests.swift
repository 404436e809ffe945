import CTensor
import LoomJSON
import Testing

@testable import LoomCLI

/// `loom bench --profile`'s arithmetic: every recorded nanosecond lands in exactly one part, so
/// the parts add up to the step time.
@Suite struct BenchProfileTests {
    /// Totals of a made-up run of 10 steps on two threads, in milliseconds per kind: wall, busy
    /// (thread-time), runs.
    static func totals() -> [loom_work_time] {
        var t = [loom_work_time](repeating: loom_work_time(), count: Int(LOOM_WORK_KINDS))
        func set(_ k: loom_work, wall: UInt64, busy: UInt64, runs: UInt64, threads: UInt64) {
            t[Int(k.rawValue)] = loom_work_time(count: runs, wall_ns: wall * 1_000_000, busy_ns: busy * 1_000_000,
                                                thread_spans: runs * threads)
        }
        set(LOOM_WORK_PRODUCTS, wall: 12, busy: 20, runs: 40, threads: 2)      // work 10, idle 2
        set(LOOM_WORK_ATTENTION, wall: 4, busy: 6, runs: 10, threads: 2)       // work 3, idle 1
        set(LOOM_WORK_NORMS, wall: 1, busy: 2, runs: 10, threads: 2)           // work 1
        set(LOOM_WORK_LM_HEAD, wall: 3, busy: 6, runs: 10, threads: 2)         // work 3
        set(LOOM_WORK_STEP, wall: 22, busy: 22, runs: 10, threads: 1)          // serial 22 - 20 = 2
        set(LOOM_WORK_SAMPLING, wall: 1, busy: 1, runs: 10, threads: 1)
        return t
    }

    @Test func partsAddUpToTheWallTimePerStep() {
        let p = BenchProfile(totals: Self.totals(), wallSeconds: 0.025)  // 25 ms: 2 outside the steps
        #expect(p.steps == 10)
        #expect(abs(p.stepMs - 2.5) < 1e-12)
        let parts = Dictionary(uniqueKeysWithValues: p.parts.map { ($0.name, $0.ms) })
        let expected: [String: Double] = ["matvec": 1.0, "prompt_products": 0, "attention": 0.3, "norms_other": 0.3,
                                          "lm_head": 0.3, "sampling": 0.1, "idle": 0.3, "outside_steps": 0.2]
        #expect(parts.count == expected.count)
        for (name, ms) in expected { #expect(abs((parts[name] ?? -1) - ms) < 1e-12, "\(name)") }
        #expect(abs(p.parts.reduce(0) { $0 + $1.ms } - p.stepMs) < 1e-12)
    }

    @Test func jsonCarriesEveryPartAndItsShare() {
        let p = BenchProfile(totals: Self.totals(), wallSeconds: 0.025)
        let text = p.json.serialized()
        for name in ["matvec", "prompt_products", "attention", "norms_other", "lm_head", "sampling", "idle", "outside_steps"] {
            #expect(text.contains("\"\(name)\""), "\(name)")
        }
        #expect(text.contains("\"steps\":10"))
        #expect(text.contains("\"step_ms\":2.5"))
    }
}
