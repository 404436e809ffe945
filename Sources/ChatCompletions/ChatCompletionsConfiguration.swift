// The executor-cache key and the knobs it is built from. Upstream's equality covered only
// model, URL and headers, so two models differing in timeouts silently shared an executor
// (seed-003 §2.8); here every behavioural field takes part, and secrets never print.
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

extension ChatCompletionsLanguageModel {
    /// The body field that carries `GenerationOptions.maximumResponseTokens`.
    public enum MaximumTokensField: String, Sendable, Hashable, CaseIterable {
        /// `max_completion_tokens` (OpenAI's current name; vLLM and llama.cpp accept it).
        case maxCompletionTokens = "max_completion_tokens"
        /// `max_tokens` (the older name some servers still require).
        case maxTokens = "max_tokens"
    }

    /// Names of widely supported non-OpenAI body fields. A nil name means the server has no
    /// such field, and requests that need it are refused with `ChatCompletionsError.invalidRequest`.
    public struct ExtensionFields: Sendable, Hashable {
        /// The top-k field (`top_k` in vLLM, llama.cpp, Ollama's OpenAI layer); nil refuses
        /// `SamplingMode.random(top:)`.
        public var topK: String?
        /// The seed field (`seed`); nil refuses seeded sampling modes.
        public var seed: String?

        /// Both fields under their common names by default.
        public init(topK: String? = "top_k", seed: String? = "seed") {
            self.topK = topK
            self.seed = seed
        }
    }

    /// What happens to transcript reasoning entries when the conversation is sent back.
    ///
    /// Servers disagree: DeepSeek rejects `reasoning_content` in input messages while some
    /// thinking-with-tools setups need it, and most chat templates strip earlier reasoning
    /// anyway. The default omits it; `.reasoningContent` attaches the reasoning preceding an
    /// assistant message to that message as `reasoning_content` (trailing reasoning with no
    /// following assistant entry becomes an assistant message of its own).
    public enum ReasoningHistory: String, Sendable, Hashable {
        /// Reasoning entries are not sent.
        case omitted
        /// Reasoning is sent as the following assistant message's `reasoning_content`.
        case reasoningContent
    }

    /// Transport time limits. Fractions are rounded up to whole seconds (the Linux transport
    /// works in whole seconds, and would turn 0.5 s into an immediate timeout).
    public struct Timeouts: Sendable, Hashable {
        /// The longest wait for the next bytes (on Linux the wait between bytes, so long
        /// streams are not cut off), in seconds.
        public var request: TimeInterval
        /// The longest a whole request may take, in seconds.
        public var resource: TimeInterval

        /// Limits in seconds.
        public init(request: TimeInterval, resource: TimeInterval) {
            self.request = request
            self.resource = resource
        }
    }

    /// A credential source called once per HTTP request; identified by `id`, never by its token.
    struct TokenProvider: Sendable {
        let id: String
        let headerName: String
        let prefix: String
        let token: @Sendable () async throws -> String
    }

    /// Everything the executor is built from. Equal configurations are interchangeable: the
    /// equality covers the model id, resolved endpoint, headers, guided-generation promise,
    /// credential identity (not the token), body-field names, reasoning policy, request-id
    /// header, usage option, timeouts and the identity of a supplied `URLSessionConfiguration`.
    ///
    /// `description`, `debugDescription` and reflection show header names only, never values.
    public struct Configuration: Hashable, Sendable, CustomStringConvertible, CustomDebugStringConvertible, CustomReflectable {
        /// The wire model id.
        public let modelName: String
        /// The base URL the model was given.
        public let url: URL
        /// The explicit endpoint override, if any.
        public let endpointOverride: URL?
        /// Azure's `api-version`, if any.
        public let apiVersion: String?
        /// Whether the server was declared to enforce schemas strictly.
        public let supportsGuidedGeneration: Bool
        /// The body field for the response-token limit.
        public let maximumTokensField: MaximumTokensField
        /// Extension field names.
        public let extensionFields: ExtensionFields
        /// The reasoning-history policy.
        public let reasoningHistory: ReasoningHistory
        /// The request-id header name.
        public let requestIDHeaderName: String
        /// Whether usage is requested at the end of the stream.
        public let includeUsageInStream: Bool
        /// Transport time limits.
        public let timeouts: Timeouts
        /// The token provider's identity, when the model was built with one.
        public let tokenProviderID: String?

        let additionalHeaders: [String: String]
        let sessionConfiguration: SessionConfigurationBox?
        let tokenProvider: TokenProvider?

        init(model: ChatCompletionsLanguageModel) {
            modelName = model.name
            url = model.url
            endpointOverride = model.endpointOverride
            apiVersion = model.apiVersion
            supportsGuidedGeneration = model.supportsGuidedGeneration
            maximumTokensField = model.maximumTokensField
            extensionFields = model.extensionFields
            reasoningHistory = model.reasoningHistory
            requestIDHeaderName = model.requestIDHeaderName
            includeUsageInStream = model.includeUsageInStream
            timeouts = model.timeouts
            tokenProviderID = model.tokenProvider.map { "\($0.id)|\($0.headerName)|\($0.prefix)" }
            additionalHeaders = model.additionalHeaders
            sessionConfiguration = model.sessionConfiguration
            tokenProvider = model.tokenProvider
        }

        /// The names (not values) of the additional headers, sorted.
        public var additionalHeaderNames: [String] { additionalHeaders.keys.sorted() }

        /// Equal when every behavioural field is equal (header values compared, never shown).
        public static func == (a: Configuration, b: Configuration) -> Bool {
            a.modelName == b.modelName && a.url == b.url && a.endpointOverride == b.endpointOverride
                && a.apiVersion == b.apiVersion && a.supportsGuidedGeneration == b.supportsGuidedGeneration
                && a.maximumTokensField == b.maximumTokensField && a.extensionFields == b.extensionFields
                && a.reasoningHistory == b.reasoningHistory && a.requestIDHeaderName == b.requestIDHeaderName
                && a.includeUsageInStream == b.includeUsageInStream && a.timeouts == b.timeouts
                && a.tokenProviderID == b.tokenProviderID && a.additionalHeaders == b.additionalHeaders
                && a.sessionConfiguration.map(ObjectIdentifier.init) == b.sessionConfiguration.map(ObjectIdentifier.init)
        }

        /// Hashes the same fields `==` compares.
        public func hash(into hasher: inout Hasher) {
            hasher.combine(modelName)
            hasher.combine(url)
            hasher.combine(endpointOverride)
            hasher.combine(apiVersion)
            hasher.combine(supportsGuidedGeneration)
            hasher.combine(maximumTokensField)
            hasher.combine(extensionFields)
            hasher.combine(reasoningHistory)
            hasher.combine(requestIDHeaderName)
            hasher.combine(includeUsageInStream)
            hasher.combine(timeouts)
            hasher.combine(tokenProviderID)
            hasher.combine(additionalHeaders)
            hasher.combine(sessionConfiguration.map(ObjectIdentifier.init))
        }

        /// A one-line summary without secrets.
        public var description: String {
            "ChatCompletionsLanguageModel.Configuration(model: \(modelName), url: \(Self.redacted(url)), headers: \(additionalHeaderNames), "
                + "guided: \(supportsGuidedGeneration), timeouts: \(timeouts.request)s/\(timeouts.resource)s, "
                + "credential: \(tokenProvider == nil ? "none" : "token provider"))"
        }

        /// Same as `description`.
        public var debugDescription: String { description }

        /// `url` without user info (`https://user:password@host` must not print).
        static func redacted(_ url: URL) -> String {
            guard var c = URLComponents(url: url, resolvingAgainstBaseURL: true), c.user != nil || c.password != nil else {
                return url.absoluteString
            }
            c.user = nil
            c.password = nil
            return (c.url?.absoluteString ?? "<url>") + " (credentials redacted)"
        }

        /// Reflection without header values or the token provider.
        public var customMirror: Mirror {
            Mirror(self, children: [
                "modelName": modelName, "url": Self.redacted(url), "endpointOverride": endpointOverride.map(Self.redacted) as Any,
                "apiVersion": apiVersion as Any, "supportsGuidedGeneration": supportsGuidedGeneration,
                "additionalHeaderNames": additionalHeaderNames, "timeouts": timeouts,
                "tokenProviderID": tokenProviderID as Any,
            ])
        }
    }
}

/// A private copy of a caller's URLSessionConfiguration, compared by identity.
final class SessionConfigurationBox: @unchecked Sendable {
    // @unchecked: the configuration is a private copy taken at init and never mutated; the
    // executor copies it again before applying timeouts.
    let configuration: URLSessionConfiguration

    init(_ configuration: URLSessionConfiguration) {
        self.configuration = (configuration.copy() as? URLSessionConfiguration) ?? configuration
    }
}
