import CTensor
import Engine
import LoomJSON

/// `loom bench --concurrency 1,2,4,8,16`: what the scheduler gives a service with N users. For
/// each level, N sequences with distinct prompts are submitted together to one scheduler (one
/// weight mapping, one KV pool sized for N full contexts) and generate `--tg` tokens each
/// (greedy, no stop tokens, sampled inside the scheduler's loop); each consumer stamps every
/// token as it arrives. Reported per level: aggregate tokens per second (all sequences' tokens
/// over the wall time from submission to the last token, as an HTTP load client counts them),
/// inter-token latency and time to first token percentiles over all sequences, peak RSS and
/// the KV pool's bytes. One warm-up run precedes the first level.
enum BenchConcurrency {
    /// One level's measurements.
    struct Level {
        let n: Int
        let aggregateTokensPerSecond: Double
        let interTokenMs: (p50: Double, p99: Double)
        let firstTokenMs: (p50: Double, p99: Double)
        let peakRSSMegabytes: Double
        let kvBytes: Int
        /// Where one more run's step time went (`--profile` only).
        var profile: BenchProfile? = nil
    }

    /// What one sequence's consumer saw.
    struct Trace: Sendable {
        var firstTokenSeconds = 0.0
        var gapsSeconds: [Double] = []
        var tokens = 0
        /// Seconds from submission to the last token (like `firstTokenSeconds`).
        var lastTokenAt = 0.0
    }

    static func run(model: Model, file: String, levels: [Int], promptTokens: Int, tokens: Int, reps: Int,
                    threads: Int, kv: KVCacheType, profile: Bool = false, json: Bool) async throws {
        let context = promptTokens + tokens + 1
        guard context <= model.config.contextLength else {
            throw RuntimeError("--prompt-tokens \(promptTokens) plus --tg \(tokens) need \(context) positions; the model has \(model.config.contextLength)")
        }
        let configuration = TransformerConfiguration(threads: threads, contextLength: context, kvCacheType: kv)
        let vocabulary = model.config.vocabularySize
        _ = try await measure(model: model, configuration: configuration, n: 1, promptTokens: promptTokens,
                              tokens: min(tokens, 8), vocabulary: vocabulary)
        var results: [Level] = []
        for n in levels {
            var aggregate: [Double] = [], gaps: [Double] = [], firsts: [Double] = []
            var kvBytes = 0
            for _ in 0..<reps {
                let (traces, wall, bytes) = try await measure(model: model, configuration: configuration, n: n,
                                                              promptTokens: promptTokens, tokens: tokens,
                                                              vocabulary: vocabulary)
                aggregate.append(Double(traces.reduce(0) { $0 + $1.tokens }) / wall)
                for t in traces {
                    gaps += t.gapsSeconds
                    firsts.append(t.firstTokenSeconds)
                }
                kvBytes = bytes
            }
            var level = Level(n: n, aggregateTokensPerSecond: BenchModel.median(aggregate),
                              interTokenMs: (percentile(gaps, 50) * 1e3, percentile(gaps, 99) * 1e3),
                              firstTokenMs: (percentile(firsts, 50) * 1e3, percentile(firsts, 99) * 1e3),
                              peakRSSMegabytes: BenchModel.peakResidentMegabytes(), kvBytes: kvBytes)
            if profile {
                level.profile = try await BenchProfile.record {
                    try await measure(model: model, configuration: configuration, n: n, promptTokens: promptTokens,
                                      tokens: tokens, vocabulary: vocabulary).1
                }
            }
            results.append(level)
        }
        let isa = String(cString: loom_isa_name(loom_isa_active()))
        if json {
            StandardOutput.write(report(file: file, threads: threads, promptTokens: promptTokens, tokens: tokens,
                                        reps: reps, isa: isa, weightBytes: model.file.fileSize, results).serialized() + "\n")
        } else {
            StandardOutput.write(table(file: file, threads: threads, promptTokens: promptTokens, tokens: tokens,
                                       isa: isa, results))
        }
    }

    /// One run of `n` sequences on a fresh scheduler: each consumer's trace, the wall seconds from
    /// submission to the last token, and the pool's bytes.
    static func measure(model: Model, configuration: TransformerConfiguration, n: Int, promptTokens: Int, tokens: Int,
                        vocabulary: Int) async throws -> ([Trace], Double, Int) {
        let scheduler = try Scheduler(model: model, configuration: configuration, policy: SchedulerPolicy(maxSequences: n))
        // Distinct prompts: the same id pattern shifted per sequence, so no two share a block.
        let prompts = (0..<n).map { s in
            (0..<promptTokens).map { Int32(($0 * 7919 + 13 + s * 104_729) % vocabulary) }
        }
        let t0 = loom_now_seconds()
        let streams = try prompts.map { try scheduler.generate(prompt: $0, sampling: .greedy, maxTokens: tokens) }
        let traces = try await withThrowingTaskGroup(of: Trace.self) { group in
            for stream in streams {
                group.addTask {
                    var trace = Trace()
                    var last = t0
                    for try await _ in stream {
                        let now = loom_now_seconds()
                        if trace.tokens == 0 { trace.firstTokenSeconds = now - t0 } else { trace.gapsSeconds.append(now - last) }
                        last = now
                        trace.tokens += 1
                    }
                    trace.lastTokenAt = last - t0
                    return trace
                }
            }
            var all: [Trace] = []
            for try await t in group { all.append(t) }
            return all
        }
        guard traces.allSatisfy({ $0.tokens == tokens }) else {
            throw RuntimeError("a sequence stopped before its \(tokens) tokens")
        }
        let wall = traces.map(\.lastTokenAt).max() ?? 0
        return (traces, wall, scheduler.kvCacheBytes)
    }

    /// The nearest-rank percentile `p` (0–100) of `xs`; 0 for no samples.
    static func percentile(_ xs: [Double], _ p: Double) -> Double {
        guard !xs.isEmpty else { return 0 }
        let sorted = xs.sorted()
        let rank = Int((p / 100 * Double(sorted.count)).rounded(.up))
        return sorted[min(max(rank, 1), sorted.count) - 1]
    }

    /// The `--json` document; `promptTokens` nil (guided levels: rendered prompts) leaves it out.
    static func report(file: String, threads: Int, promptTokens: Int?, schema: String? = nil, tokens: Int, reps: Int,
                       isa: String, weightBytes: Int, _ levels: [Level]) -> JSONValue {
        func number(_ x: Double) -> JSONValue { .number(JSONNumber((x * 100).rounded() / 100)) }
        func pair(_ p: (p50: Double, p99: Double)) -> JSONValue {
            .object(JSONObject([("p50", number(p.p50)), ("p99", number(p.p99))]))
        }
        let rows: [JSONValue] = levels.map { l in
            .object(JSONObject([
                ("n", .number(JSONNumber(l.n))), ("agg_tok_s", number(l.aggregateTokensPerSecond)),
                ("itl_ms", pair(l.interTokenMs)), ("ttft_ms", pair(l.firstTokenMs)),
                ("peak_rss_mb", number(l.peakRSSMegabytes)), ("kv_bytes", .number(JSONNumber(l.kvBytes))),
            ] + (l.profile.map { [("profile", $0.json)] } ?? [])))
        }
        var fields: [(String, JSONValue)] = [("model", .string(file)), ("threads", .number(JSONNumber(threads)))]
        if let promptTokens { fields.append(("prompt_tokens", .number(JSONNumber(promptTokens)))) }
        if let schema { fields.append(("schema", .string(schema))) }
        fields += [("tg", .number(JSONNumber(tokens))), ("reps", .number(JSONNumber(reps))), ("isa", .string(isa)),
                   ("mapped_weights_mb", number(Double(weightBytes) / 1_048_576)), ("concurrency", .array(rows))]
        return .object(JSONObject(fields))
    }

    static func table(file: String, threads: Int, promptTokens: Int?, tokens: Int, isa: String, _ levels: [Level]) -> String {
        let f = BenchModel.format
        let prompts = promptTokens.map { "\($0)-token prompts" } ?? "rendered chat prompts"
        var out = "\(file): \(prompts), up to \(tokens) tokens each, \(threads) threads, \(isa)\n"
        out += "n     agg tok/s  vs n=\(levels.first?.n ?? 1)  ITL p50/p99 ms   TTFT p50/p99 ms   peak RSS MB  KV MB\n"
        let base = levels.first?.aggregateTokensPerSecond ?? 1
        for l in levels {
            out += "\(l.n)".padding(6) + f(l.aggregateTokensPerSecond).padding(11)
                + (f(l.aggregateTokensPerSecond / base) + "×").padding(8)
                + "\(f(l.interTokenMs.p50))/\(f(l.interTokenMs.p99))".padding(17)
                + "\(f(l.firstTokenMs.p50))/\(f(l.firstTokenMs.p99))".padding(18)
                + f(l.peakRSSMegabytes).padding(13) + f(Double(l.kvBytes) / 1_048_576) + "\n"
        }
        for l in levels { if let p = l.profile { out += p.table(title: "n=\(l.n) step profile") } }
        return out
    }
}
