// Any `LanguageModel` served as OpenAI-compatible Chat Completions.
//
// Why the executor and not `LanguageModelSession`: Chat Completions is stateless and the
// *client* runs the tools. A session either has no tools (and then offers none to the model:
// it builds `enabledTools` from its own `Tool` values) or runs the tools itself and loops; it
// cannot return the model's calls to the caller. The executor surface is exactly one generation
// step — transcript + enabled tool definitions + schema + options in, channel events out — which
// is one Chat Completions request. So the service builds the transcript itself, applies the
// same capability gate the session applies, and calls the model's executor; the executor is
// built once (loading the model) and shared by every request, as a session's executor store
// would share it (executors tolerate concurrent calls).
import Foundation
import HTTPServer
import LoomJSON
import LoomMetrics
import LoomSupport
import Provider

/// Serves one `LanguageModel` over HTTP: `POST /v1/chat/completions` (streamed and not),
/// `GET /v1/models`, `GET /v1/models/{id}`, `GET /health`, and `GET /metrics` when given a registry.
///
/// ```swift
/// let service = ChatCompletionsService(model: model, modelID: "smollm2")
/// let server = HTTPServer(configuration: .init(port: 8080), router: service.router)
/// try server.start()           // /health answers 503 while loading
/// try await service.load()     // builds the executor (loads weights) and prewarms it
/// ```
public final class ChatCompletionsService<Model: LanguageModel>: Sendable {
    /// The served model.
    public let model: Model
    /// The id clients put in `model` (and `GET /v1/models` lists). Requests naming another
    /// model (neither this id nor one of `aliases`) get 404 `model_not_found`, as from OpenAI.
    public let modelID: String
    /// Other names accepted in `model` (for example the model's file name), never listed.
    public let aliases: Set<String>
    /// `owned_by` in the model list.
    public let ownedBy: String
    /// Unix seconds when the service was created (the model's `created`).
    public let created: Int
    /// When set, every route but `/health` requires `Authorization: Bearer <apiKey>` (else 401).
    public let apiKey: String?
    /// When set, `GET /metrics` serves it as Prometheus text, and generation requests refused
    /// before they reach the model are counted in its `loom_requests_total` (the model counts
    /// the ones it runs, when it records into the same registry).
    public let metrics: MetricsRegistry?
    private let requestMetrics: RequestMetrics?

    private enum LoadState {
        case idle
        case loading
        case ready(Model.Executor)
        case failed(String)
    }

    private let state = Locked<LoadState>(.idle)
    private let draining = Locked(false)

    /// A service for `model`; nothing is loaded until `load()`.
    public init(model: Model, modelID: String, aliases: Set<String> = [], ownedBy: String = "loom", apiKey: String? = nil,
                metrics: MetricsRegistry? = nil) {
        self.model = model
        self.apiKey = apiKey
        self.metrics = metrics
        requestMetrics = metrics.map(RequestMetrics.init(registry:))
        self.modelID = modelID
        self.aliases = aliases
        self.ownedBy = ownedBy
        created = Int(Date().timeIntervalSince1970)
    }

    /// True once `load()` has succeeded (`GET /health` answers 200).
    public var isReady: Bool {
        state.withLock { if case .ready = $0 { return true }; return false }
    }

    /// Builds the model's executor with `Executor.load(configuration:)` — for a local model,
    /// loading its weights on a thread of its own, never the cooperative pool — then prewarms it
    /// with `transcript`. Until this returns,
    /// generation requests and `/health` answer 503; if it throws, they keep answering 503 with
    /// the load error (`DedicatedThreadError` if no thread could be created; a later call
    /// retries). While a load is in progress, or after one succeeded, further calls return at once.
    public func load(prewarming transcript: Transcript = Transcript()) async throws {
        let proceed = state.withLock { s -> Bool in
            switch s {
            case .ready, .loading: return false
            case .idle, .failed:
                s = .loading
                return true
            }
        }
        guard proceed else { return }
        let configuration = model.executorConfiguration
        do {
            let executor = try await Model.Executor.load(configuration: configuration)
            executor.prewarm(model: model, transcript: transcript)
            state.withLock { $0 = .ready(executor) }
        } catch {
            state.withLock { $0 = .failed("\(error)") }
            throw error
        }
    }

    /// The routes: generation is `limited` (counts against the server's parallel/queue gate),
    /// the model list and `/metrics` are not, and `/health` is also public (no API key), for
    /// load balancers.
    public var router: HTTPRouter {
        var router = HTTPRouter()
        register(on: &router)
        return router
    }

    /// Adds the service's routes to `router` and makes the router's conventions OpenAI's: the
    /// server's own refusals use the error envelope, and `apiKey` (when set) is required as a
    /// Bearer token. A router carries one authorizer and one renderer, so these replace any
    /// installed before.
    public func register(on router: inout HTTPRouter) {
        router.refusalRenderer = { ChatCompletionsServiceError.response(for: $0) }
        if let apiKey {
            let authorization = BearerKeyAuthorization(key: apiKey)
            router.authorizer = { authorization.refusal(for: $0) }
        } else {
            router.authorizer = nil
        }
        router.add("POST", "/v1/chat/completions", limited: true) { [self] in await chatCompletions($0) }
        router.add("GET", "/v1/models", limited: false) { [self] _ in models() }
        router.add("GET", "/v1/models/\(modelID)", limited: false) { [self] _ in
            .json(ChatCompletionsWireFormat.modelObject(id: modelID, created: created, ownedBy: ownedBy))
        }
        router.add("GET", "/health", limited: false, isPublic: true) { [self] _ in health() }
        if let metrics {
            router.add("GET", "/metrics", limited: false) { _ in
                HTTPResponse(status: 200, headers: ["Content-Type": MetricsSnapshot.prometheusContentType],
                             body: Array(metrics.snapshot().prometheusText().utf8))
            }
        }
    }

    // MARK: - Simple routes

    /// Marks the service as draining before a stop: `GET /health` answers 503 (`server_draining`)
    /// so load balancers take the instance out, while requests already running finish. The HTTP
    /// server's own drain (`HTTPServer.beginDraining()`) refuses new generation requests.
    public func beginDraining() {
        draining.withLock { $0 = true }
    }

    /// Whether `beginDraining()` has been called.
    public var isDraining: Bool { draining.withLock { $0 } }

    /// `GET /health`: 200 `{"status":"ok"}` once loaded, 503 with an error envelope before and
    /// while draining.
    public func health() -> HTTPResponse {
        if isDraining {
            return ChatCompletionsServiceError(status: 503, message: "The server is draining before it stops.",
                                               type: "unavailable_error", code: "server_draining",
                                               retryAfterSeconds: HTTPServer.drainingRetryAfterSeconds).response
        }
        if let unavailable = unavailableError() { return unavailable.response }
        return .json(.object(JSONObject([("status", .string("ok"))])))
    }

    /// `GET /v1/models`.
    public func models() -> HTTPResponse {
        .json(.object(JSONObject([
            ("object", .string("list")),
            ("data", .array([ChatCompletionsWireFormat.modelObject(id: modelID, created: created, ownedBy: ownedBy)])),
        ])))
    }

    private func unavailableError() -> ChatCompletionsServiceError? {
        state.withLock { s -> ChatCompletionsServiceError? in
            switch s {
            case .ready: return nil
            case .idle, .loading:
                return ChatCompletionsServiceError(status: 503, message: "The model is loading; retry shortly.",
                                                   type: "unavailable_error", code: "model_loading", retryAfterSeconds: 1)
            case .failed(let why):
                return ChatCompletionsServiceError(status: 503, message: "The model failed to load: \(why)",
                                                   type: "unavailable_error", code: "model_load_failed")
            }
        }
    }

    private var executor: Model.Executor? {
        state.withLock { if case .ready(let e) = $0 { return e }; return nil }
    }

    // MARK: - Chat completions

    /// `POST /v1/chat/completions`.
    public func chatCompletions(_ http: HTTPRequest) async -> HTTPResponse {
        let request: ChatCompletionsRequest
        do throws(ChatCompletionsServiceError) {
            request = try ChatCompletionsRequest(body: http.body)
            guard request.model == modelID || aliases.contains(request.model) else {
                throw ChatCompletionsServiceError(
                    status: 404, message: "The model '\(request.model)' does not exist; this server serves '\(modelID)'.",
                    type: "invalid_request_error", code: "model_not_found", param: "model")
            }
            try request.checkCapabilities(model.capabilities)
        } catch {
            return refused(error)
        }
        if let unavailable = unavailableError() { return refused(unavailable) }
        guard let executor else { return refused(ChatCompletionsServiceError(generationError: CancellationError())) }

        // The request's id (the client's, else the server's) traces through to the executor when it
        // is a UUID, as Loom's client and the server make them.
        let requestID = UUID(uuidString: http.requestID) ?? UUID()
        let format = ChatCompletionsWireFormat(
            id: "chatcmpl-" + requestID.uuidString.replacingOccurrences(of: "-", with: "").lowercased(),
            created: Int(Date().timeIntervalSince1970), model: modelID)
        var executorRequest = request.executorRequest(id: requestID)
        if metrics != nil {
            // The model measures from the request's arrival, the wait for a slot included.
            let (seconds, attoseconds) = (ContinuousClock.now - http.receivedAt).components
            executorRequest.metadata[RequestMetrics.waitedSecondsMetadataKey] = Double(seconds) + Double(attoseconds) * 1e-18
        }
        let run = GenerationRun(executor: executor, model: model, request: executorRequest)
        let log = GenerationLog(notes: http.notes, receivedAt: http.receivedAt)
        var response = request.stream
            ? await streamed(request, run: run, format: format, log: log)
            : await complete(request, run: run, format: format, log: log)
        response.headers.set(HTTPRequestID.headerName, http.requestID.isEmpty ? requestID.uuidString : http.requestID)
        return response
    }

    /// A generation request refused before it reached the model, counted by its status.
    private func refused(_ error: ChatCompletionsServiceError) -> HTTPResponse {
        requestMetrics?.count(RequestOutcome(httpStatus: error.status))
        return error.response
    }

    private func complete(_ request: ChatCompletionsRequest, run: GenerationRun, format: ChatCompletionsWireFormat,
                          log: GenerationLog) async -> HTTPResponse {
        defer { run.cancel() }
        let cursor = GenerationCursor(run: run)
        var finishReason: String?
        var refusal: String?
        func failed(_ e: ChatCompletionsServiceError) -> HTTPResponse {
            log.end(cursor, outcome: RequestOutcome(httpStatus: e.status))
            return e.response
        }
        do {
            repeat {
                _ = try await cursor.nextDeltas()
                if cursor.assembler.producedAttachment { return failed(Self.attachmentError) }
            } while !cursor.finished
        } catch {
            switch await Self.inBandOutcome(of: error, hasOutput: Self.hasOutput(cursor.assembler)) {
            case .refusal(let text): refusal = text; finishReason = "stop"
            case .contentFilter: finishReason = "content_filter"
            case .error(let e): return failed(e)
            }
        }
        if cursor.assembler.producedAttachment { return failed(Self.attachmentError) }
        let reason = finishReason ?? cursor.assembler.finishReason(maximumResponseTokens: request.generationOptions.maximumResponseTokens)
        log.end(cursor, outcome: .ok, finishReason: reason)
        let logProbabilities = request.generationOptions.logProbabilities != nil ? cursor.assembler.contentLogProbabilities : nil
        return .json(format.completion(cursor.assembler, finishReason: reason, refusal: refusal,
                                       logProbabilities: logProbabilities))
    }

    private func streamed(_ request: ChatCompletionsRequest, run: GenerationRun, format: ChatCompletionsWireFormat,
                          log: GenerationLog) async -> HTTPResponse {
        let cursor = GenerationCursor(run: run)
        // Hold the response head until there is visible output (or the end): a failure before
        // that — context overflow, an unenforceable schema — is still an HTTP error status.
        var first: [ChatCompletionAssembler.Delta] = []
        var early: InBandOutcome?
        do {
            first = try await cursor.nextDeltas()
        } catch {
            let outcome = await Self.inBandOutcome(of: error, hasOutput: false)
            if case .error(let e) = outcome {
                run.cancel()
                log.end(cursor, outcome: RequestOutcome(httpStatus: e.status))
                return e.response
            }
            early = outcome
        }
        let (firstDeltas, earlyOutcome) = (first, early)
        let includeUsage = request.includeUsage
        let limit = request.generationOptions.maximumResponseTokens
        let reportsLogProbabilities = request.generationOptions.logProbabilities != nil
        return .eventStream { writer in
            defer { cursor.run.cancel() }
            func send(_ value: JSONValue) async throws { try await writer.sendEvent(value.serialized()) }
            func send(_ delta: JSONObject, finish: String? = nil, logProbabilities: [TokenLogProbability]? = nil) async throws {
                try await send(format.chunk(delta: delta, finishReason: finish, includeUsageField: includeUsage,
                                            logProbabilities: logProbabilities))
            }
            func finish(_ reason: String) async throws {
                log.end(cursor, outcome: .ok, finishReason: reason)
                try await send(JSONObject(), finish: reason)
                if includeUsage { try await send(format.usageChunk(cursor.assembler.usage)) }
                try await writer.sendEvent("[DONE]")
            }
            func end(_ outcome: InBandOutcome) async throws {
                switch outcome {
                case .refusal(let text):
                    try await send(JSONObject([("refusal", .string(text))]))
                    try await finish("stop")
                case .contentFilter:
                    try await finish("content_filter")
                case .error(let e):
                    // OpenAI's in-band error: an error object as the last event, no [DONE].
                    log.end(cursor, outcome: RequestOutcome(httpStatus: e.status))
                    try await send(e.envelope)
                }
            }

            try await send(JSONObject([("role", .string("assistant")), ("content", .string(""))]))
            if let earlyOutcome { return try await end(earlyOutcome) }
            var deltas = firstDeltas
            while true {
                if cursor.assembler.producedAttachment { return try await end(.error(Self.attachmentError)) }
                if cursor.assembler.revisedStreamedOutput { return try await end(.error(Self.revisionError)) }
                for delta in deltas {
                    // A content chunk carries its tokens' log-probabilities when they were asked for.
                    var entries: [TokenLogProbability]?
                    if reportsLogProbabilities, case .content = delta { entries = cursor.assembler.takeUnstreamedLogProbabilities() }
                    try await send(ChatCompletionsWireFormat.delta(delta), logProbabilities: entries)
                }
                if cursor.finished { break }
                do {
                    deltas = try await cursor.nextDeltas()
                } catch {
                    // A cancelled generation means the client is gone or the request timed out;
                    // the connection is being torn down, so there is no one to tell.
                    if error is CancellationError {
                        log.end(cursor, outcome: .cancelled)
                        throw error
                    }
                    return try await end(await Self.inBandOutcome(of: error, hasOutput: Self.hasOutput(cursor.assembler)))
                }
            }
            try await finish(cursor.assembler.finishReason(maximumResponseTokens: limit))
        }
    }

    // MARK: - Failures that are answers

    /// How a generation error is reported: a refusal is the model's answer (`refusal`), a
    /// guardrail stop after output is a `content_filter` finish, and everything else an error.
    enum InBandOutcome: Sendable {
        case refusal(String)
        case contentFilter
        case error(ChatCompletionsServiceError)
    }

    static func inBandOutcome(of error: any Error, hasOutput: Bool) async -> InBandOutcome {
        if case LanguageModelError.refusal(let p)? = error as? LanguageModelError {
            let explanation = (try? await p.explanation.content) ?? p.debugDescription
            return .refusal(explanation)
        }
        if case LanguageModelError.guardrailViolation? = error as? LanguageModelError, hasOutput {
            return .contentFilter
        }
        return .error(ChatCompletionsServiceError(generationError: error))
    }

    static func hasOutput(_ a: ChatCompletionAssembler) -> Bool {
        !a.content.isEmpty || !a.toolCalls.isEmpty || !a.reasoning.isEmpty
    }

    static var attachmentError: ChatCompletionsServiceError {
        ChatCompletionsServiceError(status: 500, message: "The model produced an attachment, which Chat Completions cannot carry.",
                                    type: "server_error", code: "unsupported_output")
    }

    static var revisionError: ChatCompletionsServiceError {
        ChatCompletionsServiceError(status: 500, message: "The model revised output that had already been streamed; retry without streaming.",
                                    type: "server_error", code: "stream_revision")
    }
}
