// Any OpenAI-compatible Chat Completions server behind LanguageModelSession, source-compatible
// with Apple's `ChatCompletionsLanguageModel` (seed-003 §2) and fixing its known defects:
// endpoint resolution by table plus an override, true incremental streaming on Linux,
// every request field sent or refused, typed `LanguageModelError`s, timeouts in the cache key.
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import Provider

/// A language model served by an OpenAI-compatible `/chat/completions` endpoint (vLLM,
/// llama.cpp's server, Ollama, LM Studio, `loom serve`, hosted APIs).
///
/// ```swift
/// let model = ChatCompletionsLanguageModel(name: "Qwen/Qwen3-4B", url: URL(string: "http://127.0.0.1:8000/v1")!,
///                                          supportsGuidedGeneration: false)
/// let session = LanguageModelSession(model: model)
/// ```
///
/// - Important: **`supportsGuidedGeneration` is a promise about the server, and it defaults to
///   `true`.** When true, the model declares `.guidedGeneration` and structured requests are
///   sent as `response_format: {type: "json_schema", strict: true}` and trusted: nothing on the
///   client enforces the schema. Many servers (and many local ones) treat `response_format` as
///   a suggestion; against those, a `true` here turns into parse errors or, worse, plausible
///   but non-conforming output. **Pass `false` unless the server enforces JSON Schema strictly**
///   (OpenAI's structured outputs, vLLM with guided decoding, `loom serve`). With `false`, the
///   session refuses schema requests with `LanguageModelError.unsupportedCapability`.
///
/// Credentials: prefer `init(name:url:tokenProvider:…)`, which asks for a token on every
/// request (so rotating tokens work) and never stores it. Header values and tokens are kept
/// out of `description`s, errors and metadata.
public struct ChatCompletionsLanguageModel: LanguageModel {
    /// The executor type.
    public typealias Executor = ChatCompletionsExecutor

    /// The wire model id, sent as the body's `model` (not a display name).
    public var name: String
    /// The server's base URL (e.g. `https://api.openai.com/v1`, `http://localhost:8000`); the
    /// endpoint is resolved by `ChatCompletionsEndpoint.resolve(baseURL:override:apiVersion:)`.
    public var url: URL
    /// Headers sent with every request (e.g. an `Authorization` header). Values are treated as
    /// secrets: they are scrubbed from errors and never printed.
    public var additionalHeaders: [String: String]
    /// Whether the server strictly enforces `response_format` JSON Schemas. See the type's
    /// documentation: this must be `false` for servers that do not.
    public var supportsGuidedGeneration: Bool
    /// An exact endpoint URL to use instead of resolving one from `url`.
    public var endpointOverride: URL?
    /// Azure OpenAI's `api-version` query value, added to the endpoint when set.
    public var apiVersion: String?
    /// Which body field carries `maximumResponseTokens`.
    public var maximumTokensField: MaximumTokensField
    /// The names of the extension fields for top-k and seed (nil refuses them).
    public var extensionFields: ExtensionFields
    /// Whether earlier reasoning is sent back to the server.
    public var reasoningHistory: ReasoningHistory
    /// The header that carries the request's id (`LanguageModelExecutorGenerationRequest.id`).
    public var requestIDHeaderName: String
    /// Whether to ask for usage at the end of the stream (`stream_options.include_usage`).
    /// Turn off only for servers that reject `stream_options`.
    public var includeUsageInStream: Bool
    /// Request and resource timeouts (initially those of `urlSessionConfiguration`).
    public var timeouts: Timeouts

    let sessionConfiguration: SessionConfigurationBox?
    var tokenProvider: TokenProvider?

    /// Apple's initializer: a model `name` on the server at `url`.
    ///
    /// - Parameters:
    ///   - name: the wire model id (`model` in the body).
    ///   - url: the base URL (endpoint resolved by table; see `endpointOverride`).
    ///   - additionalHeaders: headers for every request (treated as secrets).
    ///   - supportsGuidedGeneration: **must be `false` unless the server strictly enforces
    ///     JSON Schema `response_format`** (see the type's documentation).
    ///   - urlSessionConfiguration: transport settings (proxies, TLS, timeouts); nil uses an
    ///     ephemeral configuration. The value is copied; its timeouts seed `timeouts`.
    public init(name: String, url: URL, additionalHeaders: [String: String] = [:],
                supportsGuidedGeneration: Bool = true, urlSessionConfiguration: URLSessionConfiguration? = nil) {
        self.name = name
        self.url = url
        self.additionalHeaders = additionalHeaders
        self.supportsGuidedGeneration = supportsGuidedGeneration
        endpointOverride = nil
        apiVersion = nil
        maximumTokensField = .maxCompletionTokens
        extensionFields = ExtensionFields()
        reasoningHistory = .omitted
        requestIDHeaderName = "X-Request-ID"
        includeUsageInStream = true
        let box = urlSessionConfiguration.map(SessionConfigurationBox.init)
        let source = box?.configuration ?? URLSessionConfiguration.ephemeral
        timeouts = Timeouts(request: source.timeoutIntervalForRequest, resource: source.timeoutIntervalForResource)
        sessionConfiguration = box
        tokenProvider = nil
    }

    /// A model whose credential comes from `tokenProvider`, called once per HTTP request so
    /// rotating or refreshed tokens work. The token is sent as `authorizationHeader:
    /// tokenPrefix + token` and is never stored, logged or put in errors.
    ///
    /// - Parameters:
    ///   - tokenProviderID: the provider's identity in `Configuration` (the session caches one
    ///     executor per configuration). Pass a stable id when you rebuild models often; the
    ///     default is fresh per call of this initializer.
    ///   - authorizationHeader: `Authorization` by default; Azure uses `api-key` (with an empty
    ///     `tokenPrefix`).
    public init(name: String, url: URL, tokenProvider: @escaping @Sendable () async throws -> String,
                tokenProviderID: String = UUID().uuidString, authorizationHeader: String = "Authorization",
                tokenPrefix: String = "Bearer ", additionalHeaders: [String: String] = [:],
                supportsGuidedGeneration: Bool = true, urlSessionConfiguration: URLSessionConfiguration? = nil) {
        self.init(name: name, url: url, additionalHeaders: additionalHeaders,
                  supportsGuidedGeneration: supportsGuidedGeneration, urlSessionConfiguration: urlSessionConfiguration)
        self.tokenProvider = TokenProvider(id: tokenProviderID, headerName: authorizationHeader,
                                           prefix: tokenPrefix, token: tokenProvider)
    }

    /// `.toolCalling`, `.reasoning` and `.vision` (URL images), plus `.guidedGeneration` only
    /// when `supportsGuidedGeneration` — Apple's declaration.
    public var capabilities: LanguageModelCapabilities {
        supportsGuidedGeneration
            ? LanguageModelCapabilities([.vision, .toolCalling, .reasoning, .guidedGeneration])
            : LanguageModelCapabilities([.vision, .toolCalling, .reasoning])
    }

    /// Every behavioural field, the executor-cache key.
    public var executorConfiguration: Configuration {
        Configuration(model: self)
    }
}

extension ChatCompletionsLanguageModel: CustomStringConvertible, CustomDebugStringConvertible, CustomReflectable {
    /// A summary without header values, tokens or URL user info.
    public var description: String {
        "ChatCompletionsLanguageModel(name: \(name), url: \(Configuration.redacted(url)), headers: \(additionalHeaders.keys.sorted()), "
            + "supportsGuidedGeneration: \(supportsGuidedGeneration), credential: \(tokenProvider == nil ? "none" : "token provider"))"
    }

    /// Same as `description`.
    public var debugDescription: String { description }

    /// Reflection (`dump`, debuggers) without secrets: the configuration's redacted mirror.
    public var customMirror: Mirror { executorConfiguration.customMirror }
}
