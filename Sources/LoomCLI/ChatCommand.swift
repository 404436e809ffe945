import Dispatch
import Engine
import Foundation
import Grammar
import LocalBackend
import LoomSupport
import Provider

/// `loom chat`: a streaming conversation through `LanguageModelSession` and `LocalLanguageModel`,
/// the same path an app takes. Interactive on a terminal; with piped stdin each line is one turn.
enum ChatCommand: LoomCommand {
    static let name = "chat"
    static let summary = "talk to a model (streaming REPL through LanguageModelSession)"
    static let usage = """
        usage: loom chat [-m MODEL] [--system TEXT] [--engine E] [-t N] [--context N] [--kv f16|f32|q8_0]
                         [--greedy | --temperature T --top-k K --top-p P --seed S] [-n N] [--schema FILE]
                         [--no-speculate | --speculate-max K] [--prompt-cache DIR [--prompt-cache-budget MIB]]
          -m, --model FILE   GGUF file (default: $LOOM_MODEL, then models/default.gguf)
          --system TEXT      instructions (the system prompt)
          --engine E         sequential, pipelined or automatic (default automatic: pipelined for
                             free text, sequential when a schema needs the grammar)
          -t, --threads N    kernel threads (default 2)
          -c, --context N    context size in tokens: prompt plus answer (default 2048; --ctx also accepted)
          --kv f16|f32|q8_0  KV cache element type (default f16)
          --greedy           argmax decoding
          --temperature T, --top-k K, --top-p P, --seed S   sampling (defaults: llama.cpp's)
          -n, --max-tokens N answer length cap per turn
          --schema FILE      start with answers constrained by this JSON Schema (as /schema FILE)
          --no-speculate     no prompt-lookup speculation (answers are the same either way)
          --speculate-max K  tokens one speculative proposal holds at most (default 8)
        \(PromptCacheArguments.usage)

        At the prompt:
          /schema FILE       constrain the following answers to a JSON Schema file; /schema off
          /stats             tok/s, time to first token, cached prompt tokens and speculation of the last answer
          /reset             forget the conversation (keeps the loaded model and its caches)
          /help              this list
          /quit              leave (also Ctrl-D)
        Ctrl-C stops the answer being generated; at the prompt, a second Ctrl-C leaves.
        With stdin piped, each line is one turn (commands included) and answers go to stdout.

        """

    static let commandHelp = """
        /schema FILE   constrain the following answers to a JSON Schema (/schema off to stop)
        /stats         tok/s, time to first token, cached prompt tokens and speculation of the last answer
        /reset         forget the conversation
        /help          this list
        /quit          leave (also Ctrl-D; Ctrl-C twice at the prompt)

        """

    static func run(_ arguments: [String]) async throws {
        let args = try Arguments(
            arguments, flags: ["greedy", SpeculationArguments.flag],
            options: Set(["model", "system", "engine", "threads", "context", "kv", "temperature", "top-k", "top-p", "seed",
                      "max-tokens", "schema", SpeculationArguments.option]).union(PromptCacheArguments.names),
            aliases: ["m": "model", "t": "threads", "c": "context", "ctx": "context", "n": "max-tokens"])
        if let extra = args.positionals.first { throw UsageError("unexpected argument '\(extra)' (chat reads turns from stdin)") }
        let model = try localModel(args)
        // Fail before the first prompt, not after it, when the file is missing or not a model.
        do {
            _ = try GGUFFile(path: args.modelPath)
        } catch {
            throw RuntimeError("cannot load model \(args.modelPath): \(error)")
        }

        let chat = ChatLoop(model: model, system: args.value("system"),
                            interactive: isatty(0) != 0, modelName: args.modelPath)
        if let path = args.value("schema") { try chat.setSchema(path: path) }
        try await chat.run()
        // Leaving: the conversation's prompt blocks reach the disk before the process ends.
        await model.flushPromptCache()
    }

    /// The model the flags describe.
    static func localModel(_ args: Arguments) throws -> LocalLanguageModel {
        let variant: LocalLanguageModel.Variant
        let engine = args.value("engine") ?? "automatic"
        guard let v = LocalLanguageModel.Variant(rawValue: engine) else {
            throw UsageError("--engine must be sequential, pipelined or automatic, got '\(engine)'")
        }
        variant = v
        let threads = try args.int("threads", default: 2)
        guard threads >= 1 else { throw UsageError("--threads must be at least 1") }
        let context = try args.int("context", default: 2048)
        guard context >= 16 else { throw UsageError("--context must be at least 16") }
        let kv = try EngineOptions.kvCacheType(args, default: .f16)
        var sampling = SamplingDefaults()
        let sampled = ["temperature", "top-k", "top-p", "seed"].contains { args.value($0) != nil }
        if args.has("greedy") {
            if sampled { throw UsageError("--greedy excludes --temperature/--top-k/--top-p/--seed") }
            sampling.temperature = 0
        }
        if let t = try args.double("temperature") {
            guard t >= 0, t.isFinite else { throw UsageError("--temperature must be a non-negative number") }
            sampling.temperature = t
        }
        if let k = try args.int("top-k") {
            guard k >= 0 else { throw UsageError("--top-k must not be negative") }
            sampling.topK = k
        }
        if let p = try args.double("top-p") {
            guard p > 0, p <= 1 else { throw UsageError("--top-p must be in (0, 1]") }
            sampling.topP = p
        }
        if let raw = args.value("seed") {
            guard let seed = UInt64(raw) else { throw UsageError("--seed expects a non-negative integer, got '\(raw)'") }
            sampling.seed = seed
        }
        if let n = try args.int("max-tokens") {
            guard n >= 1 else { throw UsageError("--max-tokens must be at least 1") }
            sampling.maximumResponseTokens = n
        }
        var model = LocalLanguageModel(path: args.modelPath, variant: variant, contextSize: context, threads: threads,
                                       kvCacheType: kv, sampling: sampling)
        model.speculationLimit = try SpeculationArguments.limit(args)
        model.promptCache = try PromptCacheArguments.options(args)
        return model
    }
}

/// The conversation: a session, the optional schema, the last answer's figures, and what
/// Ctrl-C should do at any moment.
final class ChatLoop: Sendable {
    let session: LanguageModelSession
    let interactive: Bool
    let modelName: String
    private let initialTranscript: Transcript
    private let state = Locked(State())
    private let interrupts = InterruptHandler()

    struct State {
        var schema: GenerationSchema?
        var schemaPath: String?
        var lastStats: String?
        var turns = 0
        var failures = 0
    }

    init(model: LocalLanguageModel, system: String?, interactive: Bool, modelName: String) {
        session = system.map { LanguageModelSession(model: model, instructions: $0) }
            ?? LanguageModelSession(model: model)
        initialTranscript = session.transcript
        self.interactive = interactive
        self.modelName = modelName
    }

    func run() async throws {
        interrupts.install()
        if interactive {
            StandardError.line("loom chat: \(modelName) — /help for commands, Ctrl-D to leave")
        }
        while true {
            if interactive { StandardError.write("> ") }
            interrupts.atPrompt()
            guard let line = readLine(strippingNewline: true) else {
                if interactive { StandardError.write("\n") }
                break
            }
            let text = line.trimmingCharacters(in: .whitespaces)
            if text.isEmpty { continue }
            if text.hasPrefix("/") {
                if try !command(text) { break }
                continue
            }
            await answer(text)
        }
        let failures = state.withLock { $0.failures }
        if failures > 0 && !interactive {
            throw RuntimeError("\(failures) turn\(failures == 1 ? "" : "s") failed")
        }
    }

    /// Runs a slash command; false means leave.
    func command(_ text: String) throws -> Bool {
        let parts = text.split(separator: " ", maxSplits: 1).map(String.init)
        let argument = parts.count > 1 ? parts[1].trimmingCharacters(in: .whitespaces) : ""
        switch parts[0] {
        case "/quit", "/exit", "/q":
            return false
        case "/help", "/?":
            StandardError.write(ChatCommand.commandHelp)
        case "/reset":
            session.transcript = initialTranscript
            state.withLock { $0.lastStats = nil }
            note("conversation reset")
        case "/stats":
            note(state.withLock { $0.lastStats } ?? "no answer yet")
        case "/schema":
            if argument.isEmpty {
                note(state.withLock { $0.schemaPath.map { "answers follow \($0)" } } ?? "answers are free text")
            } else if argument == "off" {
                state.withLock { $0.schema = nil; $0.schemaPath = nil }
                note("answers are free text")
            } else {
                do {
                    try setSchema(path: argument)
                    note("answers follow \(argument)")
                } catch {
                    report(error)
                }
            }
        default:
            note("unknown command \(parts[0]); /help lists them")
        }
        return true
    }

    /// Loads a JSON Schema and checks that Loom can enforce it before any turn uses it.
    func setSchema(path: String) throws {
        let text = try FileInput.text(path)
        do {
            _ = try Grammar(jsonSchema: text)
        } catch {
            throw RuntimeError("\(path): \(error)")
        }
        let schema = try GenerationSchema(jsonSchema: text)
        state.withLock {
            $0.schema = schema
            $0.schemaPath = path
        }
    }

    /// One turn: streams the answer to stdout; Ctrl-C cancels it.
    func answer(_ prompt: String) async {
        let (schema, firstTurn) = state.withLock { s -> (GenerationSchema?, Bool) in
            s.turns += 1
            return (s.schema, s.turns == 1)
        }
        let session = self.session
        let modelName = self.modelName
        let task = Task { () async throws -> ArraySlice<Transcript.Entry> in
            var progress = Progress(json: false)
            progress.update(firstTurn ? "loading \(modelName)…" : "evaluating the prompt…", force: true)
            if let schema {
                // Partial JSON snapshots re-close the value each time, so the object is printed whole.
                let response = try await session.respond(to: prompt, schema: schema, includeSchemaInPrompt: true)
                progress.clear()
                StandardOutput.write(response.rawContent.jsonValue.serialized(.pretty) + "\n")
                return response.transcriptEntries
            }
            let stream = session.streamResponse(to: prompt)
            var printed = 0
            for try await snapshot in stream {
                if printed == 0 { progress.clear() }
                let text = snapshot.content
                if text.count > printed {
                    StandardOutput.write(String(text.dropFirst(printed)))
                    printed = text.count
                }
            }
            progress.clear()
            StandardOutput.write("\n")
            return try await stream.collect().transcriptEntries
        }
        interrupts.answering(task)
        do {
            let entries = try await task.value
            let stats = ChatLoop.stats(entries)
            state.withLock { $0.lastStats = stats }
        } catch is CancellationError {
            StandardError.line("\n[answer stopped]")
        } catch {
            StandardOutput.write("\n")
            report(error)
            state.withLock { $0.failures += 1 }
        }
    }

    /// `/stats`: the last answer's figures from the response metadata and usage.
    static func stats(_ entries: some Collection<Transcript.Entry>) -> String {
        var generated = 0, prompt = 0, cached = 0, proposed = 0, accepted = 0
        var rate: Double?, ttft: Double?
        for entry in entries {
            let metadata: [String: GeneratedContent]
            let usage: Transcript.Usage?
            switch entry {
            case .response(let r): (metadata, usage) = (r.metadata, r.usage)
            case .toolCalls(let c): (metadata, usage) = (c.metadata, c.usage)
            default: continue
            }
            if let usage {
                generated += usage.output.totalTokenCount
                prompt = usage.input.totalTokenCount
                cached = usage.input.cachedTokenCount
            }
            let local = LocalGenerationMetadata(metadata)
            if let r = local.tokensPerSecond { rate = r }
            if ttft == nil, let t = local.timeToFirstToken { ttft = t }
            if let c = local.cachedTokenCount { cached = c }
            proposed += local.proposedTokens ?? 0
            accepted += local.acceptedTokens ?? 0
        }
        var parts = ["\(generated) tokens"]
        parts.append(rate.map { String(format: "%.1f tok/s", $0) } ?? "tok/s n/a")
        parts.append(ttft.map { String(format: "TTFT %.0f ms", $0 * 1000) } ?? "TTFT n/a")
        parts.append("prompt \(prompt) tokens, \(cached) cached")
        parts.append("speculation \(accepted)/\(proposed) accepted")
        return parts.joined(separator: ", ")
    }

    private func note(_ text: String) {
        StandardError.line("[\(text)]")
    }

    private func report(_ error: any Error) {
        StandardError.line(ErrorReport.line(command: "chat", error))
    }
}

/// What Ctrl-C does: cancel the answer being generated, or at the prompt, warn once and leave on
/// the second press. SIGINT is taken from the default handler and delivered on a dispatch queue.
final class InterruptHandler: Sendable {
    private struct State {
        var answer: Task<ArraySlice<Transcript.Entry>, any Error>?
        var pressedAtPrompt = false
    }

    /// Keeps the signal source alive.
    private final class SourceBox: @unchecked Sendable {
        // @unchecked: the source is set up before boxing and never touched again.
        let source: any DispatchSourceSignal
        init(_ source: any DispatchSourceSignal) { self.source = source }
    }

    private let state = Locked(State())
    private let source = Locked<SourceBox?>(nil)

    func install() {
        signal(SIGINT, SIG_IGN)
        let s = DispatchSource.makeSignalSource(signal: SIGINT, queue: DispatchQueue.global())
        s.setEventHandler { [self] in interrupted() }
        s.resume()
        let box = SourceBox(s)
        source.withLock { $0 = box }
    }

    func atPrompt() {
        state.withLock { $0.answer = nil }
    }

    func answering(_ task: Task<ArraySlice<Transcript.Entry>, any Error>) {
        state.withLock {
            $0.answer = task
            $0.pressedAtPrompt = false
        }
    }

    private func interrupted() {
        let action = state.withLock { s -> Int in
            if let task = s.answer {
                task.cancel()
                s.answer = nil
                return 0
            }
            if s.pressedAtPrompt { return 2 }
            s.pressedAtPrompt = true
            return 1
        }
        switch action {
        case 1: StandardError.write("\n(Ctrl-C again or /quit to leave)\n> ")
        case 2:
            StandardError.write("\n")
            exit(130)
        default: break
        }
    }
}
