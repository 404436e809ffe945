import Engine

/// `loom generate`: continues a prompt (token ids, or text once a tokenizer is wired) greedily or
/// by sampling, stopping before any end-of-generation token.
enum GenerateCommand: LoomCommand {
    static let name = "generate"
    static let summary = "continue a prompt (token ids) greedily or by sampling"
    static let usage = """
        usage: loom generate [-m MODEL] (--ids "1 2 3" | -p TEXT [--bos] [--special]) [-n N]
                             [--greedy | --temperature T --top-k K --top-p P --seed S] [--ignore-eos] [--json]
        \(EngineOptions.usage)  -p, --prompt TEXT  prompt text (needs the model's tokenizer)
          --bos              add the BOS token before the prompt text
          --special          parse special-token text (<|im_start|>) in the prompt
          -n N               tokens to generate at most (default 128)
          --greedy           argmax decoding (the default)
          --temperature T, --top-k K, --top-p P, --seed S   sampling parameters
          --ignore-eos       keep going past end-of-generation tokens
          --json             {"prompt_ids": [...], "ids": [generated], "text": "..."}

        """

    static func run(_ arguments: [String]) async throws {
        let args = try Arguments(
            arguments, flags: ["json", "greedy", "ignore-eos", "bos", "special"],
            options: EngineOptions.options.union(["prompt", "n", "temperature", "top-k", "top-p", "seed"]),
            aliases: EngineOptions.aliases.merging(["p": "prompt"]) { a, _ in a })
        if let extra = args.positionals.first { throw UsageError("unexpected argument '\(extra)'") }
        let steps = try args.int("n", default: 128)
        guard steps >= 0 else { throw UsageError("-n must not be negative") }
        let sampling = try samplingRequested(args)

        let model = try Model(path: args.modelPath)
        let promptIDs: [Int32]
        if let ids = try EngineOptions.ids(args) {
            if args.value("prompt") != nil { throw UsageError("give either --ids or -p, not both") }
            promptIDs = ids
        } else if args.value("prompt") != nil {
            throw RuntimeError("-p needs a tokenizer, which this build does not have yet; pass token ids with --ids")
        } else {
            throw UsageError("a prompt is required (--ids or -p)")
        }
        guard !promptIDs.isEmpty else { throw UsageError("the prompt is empty") }
        if sampling { throw RuntimeError("sampling needs CTensor's sampler, which this build does not have yet; use --greedy") }

        let transformer = try EngineOptions.transformer(args, model: model, positions: promptIDs.count + steps)
        let cache = try transformer.makeCache()
        let stop = args.has("ignore-eos") ? [] : Set(model.config.specialTokens.endOfGeneration)
        let json = args.has("json")

        var generated: [Int32] = []
        if steps > 0 {
            var logits = try transformer.evaluate(promptIDs, cache: cache)
            while generated.count < steps {
                let next = Int32(argmax(logits))
                if stop.contains(Int(next)) { break }
                generated.append(next)
                if !json { StandardOutput.write(generated.count == 1 ? "\(next)" : " \(next)") }
                if generated.count == steps { break }
                logits = try transformer.decode(next, cache: cache)
            }
        }
        if json {
            let p = promptIDs.map { String($0) }.joined(separator: ", ")
            let g = generated.map { String($0) }.joined(separator: ", ")
            StandardOutput.write("{\"prompt_ids\": [\(p)], \"ids\": [\(g)], \"text\": \"\"}\n")
        } else {
            StandardOutput.write("\n")
        }
    }

    /// True when the arguments ask for sampling rather than argmax decoding.
    static func samplingRequested(_ args: Arguments) throws(UsageError) -> Bool {
        let sampled = ["temperature", "top-k", "top-p", "seed"].contains { args.value($0) != nil }
        if sampled && args.has("greedy") { throw UsageError("--greedy excludes --temperature/--top-k/--top-p/--seed") }
        if let t = try args.double("temperature"), t == 0 { return false }
        return sampled
    }

    /// The index of the largest logit (lowest index on ties).
    static func argmax(_ logits: UnsafeBufferPointer<Float>) -> Int {
        var best = 0
        for i in 1..<logits.count where logits[i] > logits[best] { best = i }
        return best
    }
}
