import Engine
import Foundation
import LocalBackend
import LoomJSON
import Provider

/// `loom run`: one prompt through `LanguageModelSession` and `LocalLanguageModel` (chat template,
/// guided generation with `--schema`, either engine), streaming the answer.
enum RunCommand: LoomCommand {
    static let name = "run"
    static let summary = "answer one prompt through LanguageModelSession (chat template, --schema for JSON)"
    static let usage = """
        usage: loom run [-m MODEL] [-p PROMPT] [--system S] [--schema FILE] [--engine sequential|pipelined|automatic]
                        [-t N] [--context N] [-n N] [--greedy | --temperature T --top-k K --top-p P --seed S]
                        [--no-speculate | --speculate-max K] [--prompt-cache DIR [--prompt-cache-budget MIB]]
                        [--logprobs K] [--json]
          -m, --model FILE   GGUF file (default: $LOOM_MODEL, then models/default.gguf)
          -p, --prompt TEXT  the prompt (default: standard input)
          --system TEXT      instructions (system prompt)
          --schema FILE      JSON Schema the answer must match (guided generation); prints the JSON
          --engine E         sequential, pipelined or automatic (default automatic)
          -n, --max-tokens N response tokens at most
          --temperature T, --top-k K, --top-p P, --seed S   sampling (top-k and top-p exclude each other)
          --greedy           argmax decoding
          -c, --context N    context size in tokens: prompt plus answer (default 2048; --ctx also accepted)
          -t, --threads N    kernel threads (default 2)
          --no-speculate     no prompt-lookup speculation (the output is the same either way)
          --speculate-max K  tokens one speculative proposal holds at most (default 8)
        \(PromptCacheArguments.usage)
          --logprobs K       report each token's log-probability and its K (0-20) likeliest alternatives
                             (with --json, under "logprobs" in OpenAI's logprobs.content shape)
          --json             {"text", "content", "usage": {"input", "cached", "output"}, "ttft_ms", "tok_s", "engine",
                             "speculation": {"proposed", "accepted", "forced"}} (+ "logprobs" with --logprobs)

        """

    static func run(_ arguments: [String]) async throws {
        let args = try Arguments(
            arguments, flags: ["json", "greedy", SpeculationArguments.flag],
            options: Set(["model", "prompt", "system", "schema", "engine", "max-tokens", "temperature", "top-k", "top-p", "seed",
                      "context", "threads", "logprobs", SpeculationArguments.option]).union(PromptCacheArguments.names),
            // `--ctx` stays accepted as another spelling of `--context`, for scripts that use it.
            aliases: ["m": "model", "p": "prompt", "c": "context", "ctx": "context", "t": "threads", "n": "max-tokens"])
        if let extra = args.positionals.first { throw UsageError("unexpected argument '\(extra)'") }
        let variant: LocalLanguageModel.Variant
        switch args.value("engine") ?? "automatic" {
        case let raw:
            guard let v = LocalLanguageModel.Variant(rawValue: raw) else {
                throw UsageError("--engine must be sequential, pipelined or automatic, got '\(raw)'")
            }
            variant = v
        }
        let options = try generationOptions(args)
        let context = try args.int("context", default: 2048)
        let threads = try args.int("threads", default: 2)
        guard context >= 16 else { throw UsageError("--context must be at least 16") }
        guard threads >= 1 else { throw UsageError("--threads must be at least 1") }
        var schema: GenerationSchema?
        if let file = args.value("schema") {
            let data: Data
            do { data = try Data(contentsOf: URL(fileURLWithPath: file)) } catch {
                throw RuntimeError("cannot read schema \(file): \(error.localizedDescription)")
            }
            do { schema = try GenerationSchema(jsonSchema: data) } catch {
                throw RuntimeError("\(file) is not a JSON Schema: \(error)")
            }
        }
        let prompt = try args.value("prompt") ?? StandardInput.readText()
        guard !prompt.isEmpty else { throw UsageError("the prompt is empty") }

        var model = LocalLanguageModel(path: args.modelPath, variant: variant, contextSize: context, threads: threads)
        model.speculationLimit = try SpeculationArguments.limit(args)
        model.promptCache = try PromptCacheArguments.options(args)
        let session = args.value("system").map { LanguageModelSession(model: model, instructions: $0) }
            ?? LanguageModelSession(model: model)
        // The process ends right after the answer: the prompt's blocks must reach the disk first.
        let flushed = model
        do {
            let json = args.has("json")
            do {
                let text: String
                let content: JSONValue
                let entries: ArraySlice<Transcript.Entry>
                if let schema {
                    let response = try await session.respond(to: prompt, schema: schema, options: options)
                    text = response.rawContent.jsonString
                    content = response.rawContent.jsonValue
                    entries = response.transcriptEntries
                    if !json { StandardOutput.write(text + "\n") }
                } else {
                    let stream = session.streamResponse(to: prompt, options: options)
                    var printed = ""
                    for try await snapshot in stream {
                        let now = snapshot.content
                        if !json, now.hasPrefix(printed) {
                            StandardOutput.write(String(now.dropFirst(printed.count)))
                            printed = now
                        }
                    }
                    let response = try await stream.collect()
                    text = response.content
                    content = .string(text)
                    entries = response.transcriptEntries
                    if !json {
                        if response.content.hasPrefix(printed) { StandardOutput.write(String(response.content.dropFirst(printed.count))) }
                        StandardOutput.write("\n")
                    }
                }
                if json {
                    var document = report(text: text, content: content, entries: entries)
                    if options.logProbabilities != nil, case .object(var object) = document {
                        let last = entries.last { if case .response = $0 { return true }; return false }
                        var list: [TokenLogProbability] = []
                        if case .response(let response)? = last { list = response.logProbabilities ?? [] }
                        object["logprobs"] = .array(list.map(\.jsonValue))
                        document = .object(object)
                    }
                    StandardOutput.write(document.serialized() + "\n")
                }
            } catch let error as LanguageModelError {
                throw RuntimeError(error.debugDescription)
            } catch let error as LocalLanguageModelError {
                throw RuntimeError(error.description)
            }
        } catch {
            await flushed.flushPromptCache()
            throw error
        }
        await flushed.flushPromptCache()
    }

    /// The `--json` document.
    static func report(text: String, content: JSONValue, entries: ArraySlice<Transcript.Entry>) -> JSONValue {
        let figures = ResponseFigures(entries)
        let usage = figures.usage
        func number(_ value: Double?, scale: Double = 1) -> JSONValue {
            guard let v = value else { return .null }
            return .number(JSONNumber((v * scale * 1000).rounded() / 1000))
        }
        return .object(JSONObject([
            ("text", .string(text)),
            ("content", content),
            ("usage", .object(JSONObject([
                ("input", .number(JSONNumber(usage?.input.totalTokenCount ?? 0))),
                ("cached", .number(JSONNumber(usage?.input.cachedTokenCount ?? 0))),
                ("output", .number(JSONNumber(usage?.output.totalTokenCount ?? 0))),
            ]))),
            ("ttft_ms", number(figures.local.timeToFirstToken, scale: 1000)),
            ("tok_s", number(figures.local.tokensPerSecond)),
            ("engine", figures.local.variant.map { .string($0.rawValue) } ?? .null),
            ("speculation", .object(JSONObject([
                ("proposed", .number(JSONNumber(figures.local.proposedTokens ?? 0))),
                ("accepted", .number(JSONNumber(figures.local.acceptedTokens ?? 0))),
                ("forced", .number(JSONNumber(figures.local.forcedTokens ?? 0))),
            ]))),
        ]))
    }


    /// Sampling options from the command line; nil fields leave the model's defaults.
    static func generationOptions(_ args: Arguments) throws -> GenerationOptions {
        var options = GenerationOptions()
        let sampled = ["temperature", "top-k", "top-p", "seed"].contains { args.value($0) != nil }
        if args.has("greedy") {
            if sampled { throw UsageError("--greedy excludes --temperature/--top-k/--top-p/--seed") }
            options.samplingMode = .greedy
        }
        if let t = try args.double("temperature") {
            guard t >= 0, t.isFinite else { throw UsageError("--temperature must be a non-negative number") }
            options.temperature = t
        }
        var seed: UInt64?
        if let raw = args.value("seed") {
            guard let s = UInt64(raw) else { throw UsageError("--seed expects a non-negative integer, got '\(raw)'") }
            seed = s
        }
        let k = try args.int("top-k"), p = try args.double("top-p")
        if k != nil && p != nil { throw UsageError("give --top-k or --top-p, not both") }
        if let k {
            guard k > 0 else { throw UsageError("--top-k must be positive") }
            options.samplingMode = .random(top: k, seed: seed)
        } else if let p {
            guard p > 0, p <= 1 else { throw UsageError("--top-p must be in (0, 1]") }
            options.samplingMode = .random(probabilityThreshold: p, seed: seed)
        } else if seed != nil {
            // A seed alone keeps the model's default filter but fixes the draw.
            options.samplingMode = .random(probabilityThreshold: 1, seed: seed)
        }
        if let k = try args.int("logprobs") {
            let limit = GenerationOptions.LogProbabilities.maximumAlternatives
            guard (0...limit).contains(k) else { throw UsageError("--logprobs must be in 0...\(limit)") }
            options.logProbabilities = .init(alternatives: k)
        }
        if let n = try args.int("max-tokens") {
            guard n >= 0 else { throw UsageError("-n/--max-tokens must not be negative") }
            options.maximumResponseTokens = n
        }
        return options
    }
}
