import Engine

/// `loom bench -m MODEL`: prompt processing and decode speed, measured as llama-bench does so
/// that `Benchmarks/compare` can put the two side by side:
/// - pp: one batch of `--pp` prompt tokens from an empty context;
/// - tg: `--tg` single-token decodes from an empty context;
/// - TTFT: the pp batch plus the first decoded token;
/// - with `--depth D`, all three start with D tokens already in the cache (llama-bench's `-d`).
/// One warm-up repetition is not counted. Token ids follow llamacpp_bench.py's sequences.
enum BenchModel {
    static let usage = """
        usage: loom bench [-m MODEL] [--pp N] [--tg N] [--depth D] [-t N] [--reps R] [--kv f32|f16|q8_0] [--engine E]
                          [--schema FILE] [--profile] [--prefix N [--turns T] [--no-prefix-reuse]] [--json]
               loom bench [-m MODEL] --concurrency N[,N…] [--schema FILE] [--prompt-tokens N] [--tg N] [-t N] [--reps R]
                          [--profile] [--json]
               loom bench [-m MODEL] --speculate --task extract|rewrite|free [--prompts FILE] [--speculate-max K] [-t N] [--reps R] [--json]
          -m, --model FILE   GGUF file (default: $LOOM_MODEL, then models/default.gguf)
          --pp N             prompt tokens evaluated as one batch (default 512)
          --tg N             tokens generated from an empty context (default 128)
          --depth D          pp and tg start with D tokens already in the KV cache, evaluated
                             untimed first (llama-bench's -d): the speed at a context's depth
          -t, --threads N    kernel threads (default 2)
          --reps R           measured repetitions after one warm-up (default 5)
          --kv T             KV cache element type: f32 (default), f16 or q8_0
          --engine E         sequential (default) or pipelined: tg runs through that engine's
                             generation loop (greedy; the consumer detokenizes each token)
          --schema FILE      also measure guided tg: a session asked for the schema's JSON greedily
                             (the path of loom run --schema: a mask every sampled token, forced
                             runs as one batch) until the document is complete, beside free
                             text of as many tokens with the same prompt; tok/s after the first
          --profile          also where the time of a step goes: one more tg run (or, with
                             --concurrency, one more run per level) with the kernel profile on,
                             reported per step as matvec, prompt_products, attention, norms_other,
                             lm_head, sampling, idle (pool threads waiting at wake-ups and barriers)
                             and outside_steps (scheduler, consumers), in ms and as shares of the step
          --prefix N         instead of pp/tg: a conversation whose turn 1 is an N-token shared
                             prefix plus a question; reports the last turn's time to first token,
                             and that of a new sequence sharing the prefix's KV blocks
          --turns T          turns of that conversation (default 2)
          --no-prefix-reuse  evaluate every turn's prompt cold (the baseline)
          --concurrency N,…  instead: for each N, N sequences with distinct prompts of
                             --prompt-tokens ids (default 64) submitted together to one scheduler, each
                             generating --tg tokens (greedy, sampled in the scheduler); aggregate
                             tok/s (all tokens over the wall time from submission to the last
                             one), inter-token latency and time to first token p50/p99, peak RSS,
                             KV pool bytes; --reps runs per level (default 3). With --schema: N
                             sessions asked for the schema's JSON greedily at once (the guided
                             path users take; ITL per sequence: its mean between updates)
          --speculate        instead: prompt-lookup speculation on a task's prompts
                             (Benchmarks/speculation/TASK.json, or --prompts FILE), each answered
                             greedily through a session with and without speculation (alternating
                             order, --reps rounds, default 3); --speculate-max K caps proposals
          --task T           extract (fields into a JSON schema), rewrite (a paragraph with small
                             edits) or free (a story: the control)
          --json             {"model", "threads", "engine", "depth", "pp": {"tokens", "tok_s": {"median", "min", "max"}},
                             "tg": {…}, "ttft_ms": {…}, "weight_bytes_per_token", "weight_gbps",
                             "read_bandwidth_gbps", "peak_rss_mb", "isa", "blas_core"}, plus
                             "profile": {"steps", "step_ms", "ms": {part: ms}, "share": {part: fraction}}
                             with --profile, and
                             "guided": {"tokens", "tok_s", "unconstrained_tok_s", "forced_share"} with
                             --schema; with --prefix: {"model", "threads", "engine", "prefix_tokens",
                             "turns", "prefix_reuse", "prompt_tokens", "cached_tokens", "ttft_ms",
                             "restored_cached_tokens", "restored_ttft_ms", "isa"}; with --concurrency:
                             {"model", "threads", "prompt_tokens", "tg", "reps", "isa", "mapped_weights_mb", "concurrency":
                             [{"n", "agg_tok_s", "itl_ms": {"p50", "p99"}, "ttft_ms": {"p50", "p99"},
                             "peak_rss_mb", "kv_bytes"[, "profile"]}]}; with --speculate: {"model", "threads",
                             "speculation": {"task", "prompts", "reps", "max_run", "tok_s_off": {"median",
                             "min", "max"}, "tok_s_on": {…}, "speedup", "acceptance_rate",
                             "mean_accepted_run", "identical"}}

        """

    static func run(_ arguments: [String]) async throws {
        let args = try Arguments(arguments, flags: ["json", "no-prefix-reuse", "speculate", "profile"],
                                 options: ["model", "pp", "tg", "depth", "threads", "reps", "kv", "engine", "schema", "prefix", "turns",
                                           "concurrency", "prompt-tokens", "task", "prompts", SpeculationArguments.option],
                                 aliases: ["m": "model", "t": "threads"])
        if let extra = args.positionals.first { throw UsageError("unexpected argument '\(extra)'") }
        if args.has("profile"), args.has("speculate") || args.value("prefix") != nil
            || (args.value("concurrency") != nil && args.value("schema") != nil) {
            throw UsageError("--profile goes with pp/tg or with --concurrency without --schema")
        }
        if args.value("depth") != nil,
           args.has("speculate") || args.value("prefix") != nil || args.value("concurrency") != nil || args.value("schema") != nil {
            throw UsageError("--depth goes with pp/tg only (not with --speculate, --prefix, --concurrency or --schema)")
        }
        if args.has("speculate") {
            guard let task = args.value("task"), ["extract", "rewrite", "free"].contains(task) else {
                throw UsageError("--speculate needs --task extract, rewrite or free")
            }
            let threads = try args.int("threads", default: 2), reps = try args.int("reps", default: 3)
            guard threads >= 1, reps >= 1 else { throw UsageError("--threads and --reps must be positive") }
            let file = args.modelPath.split(separator: "/").last.map(String.init) ?? args.modelPath
            try await BenchSpeculation.run(modelPath: args.modelPath, file: file, task: task,
                                           promptsPath: args.value("prompts"), threads: threads, reps: reps,
                                           limit: try SpeculationArguments.limit(args), json: args.has("json"))
            return
        }
        if args.value("task") != nil || args.value("prompts") != nil || args.value(SpeculationArguments.option) != nil {
            throw UsageError("--task, --prompts and --speculate-max go with --speculate")
        }
        let settings = try Settings(args)
        let model = try ModelStore.shared.model(path: args.modelPath)
        let file = args.modelPath.split(separator: "/").last.map(String.init) ?? args.modelPath
        if let levels = try args.ints("concurrency", in: 1...256) {
            guard args.value("prefix") == nil, args.value("engine") == nil, args.value("pp") == nil else {
                throw UsageError("--concurrency goes with --schema, --prompt-tokens, --tg, --reps, -t and --kv only")
            }
            let reps = args.value("reps") == nil ? 3 : settings.reps
            if let schema = args.value("schema") {
                if args.value("prompt-tokens") != nil { throw UsageError("--prompt-tokens does not go with --schema (prompts are rendered chat)") }
                try await BenchConcurrency.runGuided(modelPath: args.modelPath, file: file, schemaPath: schema, levels: levels,
                                                     tokens: settings.tg, reps: reps, threads: settings.threads,
                                                     kv: settings.kv, json: args.has("json"))
                return
            }
            let promptTokens = try args.int("prompt-tokens", default: 64)
            guard promptTokens >= 1 else { throw UsageError("--prompt-tokens must be positive") }
            try await BenchConcurrency.run(model: model, file: file, levels: levels, promptTokens: promptTokens,
                                           tokens: settings.tg, reps: reps, threads: settings.threads, kv: settings.kv,
                                           profile: args.has("profile"), json: args.has("json"))
            return
        }
        if args.value("prompt-tokens") != nil { throw UsageError("--prompt-tokens goes with --concurrency") }
        if let prefix = try args.int("prefix") {
            let turns = try args.int("turns", default: 2)
            guard prefix >= 1, turns >= 2 else { throw UsageError("--prefix must be positive and --turns at least 2") }
            try await BenchTurns.run(model: model, file: file, engine: settings.engine, threads: settings.threads, kv: settings.kv,
                                     reps: settings.reps, prefix: prefix, turns: turns, reuse: !args.has("no-prefix-reuse"),
                                     json: args.has("json"))
            return
        }
        if args.has("no-prefix-reuse") || args.value("turns") != nil { throw UsageError("--turns and --no-prefix-reuse go with --prefix") }

        let samples = try await measure(model: model, modelPath: args.modelPath, settings, schemaPath: args.value("schema"),
                                        profile: args.has("profile"), json: args.has("json"))
        let machine = MachineFigures(model: model, threads: settings.threads, kv: settings.kv)
        if args.has("json") {
            StandardOutput.write(jsonReport(file: file, settings, samples, machine).serialized() + "\n")
        } else {
            StandardOutput.write(textReport(file: file, settings, samples, machine))
        }
    }

    /// The pp/tg options of `loom bench`.
    struct Settings {
        let pp: Int, tg: Int, reps: Int, threads: Int
        /// Tokens already in the KV cache when pp and tg start (llama-bench's `-d`).
        let depth: Int
        /// `sequential` or `pipelined`.
        let engine: String
        let kv: KVCacheType

        init(_ args: Arguments) throws {
            pp = try args.int("pp", default: 512)
            tg = try args.int("tg", default: 128)
            reps = try args.int("reps", default: 5)
            threads = try args.int("threads", default: 2)
            depth = try args.int("depth", default: 0)
            guard pp >= 1, tg >= 1, reps >= 1, threads >= 1 else { throw UsageError("--pp, --tg, --reps and --threads must be positive") }
            guard depth >= 0 else { throw UsageError("--depth must not be negative") }
            engine = args.value("engine") ?? "sequential"
            guard engine == "sequential" || engine == "pipelined" else {
                throw UsageError("--engine must be sequential or pipelined, got '\(engine)'")
            }
            kv = try EngineOptions.kvCacheType(args, default: .f32)
        }
    }
}
