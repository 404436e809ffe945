import CTensor
import Testing

/// The profile counters: pool runs land under their operation's kind or the pool's label, with
/// one thread-span per thread, and nothing is recorded while the profile is off. Serialized:
/// the counters are process-wide, and no other suite of this process starts them or uses the
/// LM-head label or the sampling kind this suite checks.
@Suite(.serialized, .timeLimit(.minutes(1))) struct ProfileTests {
    static func totals() -> [loom_work_time] {
        var out = [loom_work_time](repeating: loom_work_time(), count: Int(LOOM_WORK_KINDS))
        out.withUnsafeMutableBufferPointer { loom_profile_read($0.baseAddress) }
        return out
    }

    static func lmHead(_ t: [loom_work_time]) -> loom_work_time { t[Int(LOOM_WORK_LM_HEAD.rawValue)] }

    /// Two RMSNorm runs on a two-thread pool labelled as the LM head.
    static func labelledRuns(_ pool: OpaquePointer) {
        let n = 256, rows = 64
        let x = [Float](repeating: 0.5, count: n * rows), w = [Float](repeating: 1, count: n)
        var y = [Float](repeating: 0, count: n * rows)
        loom_pool_label(pool, Int32(LOOM_WORK_LM_HEAD.rawValue))
        for _ in 0..<2 { loom_par_rmsnorm(pool, &y, x, w, Int64(n), Int64(rows), Int64(n), 1e-5) }
        loom_pool_label(pool, -1)
        #expect(y[0] > 0)
    }

    @Test func labelledRunsCountUnderTheLabelWithEveryThread() throws {
        let pool = try #require(loom_pool_create(2))
        defer { loom_pool_destroy(pool) }
        loom_profile_start()
        Self.labelledRuns(pool)
        loom_profile_stop()
        let head = Self.lmHead(Self.totals())
        #expect(head.count == 2)
        #expect(head.thread_spans == 4)
        #expect(head.wall_ns > 0)
        // Shares run inside their run's span, so the threads' busy time fits in threads × wall.
        #expect(head.busy_ns <= 2 * head.wall_ns)
    }

    @Test func stoppedProfileRecordsNothing() throws {
        let pool = try #require(loom_pool_create(2))
        defer { loom_pool_destroy(pool) }
        loom_profile_start()
        loom_profile_stop()
        #expect(loom_profile_active() == 0)
        Self.labelledRuns(pool)
        loom_profile_record(LOOM_WORK_SAMPLING, 99)
        let t = Self.totals()
        #expect(Self.lmHead(t).count == 0)
        #expect(t[Int(LOOM_WORK_SAMPLING.rawValue)].count == 0)
    }

    @Test func recordedSpansAddToTheirKind() {
        loom_profile_start()
        loom_profile_record(LOOM_WORK_SAMPLING, 1234)
        loom_profile_record(LOOM_WORK_SAMPLING, 66)
        loom_profile_stop()
        let s = Self.totals()[Int(LOOM_WORK_SAMPLING.rawValue)]
        #expect(s.count == 2)
        #expect(s.wall_ns == 1300)
        #expect(s.busy_ns == 1300)
        #expect(s.thread_spans == 2)
    }

    @Test func startingAgainZeroesTheTotals() {
        loom_profile_start()
        loom_profile_record(LOOM_WORK_SAMPLING, 10)
        loom_profile_start()
        loom_profile_stop()
        #expect(Self.totals()[Int(LOOM_WORK_SAMPLING.rawValue)].count == 0)
    }
}
