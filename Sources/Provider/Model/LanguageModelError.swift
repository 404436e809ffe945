import Foundation

/// The model could not or would not respond. Thrown by executors (and by the session for
/// undeclared capabilities). Non-frozen: switch with `@unknown default`.
///
/// Every case carries a payload struct with `debugDescription` (developer-facing, including
/// any raw provider message) and a free-form `metadata` bag.
public enum LanguageModelError: Error, LocalizedError, CustomDebugStringConvertible, CustomNSError, Sendable {
    /// The transcript exceeds the model's context window; trim entries and retry.
    case contextSizeExceeded(ContextSizeExceeded)
    /// The provider throttled requests; retry after `resetDate` if given.
    case rateLimited(RateLimited)
    /// A safety system flagged the prompt or the response.
    case guardrailViolation(GuardrailViolation)
    /// The model declined to answer for non-safety reasons.
    case refusal(Refusal)
    /// A capability the model did not declare was requested.
    case unsupportedCapability(UnsupportedCapability)
    /// The transcript holds content the model cannot process.
    case unsupportedTranscriptContent(UnsupportedTranscriptContent)
    /// The generation schema uses a guide the model cannot enforce.
    case unsupportedGenerationGuide(UnsupportedGenerationGuide)
    /// The prompt's language is not supported.
    case unsupportedLanguageOrLocale(UnsupportedLanguageOrLocale)
    /// The request did not complete within the configured time.
    case timeout(Timeout)

    /// Payload of `.contextSizeExceeded`.
    public struct ContextSizeExceeded: Sendable {
        /// The model's context window, in tokens.
        public var contextSize: Int
        /// The tokens the request needed.
        public var tokenCount: Int
        /// Developer-facing detail.
        public var debugDescription: String
        /// Extra context (provider codes, request ids).
        public var metadata: [String: any Sendable]
        /// Builds the payload.
        public init(contextSize: Int, tokenCount: Int, debugDescription: String, metadata: [String: any Sendable] = [:]) {
            self.contextSize = contextSize
            self.tokenCount = tokenCount
            self.debugDescription = debugDescription
            self.metadata = metadata
        }
    }

    /// Payload of `.rateLimited`.
    public struct RateLimited: Sendable {
        /// When retries will succeed, if the provider said.
        public var resetDate: Date?
        /// Developer-facing detail.
        public var debugDescription: String
        /// Extra context.
        public var metadata: [String: any Sendable]
        /// Builds the payload.
        public init(resetDate: Date? = nil, debugDescription: String, metadata: [String: any Sendable] = [:]) {
            self.resetDate = resetDate
            self.debugDescription = debugDescription
            self.metadata = metadata
        }
    }

    /// Payload of `.guardrailViolation`.
    public struct GuardrailViolation: Sendable {
        /// Developer-facing detail.
        public var debugDescription: String
        /// Extra context.
        public var metadata: [String: any Sendable]
        /// Builds the payload.
        public init(debugDescription: String, metadata: [String: any Sendable] = [:]) {
            self.debugDescription = debugDescription
            self.metadata = metadata
        }
    }

    /// Payload of `.refusal`.
    public struct Refusal: Sendable {
        let explanationText: String
        /// Developer-facing detail.
        public var debugDescription: String
        /// Extra context.
        public var metadata: [String: any Sendable]
        /// Builds the payload; `explanation` is the model's reason, shown to users.
        public init(explanation: String, debugDescription: String, metadata: [String: any Sendable] = [:]) {
            explanationText = explanation
            self.debugDescription = debugDescription
            self.metadata = metadata
        }

        /// The model's explanation as a response (its text is in `.content`).
        public var explanation: LanguageModelSession.Response<String> {
            get async throws {
                LanguageModelSession.Response(content: explanationText,
                                              rawContent: GeneratedContent(jsonValue: .string(explanationText)),
                                              transcriptEntries: [])
            }
        }

        /// The explanation as a stream of snapshots.
        public var explanationStream: LanguageModelSession.ResponseStream<String> {
            LanguageModelSession.ResponseStream(fixed: explanationText)
        }
    }

    /// Payload of `.unsupportedCapability`.
    public struct UnsupportedCapability: Sendable {
        /// The capability that was requested but not declared.
        public var capability: LanguageModelCapabilities.Capability
        /// Developer-facing detail.
        public var debugDescription: String
        /// Extra context.
        public var metadata: [String: any Sendable]
        /// Builds the payload.
        public init(capability: LanguageModelCapabilities.Capability, debugDescription: String,
                    metadata: [String: any Sendable] = [:]) {
            self.capability = capability
            self.debugDescription = debugDescription
            self.metadata = metadata
        }
    }

    /// Payload of `.unsupportedTranscriptContent`.
    public struct UnsupportedTranscriptContent: Sendable {
        /// The entries the model cannot process.
        public var unsupportedContent: [Transcript.Entry]
        /// Developer-facing detail.
        public var debugDescription: String
        /// Extra context.
        public var metadata: [String: any Sendable]
        /// Builds the payload.
        public init(unsupportedContent: [Transcript.Entry], debugDescription: String, metadata: [String: any Sendable] = [:]) {
            self.unsupportedContent = unsupportedContent
            self.debugDescription = debugDescription
            self.metadata = metadata
        }
    }

    /// Payload of `.unsupportedGenerationGuide`.
    public struct UnsupportedGenerationGuide: Sendable {
        /// The schema using the guide, if named.
        public var schemaName: String?
        /// Developer-facing detail.
        public var debugDescription: String
        /// Extra context.
        public var metadata: [String: any Sendable]
        /// Builds the payload.
        public init(schemaName: String? = nil, debugDescription: String, metadata: [String: any Sendable] = [:]) {
            self.schemaName = schemaName
            self.debugDescription = debugDescription
            self.metadata = metadata
        }
    }

    /// Payload of `.unsupportedLanguageOrLocale`.
    public struct UnsupportedLanguageOrLocale: Sendable {
        /// The unsupported language.
        public var languageCode: Locale.LanguageCode
        /// Developer-facing detail.
        public var debugDescription: String
        /// Extra context.
        public var metadata: [String: any Sendable]
        /// Builds the payload.
        public init(languageCode: Locale.LanguageCode, debugDescription: String, metadata: [String: any Sendable] = [:]) {
            self.languageCode = languageCode
            self.debugDescription = debugDescription
            self.metadata = metadata
        }
    }

    /// Payload of `.timeout`.
    public struct Timeout: Sendable {
        /// Developer-facing detail.
        public var debugDescription: String
        /// Extra context.
        public var metadata: [String: any Sendable]
        /// Builds the payload.
        public init(debugDescription: String, metadata: [String: any Sendable] = [:]) {
            self.debugDescription = debugDescription
            self.metadata = metadata
        }
    }

    /// Apple's per-case description.
    public var errorDescription: String? {
        switch self {
        case .contextSizeExceeded: return "The session's transcript exceeded the model's context size."
        case .rateLimited: return "The session has been rate limited."
        case .guardrailViolation:
            return "The model's safety guardrails were triggered by content in a prompt or the response generated by the model."
        case .refusal: return "The model refused to answer."
        case .unsupportedCapability: return "The model being used doesn't support a particular feature."
        case .unsupportedTranscriptContent: return "The prompt contains content that the model cannot process."
        case .unsupportedGenerationGuide: return "An unsupported generation guide was used"
        case .unsupportedLanguageOrLocale:
            return "The model was prompted to respond in a language that it does not support."
        case .timeout: return "The request timed out before the model could produce a response."
        }
    }

    /// The payload's developer-facing detail.
    public var debugDescription: String {
        switch self {
        case .contextSizeExceeded(let p): return "contextSizeExceeded(\(p.tokenCount)/\(p.contextSize)): \(p.debugDescription)"
        case .rateLimited(let p): return "rateLimited: \(p.debugDescription)"
        case .guardrailViolation(let p): return "guardrailViolation: \(p.debugDescription)"
        case .refusal(let p): return "refusal: \(p.debugDescription)"
        case .unsupportedCapability(let p): return "unsupportedCapability(\(p.capability)): \(p.debugDescription)"
        case .unsupportedTranscriptContent(let p): return "unsupportedTranscriptContent: \(p.debugDescription)"
        case .unsupportedGenerationGuide(let p): return "unsupportedGenerationGuide(\(p.schemaName ?? "-")): \(p.debugDescription)"
        case .unsupportedLanguageOrLocale(let p): return "unsupportedLanguageOrLocale(\(p.languageCode.identifier)): \(p.debugDescription)"
        case .timeout(let p): return "timeout: \(p.debugDescription)"
        }
    }

    /// `FoundationModels.LanguageModelError`, as Apple's bridge reports it.
    public static var errorDomain: String { "FoundationModels.LanguageModelError" }

    /// The case's zero-based position (matches Apple's observed codes 0, 2 and 6).
    public var errorCode: Int {
        switch self {
        case .contextSizeExceeded: return 0
        case .rateLimited: return 1
        case .guardrailViolation: return 2
        case .refusal: return 3
        case .unsupportedCapability: return 4
        case .unsupportedTranscriptContent: return 5
        case .unsupportedGenerationGuide: return 6
        case .unsupportedLanguageOrLocale: return 7
        case .timeout: return 8
        }
    }
}
