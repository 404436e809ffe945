import CTensor
import Engine
import LoomJSON
#if canImport(Glibc)
import Glibc
#endif

/// `loom bench -m MODEL`: prompt processing and decode speed, measured as llama-bench does so
/// that `Benchmarks/compare` can put the two side by side:
/// - pp: one batch of `--pp` prompt tokens from an empty context;
/// - tg: `--tg` single-token decodes from an empty context;
/// - TTFT: the pp batch plus the first decoded token.
/// One warm-up repetition is not counted. Token ids follow llamacpp_bench.py's sequences.
enum BenchModel {
    static let usage = """
        usage: loom bench [-m MODEL] [--pp N] [--tg N] [-t N] [--reps R] [--kv f32|f16] [--engine E]
                          [--schema FILE] [--prefix N [--turns T] [--no-prefix-reuse]] [--json]
          -m, --model FILE   GGUF file (default: $LOOM_MODEL, then models/default.gguf)
          --pp N             prompt tokens evaluated as one batch (default 512)
          --tg N             tokens generated from an empty context (default 128)
          -t, --threads N    kernel threads (default 2)
          --reps R           measured repetitions after one warm-up (default 5)
          --kv T             KV cache element type (default f32)
          --engine E         sequential (default) or pipelined: tg runs through that engine's
                             generation loop (greedy; the consumer detokenizes each token)
          --schema FILE      also measure guided tg: greedy generation under the JSON Schema's
                             token masks (sequential engine; forced runs evaluated as one batch),
                             beside unconstrained tg with the same prompt
          --prefix N         instead of pp/tg: a conversation whose turn 1 is an N-token shared
                             prefix plus a question; reports the last turn's time to first token,
                             and that of a new sequence sharing the prefix's KV blocks
          --turns T          turns of that conversation (default 2)
          --no-prefix-reuse  evaluate every turn's prompt cold (the baseline)
          --json             {"model", "threads", "engine", "pp": {"tokens", "tok_s": {"median", "min", "max"}},
                             "tg": {…}, "ttft_ms": {…}, "weight_bytes_per_token", "weight_gbps",
                             "read_bandwidth_gbps", "peak_rss_mb", "isa", "blas_core"}, plus
                             "guided": {"tokens", "tok_s", "unconstrained_tok_s", "forced_share"} with
                             --schema; with --prefix: {"model", "threads", "engine", "prefix_tokens",
                             "turns", "prefix_reuse", "prompt_tokens", "cached_tokens", "ttft_ms",
                             "restored_cached_tokens", "restored_ttft_ms", "isa"}

        """

    static func run(_ arguments: [String]) async throws {
        let args = try Arguments(arguments, flags: ["json", "no-prefix-reuse"],
                                 options: ["model", "pp", "tg", "threads", "reps", "kv", "engine", "schema", "prefix", "turns"],
                                 aliases: ["m": "model", "t": "threads"])
        if let extra = args.positionals.first { throw UsageError("unexpected argument '\(extra)'") }
        let pp = try args.int("pp", default: 512), tg = try args.int("tg", default: 128)
        let reps = try args.int("reps", default: 5), threads = try args.int("threads", default: 2)
        guard pp >= 1, tg >= 1, reps >= 1, threads >= 1 else { throw UsageError("--pp, --tg, --reps and --threads must be positive") }
        let engine = args.value("engine") ?? "sequential"
        guard engine == "sequential" || engine == "pipelined" else {
            throw UsageError("--engine must be sequential or pipelined, got '\(engine)'")
        }
        let kv: KVCacheType
        switch args.value("kv") ?? "f32" {
        case "f32": kv = .f32
        case "f16": kv = .f16
        case let other: throw UsageError("--kv must be f32 or f16, got '\(other)'")
        }
        let model = try ModelStore.shared.model(path: args.modelPath)
        let file = args.modelPath.split(separator: "/").last.map(String.init) ?? args.modelPath
        if let prefix = try args.int("prefix") {
            let turns = try args.int("turns", default: 2)
            guard prefix >= 1, turns >= 2 else { throw UsageError("--prefix must be positive and --turns at least 2") }
            try await BenchTurns.run(model: model, file: file, engine: engine, threads: threads, kv: kv, reps: reps,
                                     prefix: prefix, turns: turns, reuse: !args.has("no-prefix-reuse"), json: args.has("json"))
            return
        }
        if args.has("no-prefix-reuse") || args.value("turns") != nil { throw UsageError("--turns and --no-prefix-reuse go with --prefix") }

        // pp (+ the TTFT token) and tg each start from an empty cache.
        let context = max(pp + 1, tg + 1)
        guard context <= model.config.contextLength else {
            throw RuntimeError("--pp \(pp) or --tg \(tg) exceeds the model's context of \(model.config.contextLength)")
        }
        let configuration = TransformerConfiguration(threads: threads, maxBatch: pp, contextLength: context, kvCacheType: kv)
        let transformer = try Transformer(model: model, configuration: configuration)
        let cache = try transformer.makeCache()
        let vocab = model.config.vocabularySize
        let prompt = (0..<pp).map { Int32(($0 * 7919 + 13) % vocab) }
        let decodes = (0..<tg).map { Int32(($0 * 31 + 5) % vocab) }
        let tokenizer = try? Tokenizer(gguf: model.file)
        // tg runs through the chosen engine: one transformer for pp, another inside the engine
        // (each owns its kernel threads; only one runs at a time).
        let generator = try BenchEngine(kind: engine, model: model, configuration: TransformerConfiguration(
            threads: threads, maxBatch: 64, contextLength: tg + 1, kvCacheType: kv))
        let guided = try args.value("schema").map { try GuidedSetup(schemaPath: $0, model: model, tokenizer: tokenizer,
                                                                       threads: threads, kv: kv, tokens: tg) }

        var ppRates: [Double] = [], tgRates: [Double] = [], ttfts: [Double] = []
        var progress = Progress(json: args.has("json"))
        var guidedRates: [Double] = [], plainRates: [Double] = [], forcedShare = 0.0
        for rep in 0...reps {
            progress.step("bench: repetition", rep, of: reps)
            cache.reset()
            let t0 = loom_now_seconds()
            _ = try transformer.evaluate(prompt, cache: cache)
            let t1 = loom_now_seconds()
            _ = try transformer.decode(decodes[0], cache: cache)
            let t2 = loom_now_seconds()
            let tgSeconds = try await BenchGeneration.generationSeconds(engine: generator, first: decodes[0], tokens: tg,
                                                                       tokenizer: tokenizer)
            var guidedRun: (seconds: Double, forced: Int, plain: Double)?
            if let guided {
                let g = try BenchGeneration.guidedSeconds(engine: guided.engine, matcher: guided.matcher,
                                                          prompt: guided.prompt, tokens: tg)
                let t3 = loom_now_seconds()
                try guided.engine.generate(prompt: guided.prompt, sampling: .greedy, maxTokens: tg, reusePrefix: false) { _ in }
                guidedRun = (g.seconds, g.forced, loom_now_seconds() - t3)
            }
            if rep == 0 { continue }  // warm-up
            ppRates.append(Double(pp) / (t1 - t0))
            ttfts.append((t2 - t0) * 1000)
            tgRates.append(Double(tg) / tgSeconds)
            if let guidedRun {
                guidedRates.append(Double(tg) / guidedRun.seconds)
                plainRates.append(Double(tg) / guidedRun.plain)
                forcedShare = Double(guidedRun.forced) / Double(tg)
            }
        }
        progress.clear()

        // A decoded token reads every weight once, except the embedding table (one row) unless
        // it doubles as the output head.
        let tied = model.file.tensor(named: "output.weight") == nil
        let weightBytes = model.file.tensors.reduce(0) { sum, t in
            sum + (t.name == "token_embd.weight" && !tied ? t.byteCount / max(t.rowCount, 1) : t.byteCount)
        }
        let tgMedian = median(tgRates)
        let peakRSS = peakResidentMegabytes()  // before the bandwidth probe's 256 MiB buffer
        let bandwidth = readBandwidth(threads: threads)
        let isa = String(cString: loom_isa_name(loom_isa_active()))
        let blas = String(cString: loom_blas_core_name())

        if args.has("json") {
            var fields: [(String, JSONValue)] = [
                ("model", .string(file)), ("threads", .number(JSONNumber(threads))), ("engine", .string(engine)),
                ("pp", .object(JSONObject([("tokens", .number(JSONNumber(pp))), ("tok_s", stats(ppRates))]))),
                ("tg", .object(JSONObject([("tokens", .number(JSONNumber(tg))), ("tok_s", stats(tgRates))]))),
                ("ttft_ms", stats(ttfts)),
                ("weight_bytes_per_token", .number(JSONNumber(weightBytes))),
                ("weight_gbps", .number(JSONNumber(Double(weightBytes) * tgMedian / 1e9))),
                ("read_bandwidth_gbps", .number(JSONNumber(bandwidth))),
                ("peak_rss_mb", .number(JSONNumber(peakRSS))),
                ("isa", .string(isa)), ("blas_core", .string(blas)),
            ]
            if !guidedRates.isEmpty {
                fields.append(("guided", .object(JSONObject([
                    ("tokens", .number(JSONNumber(tg))), ("tok_s", stats(guidedRates)),
                    ("unconstrained_tok_s", stats(plainRates)), ("forced_share", .number(JSONNumber(forcedShare))),
                ]))))
            }
            StandardOutput.write(JSONValue.object(JSONObject(fields)).serialized() + "\n")
            return
        }
        func line(_ name: String, _ xs: [Double], _ unit: String) -> String {
            "\(name.padding(6)) median \(format(median(xs))) \(unit)  (min \(format(xs.min()!)), max \(format(xs.max()!)))\n"
        }
        var guidedLines = ""
        if !guidedRates.isEmpty {
            guidedLines = line("guided", guidedRates, "tok/s") + line("free", plainRates, "tok/s")
                + "forced tokens \(format(forcedShare * 100))%\n"
        }
        StandardOutput.write("""
            model \(file), \(threads) threads, engine \(engine), isa \(isa), BLAS core \(blas)
            \(line("pp\(pp)", ppRates, "tok/s"))\(line("tg\(tg)", tgRates, "tok/s"))\(line("ttft", ttfts, "ms"))\
            \(guidedLines)\
            weights per token \(format(Double(weightBytes) / 1e6)) MB: \(format(Double(weightBytes) * tgMedian / 1e9)) GB/s \
            of \(format(bandwidth)) GB/s read bandwidth; peak RSS \(format(peakRSS)) MB

            """)
    }

    static func stats(_ xs: [Double]) -> JSONValue {
        .object(JSONObject([("median", .number(JSONNumber(median(xs)))),
                            ("min", .number(JSONNumber(xs.min()!))), ("max", .number(JSONNumber(xs.max()!)))]))
    }

    static func median(_ xs: [Double]) -> Double {
        let s = xs.sorted()
        return s.count % 2 == 1 ? s[s.count / 2] : (s[s.count / 2 - 1] + s[s.count / 2]) / 2
    }

    static func format(_ x: Double) -> String {
        let r = (x * 10).rounded() / 10
        return r == r.rounded() ? String(Int(r)) : String(r)
    }

    /// The machine's streaming read rate on `threads` threads over 256 MiB (best of a few runs).
    static func readBandwidth(threads: Int) -> Double {
        let bytes = 256 << 20
        guard let pool = loom_pool_create(Int32(threads)),
              let buffer = UnsafeMutableRawPointer(bitPattern: UInt(bitPattern: aligned_alloc(4096, bytes))) else { return 0 }
        defer { loom_pool_destroy(pool); free(buffer) }
        memset(buffer, 1, bytes)
        return BenchKernels.readBandwidth(pool, buffer, bytes)
    }

    /// Peak resident set size of this process (VmHWM), in MB.
    static func peakResidentMegabytes() -> Double {
        guard let f = fopen("/proc/self/status", "r") else { return 0 }
        defer { fclose(f) }
        var line = [CChar](repeating: 0, count: 256)
        while fgets(&line, 256, f) != nil {
            let s = String(decoding: line.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
            if s.hasPrefix("VmHWM:") {
                let kb = s.split(separator: " ").compactMap { Double($0) }.first ?? 0
                return kb / 1024
            }
        }
        return 0
    }
}
