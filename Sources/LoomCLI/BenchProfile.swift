import CTensor
import LoomJSON

/// `loom bench --profile`: where a generation step's time goes, from CTensor's profile counters
/// (`loom_profile.h`) recorded over one extra run of the measured workload.
///
/// Every millisecond of the run lands in exactly one part, so the parts add up to the wall time
/// per step:
/// - `matvec`, `prompt_products`, `attention`, `lm_head`: the pool runs of that kind, counted
///   as the threads' work (busy time over the run's thread count);
/// - `norms_other`: norms and activations on the pool, plus the forward passes' serial work on
///   the calling thread (embedding, single-row norms, RoPE, KV stores, orchestration);
/// - `sampling`: choosing tokens from logits;
/// - `idle`: pool runs' wall time their threads did not work (wake-up, imbalance, barriers);
/// - `outside_steps`: the rest of the run (the scheduler's bookkeeping, grammar masks, handing
///   tokens to consumers).
struct BenchProfile {
    /// Forward passes recorded.
    let steps: Int
    /// Wall milliseconds per step.
    let stepMs: Double
    /// (part, milliseconds per step), in the order of the report.
    let parts: [(name: String, ms: Double)]

    /// Runs `body` with the counters recording; `wallSeconds` is what `body` returns (the run's
    /// wall time as its benchmark counts it).
    static func record(_ body: () async throws -> Double) async rethrows -> BenchProfile {
        try await record(window: {
            (try await body(), [loom_work_time](repeating: loom_work_time(), count: Int(LOOM_WORK_KINDS)))
        })
    }

    /// As `record`, for a run whose measured part starts after its beginning: `body` returns the
    /// measured part's wall seconds and the counters as they stood when it began, which are taken
    /// off the totals.
    static func record(window body: () async throws -> (seconds: Double, start: [loom_work_time])) async rethrows
        -> BenchProfile
    {
        loom_profile_start()
        let run: (seconds: Double, start: [loom_work_time])
        do {
            run = try await body()
        } catch {
            loom_profile_stop()
            throw error
        }
        loom_profile_stop()
        var totals = [loom_work_time](repeating: loom_work_time(), count: Int(LOOM_WORK_KINDS))
        totals.withUnsafeMutableBufferPointer { loom_profile_read($0.baseAddress) }
        for (k, s) in zip(totals.indices, run.start) {
            totals[k] = loom_work_time(count: totals[k].count - s.count, wall_ns: totals[k].wall_ns - s.wall_ns,
                                       busy_ns: totals[k].busy_ns - s.busy_ns,
                                       thread_spans: totals[k].thread_spans - s.thread_spans)
        }
        return BenchProfile(totals: totals, wallSeconds: run.seconds)
    }

    init(totals: [loom_work_time], wallSeconds: Double) {
        func kind(_ k: loom_work) -> loom_work_time { totals[Int(k.rawValue)] }
        func ms(_ ns: UInt64) -> Double { Double(ns) / 1e6 }
        // A pool kind's work in wall terms: busy thread-time over the threads its runs had.
        func work(_ k: loom_work) -> Double {
            let t = kind(k)
            return t.thread_spans == 0 ? 0 : ms(t.busy_ns) * Double(t.count) / Double(t.thread_spans)
        }
        let poolKinds: [loom_work] = [LOOM_WORK_PRODUCTS, LOOM_WORK_PROMPT_PRODUCTS, LOOM_WORK_ATTENTION, LOOM_WORK_NORMS,
                                      LOOM_WORK_LM_HEAD, LOOM_WORK_UNLABELLED]
        let poolWall = poolKinds.reduce(0.0) { $0 + ms(kind($1).wall_ns) }
        let poolWork = poolKinds.reduce(0.0) { $0 + work($1) }
        let stepWall = ms(kind(LOOM_WORK_STEP).wall_ns)
        let sampling = ms(kind(LOOM_WORK_SAMPLING).wall_ns)
        let total = max(wallSeconds * 1e3, stepWall + sampling)
        let n = max(Int(kind(LOOM_WORK_STEP).count), 1)
        steps = Int(kind(LOOM_WORK_STEP).count)
        stepMs = total / Double(n)
        let perStep = { (x: Double) in max(x, 0) / Double(n) }
        parts = [
            ("matvec", perStep(work(LOOM_WORK_PRODUCTS))),
            ("prompt_products", perStep(work(LOOM_WORK_PROMPT_PRODUCTS))),
            ("attention", perStep(work(LOOM_WORK_ATTENTION))),
            ("norms_other", perStep(work(LOOM_WORK_NORMS) + work(LOOM_WORK_UNLABELLED) + stepWall - poolWall)),
            ("lm_head", perStep(work(LOOM_WORK_LM_HEAD))),
            ("sampling", perStep(sampling)),
            ("idle", perStep(poolWall - poolWork)),
            ("outside_steps", perStep(total - stepWall - sampling)),
        ]
    }

    /// `{"steps", "step_ms", "ms": {part: ms per step…}, "share": {part: fraction…}}`.
    var json: JSONValue {
        func number(_ x: Double, _ scale: Double) -> JSONValue { .number(JSONNumber((x * scale).rounded() / scale)) }
        return .object(JSONObject([
            ("steps", .number(JSONNumber(steps))), ("step_ms", number(stepMs, 1000)),
            ("ms", .object(JSONObject(parts.map { ($0.name, number($0.ms, 1000)) }))),
            ("share", .object(JSONObject(parts.map { ($0.name, number(stepMs > 0 ? $0.ms / stepMs : 0, 1000)) }))),
        ]))
    }

    /// A few lines: the step time, then each part's milliseconds and share.
    func table(title: String) -> String {
        var out = "\(title): \(steps) steps, \(BenchKernelsBatch.fixed(stepMs, 3)) ms per step\n"
        for p in parts {
            let share = stepMs > 0 ? p.ms / stepMs * 100 : 0
            out += "  " + p.name.padding(17) + BenchKernelsBatch.fixed(p.ms, 3).padding(9) + "ms  "
                + BenchKernelsBatch.fixed(share, 1) + "%\n"
        }
        return out
    }
}
