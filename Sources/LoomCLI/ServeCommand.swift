import ChatCompletionsServer
import Engine
import Foundation
import HTTPServer
import LocalBackend
import LoomMetrics
import Provider

/// `loom serve`: a model behind an OpenAI-compatible Chat Completions server.
///
/// The socket is bound before the model loads, so `/health` answers 503 while it loads and 200
/// after; the listening address is printed on stderr once the model is ready. SIGINT/SIGTERM
/// drain: new and queued generation requests get 503 with `Retry-After`, `/health` answers 503,
/// running ones finish for up to `--drain-timeout`, then the rest are cancelled and the process
/// exits 0; a second signal cancels at once.
enum ServeCommand: LoomCommand {
    static let name = "serve"
    static let summary = "serve a model over the OpenAI Chat Completions API (HTTP)"
    static let usage = """
        usage: loom serve [-m MODEL] [--host 127.0.0.1] [--port 8080] [--api-key KEY] [--alias NAME]
                          [--parallel N] [--queue N] [--max-body BYTES] [--timeout S]
                          [--engine sequential|pipelined|automatic] [-t THREADS] [--context N]
                          [--kv-budget MIB] [--no-metrics] [--drain-timeout S] [--log-format text|json]
                          [--no-speculate | --speculate-max K] [--prompt-cache DIR [--prompt-cache-budget MIB]]
                          [--quiet]
          -m, --model FILE   GGUF file (default: $LOOM_MODEL, then models/default.gguf)
          --host ADDR        address to bind (default 127.0.0.1: this machine only)
          --port N           port to bind (default 8080; 0 picks a free port)
          --api-key KEY      require 'Authorization: Bearer KEY' (default: $LOOM_API_KEY, else none)
          --alias NAME       the model id clients send (default: the file name without .gguf;
                             the file name itself is accepted as well)
          --parallel N       sequences decoded together in each forward pass (default 1)
          --queue N          requests waiting for a slot before 429 (default 8)
          --max-body BYTES   largest request body (default 8388608) → 413
          --timeout S        seconds per request, queueing and streaming included (default 600; 0 = none)
          --engine E         sequential, pipelined or automatic (default automatic)
          -t, --threads N    kernel threads (default 2)
          -c, --context N    context size in tokens: prompt plus answer (default 2048; --ctx also accepted)
          --kv-budget MIB    bytes of the KV block pool all sequences share (default: --parallel
                             full contexts, and at least 4); past what it holds, requests wait
          --no-metrics       no GET /metrics (Prometheus text; behind --api-key when set)
          --drain-timeout S  on SIGTERM/SIGINT, seconds running requests may finish before they
                             are cancelled (default 30; a second signal cancels at once)
          --log-format F     access log on stderr: text (default), or json (one object per
                             request: id, status, timings, tokens, cache hits, outcome)
          --no-speculate     no prompt-lookup speculation (answers are the same either way)
          --speculate-max K  tokens one speculative proposal holds at most (default 8)
          --prompt-cache DIR keep evaluated prompt prefixes (system prompts, shared contexts) in
                             DIR across restarts: written in the background, loaded instead of
                             evaluated; several servers may share DIR (flushed on drain)
          --prompt-cache-budget MIB
                             bytes DIR may hold before least recently used blocks go (default 1024)
          --quiet            no per-request log lines on stderr

        Every response carries X-Request-ID: the client's when well-formed, else a new UUID.

        Endpoints: POST /v1/chat/completions (stream or not), GET /v1/models, GET /health,
        GET /metrics.

        """

    /// What ends the wait after binding: the model loaded, failed to load, or a stop signal.
    private enum Phase: Sendable { case loaded, failed(String), signal(Int32) }

    /// Everything the model itself needs, parsed from the flags.
    struct ModelSettings {
        var path: String
        var engine: LocalLanguageModel.Variant
        var contextSize: Int
        var threads: Int
        /// Bytes of the KV block pool; nil: a full context per parallel sequence (at least the model's default).
        var kvCacheBudget: Int?
        /// Tokens one speculative proposal holds at most (0: off).
        var speculationLimit = 8
        /// Where evaluated prompt blocks persist across restarts; nil: memory only.
        var promptCache: PromptCacheOptions?
    }

    static func run(_ arguments: [String]) async throws {
        let args = try Arguments(
            arguments, flags: ["quiet", "no-metrics", SpeculationArguments.flag],
            options: Set(["model", "host", "port", "api-key", "alias", "parallel", "queue", "max-body", "timeout", "kv-budget",
                      "engine", "threads", "context", "drain-timeout", "log-format", SpeculationArguments.option])
                .union(PromptCacheArguments.names),
            aliases: ["m": "model", "t": "threads", "c": "context", "ctx": "context"])
        if let extra = args.positionals.first { throw UsageError("unexpected argument '\(extra)'") }

        var configuration = HTTPServerConfiguration()
        configuration.host = args.value("host") ?? "127.0.0.1"
        let port = try args.int("port", default: 8080)
        guard (0...65535).contains(port) else { throw UsageError("--port must be 0…65535") }
        configuration.port = UInt16(port)
        let key = args.value("api-key") ?? ProcessEnvironment.value("LOOM_API_KEY")
        if let key, key.isEmpty { throw UsageError("--api-key must not be empty") }
        configuration.parallel = try args.int("parallel", default: 1)
        guard configuration.parallel >= 1 else { throw UsageError("--parallel must be at least 1") }
        configuration.queue = try args.int("queue", default: 8)
        guard configuration.queue >= 0 else { throw UsageError("--queue must not be negative") }
        configuration.limits.maxBodyBytes = try args.int("max-body", default: configuration.limits.maxBodyBytes)
        guard configuration.limits.maxBodyBytes >= 1 else { throw UsageError("--max-body must be positive") }
        if let seconds = try args.double("timeout") {
            guard seconds >= 0, seconds.isFinite else { throw UsageError("--timeout must be a non-negative number of seconds") }
            configuration.requestTimeout = seconds == 0 ? nil : .milliseconds(Int64((seconds * 1000).rounded()))
        }

        let engineName = args.value("engine") ?? "automatic"
        guard let engine = LocalLanguageModel.Variant(rawValue: engineName) else {
            throw UsageError("--engine must be sequential, pipelined or automatic, not '\(engineName)'")
        }
        var settings = ModelSettings(path: args.modelPath, engine: engine,
                                     contextSize: try args.int("context", default: 2048),
                                     threads: try args.int("threads", default: 2))
        settings.speculationLimit = try SpeculationArguments.limit(args)
        if let mib = try args.int("kv-budget") {
            guard mib >= 1 else { throw UsageError("--kv-budget must be at least 1 MiB") }
            settings.kvCacheBudget = mib << 20
        }
        settings.promptCache = try PromptCacheArguments.options(args)
        guard settings.contextSize >= 16 else { throw UsageError("--context must be at least 16") }
        guard settings.threads >= 1 else { throw UsageError("--threads must be at least 1") }
        guard FileManager.default.fileExists(atPath: settings.path) else {
            throw RuntimeError("no model file at '\(settings.path)'")
        }
        let alias = args.value("alias") ?? Self.defaultModelID(path: settings.path)
        guard !alias.isEmpty else { throw UsageError("--alias must not be empty") }

        var operation = Operation()
        if let seconds = try args.double("drain-timeout") {
            guard seconds >= 0, seconds.isFinite else { throw UsageError("--drain-timeout must be a non-negative number of seconds") }
            operation.drainTimeout = .milliseconds(Int64((seconds * 1000).rounded()))
        }
        if let format = args.value("log-format") {
            guard let parsed = LogFormat(rawValue: format) else { throw UsageError("--log-format must be text or json, not '\(format)'") }
            operation.logFormat = parsed
        }
        operation.quiet = args.has("quiet")
        let metrics = args.has("no-metrics") ? nil : MetricsRegistry()
        let model = try makeModel(settings, parallel: configuration.parallel, metrics: metrics)
        if settings.promptCache != nil, let local = model as? LocalLanguageModel {
            operation.afterDrain = { await local.flushPromptCache() }
        }
        try await serve(model, modelID: alias, fileName: URL(fileURLWithPath: settings.path).lastPathComponent,
                        apiKey: key, configuration: configuration, metrics: metrics, operation: operation)
    }

    /// The only LocalLanguageModel-specific code: the model behind the server.
    /// Without `--kv-budget`, the KV pool holds a full context for every parallel sequence, so
    /// that `--parallel` above the model's default is not silently capped by the pool.
    static func makeModel(_ settings: ModelSettings, parallel: Int, metrics: MetricsRegistry? = nil) throws -> any LanguageModel {
        var model = LocalLanguageModel(path: settings.path, variant: settings.engine, contextSize: settings.contextSize,
                                       threads: settings.threads)
        model.metrics = metrics
        model.speculationLimit = settings.speculationLimit
        model.promptCache = settings.promptCache
        if let budget = settings.kvCacheBudget {
            model.kvCacheBudget = budget
        } else if parallel > LocalLanguageModel.defaultConcurrentSequences {
            let (bytes, overflow) = try model.kvCacheBytesPerSequence().multipliedReportingOverflow(by: parallel)
            guard !overflow else { throw UsageError("--parallel \(parallel) needs more KV memory than can be addressed") }
            model.kvCacheBudget = bytes
        }
        return model
    }

    /// How the server is run and logged, beyond the HTTP settings.
    struct Operation {
        /// How long running requests may finish after a stop signal.
        var drainTimeout: Duration = .seconds(30)
        var logFormat = LogFormat.text
        var quiet = false
        /// Run once the server has drained, before the process exits (pending prompt-cache writes).
        var afterDrain: (@Sendable () async -> Void)?
    }


    /// The access log's format.
    enum LogFormat: String {
        case text, json
    }

    /// One access-log line on stderr.
    static func logLine(_ record: HTTPAccessRecord) {
        let status = record.status.map { String($0) } ?? "-"
        let (seconds, attoseconds) = record.duration.components
        let ms = seconds * 1000 + attoseconds / 1_000_000_000_000_000
        StandardError.line("loom serve: \(record.method) \(record.path) \(status) \(record.outcome) \(ms) ms id=\(record.requestID)")
    }

    /// `models/smollm2-360m.Q8_0.gguf` → `smollm2-360m.Q8_0`.
    static func defaultModelID(path: String) -> String {
        let file = URL(fileURLWithPath: path).lastPathComponent
        return file.hasSuffix(".gguf") ? String(file.dropLast(5)) : file
    }

    private static func serve<Model: LanguageModel>(_ model: Model, modelID: String, fileName: String, apiKey: String?,
                                                    configuration: HTTPServerConfiguration, metrics: MetricsRegistry?,
                                                    operation: Operation) async throws {
        // The file name is accepted too, so clients configured with it (as for llama.cpp's
        // server) work unchanged; only the id is listed.
        let service = ChatCompletionsService(model: model, modelID: modelID, aliases: [fileName], apiKey: apiKey,
                                             metrics: metrics)
        let signals = try SignalWaiter()
        let responses = metrics.map(HTTPMetrics.init(registry:))
        let quiet = operation.quiet
        let json = operation.logFormat == .json
        var log: (@Sendable (HTTPAccessRecord) -> Void)?
        if !quiet || responses != nil {
            log = { @Sendable record in
                responses?.record(record)
                guard !quiet else { return }
                if json { StandardError.line(AccessLogJSON.line(record)) } else { ServeCommand.logLine(record) }
            }
        }
        let server = HTTPServer(configuration: configuration, router: service.router, accessLog: log)
        responses?.observe(server)
        let port = try server.start()
        let address = configuration.host.contains(":") ? "[\(configuration.host)]" : configuration.host
        StandardError.line("loom serve: loading \(modelID)…")

        // Loading races the signal wait, so Ctrl-C during a long load still stops cleanly.
        let (phases, phase) = AsyncStream.makeStream(of: Phase.self)
        Task { phase.yield(.signal(await signals.next())) }
        Task {
            do {
                try await service.load()
                phase.yield(.loaded)
            } catch {
                phase.yield(.failed("\(error)"))
            }
        }
        for await next in phases {
            switch next {
            case .loaded:
                StandardError.line("loom serve: listening on http://\(address):\(port) (model '\(modelID)')")
                continue
            case .failed(let why):
                await server.stop(gracePeriod: .seconds(1))
                throw RuntimeError("could not load the model: \(why)")
            case .signal:
                break
            }
            break
        }
        // Draining: the gate refuses new and queued requests, /health turns 503, running requests
        // finish within the timeout; a second signal stops at once.
        StandardError.line("loom serve: draining (up to \(operation.drainTimeout); a second signal stops at once)")
        service.beginDraining()
        server.beginDraining()
        let interrupted = Task {
            _ = await signals.next()
            StandardError.line("loom serve: stopping now")
            await server.stop(gracePeriod: .zero)
        }
        await server.drain(timeout: operation.drainTimeout)
        interrupted.cancel()
        await operation.afterDrain?()
        StandardError.line("loom serve: stopped")
    }
}
