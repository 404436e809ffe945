import Foundation

extension LanguageModelSession {
    /// The 26.x omnibus error, kept so catch ladders written for it still compile. Loom never
    /// throws it: the 27.0 types (`LanguageModelError`, `LanguageModelSession.Error`,
    /// `GeneratedContent.ParsingError`) replace every case.
    @available(*, deprecated, message: "Use LanguageModelError, LanguageModelSession.Error or GeneratedContent.ParsingError")
    public enum GenerationError: Swift.Error, LocalizedError, Sendable {
        /// The only payload of the 26.x cases: a developer-facing description.
        public struct Context: Sendable {
            /// A developer-facing explanation.
            public let debugDescription: String
            /// Builds a context.
            public init(debugDescription: String) { self.debugDescription = debugDescription }
        }

        /// The 26.x refusal payload.
        public struct Refusal: Sendable {
            /// The transcript entries of the refused request.
            public let transcriptEntries: [Transcript.Entry]
            /// Builds a refusal.
            public init(transcriptEntries: [Transcript.Entry]) { self.transcriptEntries = transcriptEntries }
        }

        /// Use `LanguageModelError.contextSizeExceeded(_:)`.
        case exceededContextWindowSize(Context)
        /// Apple's on-device assets were unavailable (no Linux equivalent).
        case assetsUnavailable(Context)
        /// Use `LanguageModelError.guardrailViolation(_:)`.
        case guardrailViolation(Context)
        /// Use `LanguageModelError.unsupportedGenerationGuide(_:)`.
        case unsupportedGuide(Context)
        /// Use `LanguageModelError.unsupportedLanguageOrLocale(_:)`.
        case unsupportedLanguageOrLocale(Context)
        /// Use `GeneratedContent.ParsingError`.
        case decodingFailure(Context)
        /// Use `LanguageModelError.rateLimited(_:)`.
        case rateLimited(Context)
        /// Use `LanguageModelSession.Error.concurrentRequests`.
        case concurrentRequests(Context)
        /// Use `LanguageModelError.refusal(_:)`.
        case refusal(Refusal, Context)

        /// The context's description.
        public var errorDescription: String? {
            switch self {
            case .exceededContextWindowSize(let c), .assetsUnavailable(let c), .guardrailViolation(let c),
                 .unsupportedGuide(let c), .unsupportedLanguageOrLocale(let c), .decodingFailure(let c),
                 .rateLimited(let c), .concurrentRequests(let c), .refusal(_, let c):
                return c.debugDescription
            }
        }
    }
}
