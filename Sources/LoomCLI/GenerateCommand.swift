import Engine
import LoomJSON
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// `loom generate`: continues a prompt (token ids or text) greedily or
/// by sampling, stopping before any end-of-generation token.
enum GenerateCommand: LoomCommand {
    static let name = "generate"
    static let summary = "continue a prompt (text or token ids) greedily or by sampling"
    static let usage = """
        usage: loom generate [-m MODEL] (--ids "1 2 3" | -p TEXT [--bos] [--special]) [-n N]
                             [--greedy | --temperature T --top-k K --top-p P --seed S] [--ignore-eos] [--json]
        \(EngineOptions.usage)  -p, --prompt TEXT  prompt text, tokenized with the model's tokenizer
          --bos              add the BOS token before the prompt text
          --special          parse special-token text (<|im_start|>) in the prompt
          -n, --max-tokens N tokens to generate at most (default 128)
          --greedy           argmax decoding (the default)
          --temperature T, --top-k K, --top-p P, --seed S   sampling parameters
          --ignore-eos       keep going past end-of-generation tokens
          --json             {"prompt_ids": [...], "ids": [generated], "text": "..."}
          --timings          print prompt and decode speed to stderr


        """

    static func run(_ arguments: [String]) async throws {
        let args = try Arguments(
            arguments, flags: ["json", "greedy", "ignore-eos", "bos", "special", "timings"],
            options: EngineOptions.options.union(["prompt", "max-tokens", "temperature", "top-k", "top-p", "seed"]),
            aliases: EngineOptions.aliases.merging(["p": "prompt", "n": "max-tokens"]) { a, _ in a })
        if let extra = args.positionals.first { throw UsageError("unexpected argument '\(extra)'") }
        let steps = try args.int("max-tokens", default: 128)
        guard steps >= 0 else { throw UsageError("-n/--max-tokens must not be negative") }
        let parameters = try samplingParameters(args)

        var progress = Progress(json: args.has("json"))
        let model = try progress.during("loading \(args.modelPath)") { try Model(path: args.modelPath) }
        // The tokenizer is needed for -p and for text output; ids-only runs work without one.
        let tokenizer: Tokenizer?
        let promptIDs: [Int32]
        if let ids = try EngineOptions.ids(args) {
            if args.value("prompt") != nil { throw UsageError("give either --ids or -p, not both") }
            promptIDs = ids
            do {
                tokenizer = try Tokenizer(gguf: model.file)
            } catch {
                StandardError.line("loom generate: no tokenizer (\(error)); printing token ids")
                tokenizer = nil
            }
        } else if let text = args.value("prompt") {
            let t = try Tokenizer(gguf: model.file)
            tokenizer = t
            promptIDs = t.encode(text, addBOS: args.has("bos"), parseSpecial: args.has("special"))
        } else {
            throw UsageError("a prompt is required (--ids or -p)")
        }
        guard !promptIDs.isEmpty else { throw UsageError("the prompt is empty") }

        // The one generation loop: a sequence on a scheduler, sampled inside its loop.
        let configuration = try EngineOptions.configuration(args, positions: promptIDs.count + steps)
        let scheduler = try Scheduler(model: model, configuration: configuration, policy: SchedulerPolicy(maxSequences: 1))
        let stop: Set<Int32> = args.has("ignore-eos") ? [] :
            Set(tokenizer?.endOfGenerationTokens ?? model.config.specialTokens.endOfGenerationIDs.map { Int32($0) })
        let json = args.has("json")
        var decoder = tokenizer.map { StreamingDecoder(tokenizer: $0) }

        var generated: [Int32] = []
        var text = ""
        var promptSeconds = 0.0, decodeSeconds = 0.0
        if steps > 0 {
            let t0 = monotonicSeconds()
            let stream = try scheduler.generate(prompt: promptIDs, sampling: parameters, stopTokens: stop, maxTokens: steps,
                                                reusePrefix: false)
            var firstAt: Double?
            for try await next in stream {
                if firstAt == nil { firstAt = monotonicSeconds() }
                generated.append(next)
                if decoder != nil {
                    let piece = try decoder!.append(next)
                    text += piece
                    if !json { StandardOutput.write(piece) }
                } else if !json {
                    StandardOutput.write(generated.count == 1 ? "\(next)" : " \(next)")
                }
            }
            let end = monotonicSeconds()
            promptSeconds = (firstAt ?? end) - t0
            decodeSeconds = end - (firstAt ?? end)
        }
        if decoder != nil {
            let rest = decoder!.finish()
            text += rest
            if !json { StandardOutput.write(rest) }
        }
        if json {
            let p = promptIDs.map { String($0) }.joined(separator: ", ")
            let g = generated.map { String($0) }.joined(separator: ", ")
            let doc = "{\"prompt_ids\": [\(p)], \"ids\": [\(g)], \"text\": \(JSONValue.string(text).serialized())}\n"
            StandardOutput.write(doc)
        } else {
            StandardOutput.write("\n")
        }
        if args.has("timings") {
            // The prompt time runs to the first token (the prompt pass and its sampling); decode
            // time covers every step after it, so the first token is not counted as decoded.
            let decoded = max(generated.count - 1, 0)
            StandardError.line("prompt: \(promptIDs.count) tokens in \(ms(promptSeconds)) ms (\(rate(promptIDs.count, promptSeconds)) tok/s); "
                + "decode: \(decoded) tokens in \(ms(decodeSeconds)) ms (\(rate(decoded, decodeSeconds)) tok/s); "
                + "threads \(configuration.threads)")
        }
    }

    private static func ms(_ s: Double) -> String { String(Int((s * 1000).rounded())) }
    private static func rate(_ n: Int, _ s: Double) -> String { s > 0 ? String(Int((Double(n) / s).rounded())) : "-" }

    /// Seconds on the monotonic clock.
    static func monotonicSeconds() -> Double {
        var ts = timespec()
        clock_gettime(CLOCK_MONOTONIC, &ts)
        return Double(ts.tv_sec) + Double(ts.tv_nsec) * 1e-9
    }

    /// Greedy unless a sampling option is given; sampling options left out are off (top-k,
    /// top-p) or neutral (temperature 1, seed 0).
    static func samplingParameters(_ args: Arguments) throws(UsageError) -> SamplingParameters {
        let sampled = ["temperature", "top-k", "top-p", "seed"].contains { args.value($0) != nil }
        if sampled && args.has("greedy") { throw UsageError("--greedy excludes --temperature/--top-k/--top-p/--seed") }
        guard sampled else { return .greedy }
        var p = SamplingParameters()
        if let t = try args.double("temperature") {
            guard t >= 0, t.isFinite else { throw UsageError("--temperature must be a non-negative number") }
            p.temperature = Float(t)
        }
        if let k = try args.int("top-k") {
            guard k >= 0 else { throw UsageError("--top-k must not be negative") }
            p.topK = k
        }
        if let top = try args.double("top-p") {
            guard top > 0, top <= 1 else { throw UsageError("--top-p must be in (0, 1]") }
            p.topP = Float(top)
        }
        if let raw = args.value("seed") {
            guard let seed = UInt64(raw) else { throw UsageError("--seed expects a non-negative integer, got '\(raw)'") }
            p.seed = seed
        }
        return p
    }
}
