import Foundation

extension GeneratedContent {
    /// The model's output could not be parsed into the requested content or type.
    ///
    /// Thrown for invalid or truncated JSON (for example when `maximumResponseTokens` cut an
    /// object short) and for content missing a required property. `rawContent` holds the
    /// model's actual output — log it, it is the only way to see what went wrong.
    public struct ParsingError: Error, LocalizedError, CustomNSError, Sendable, CustomDebugStringConvertible {
        /// The model's output, exactly as generated.
        public var rawContent: String
        /// The error that caused the failure, if any (a JSON or decoding error).
        public var underlyingError: (any Error)?
        /// A developer-facing explanation.
        public var debugDescription: String

        /// Builds a parsing error.
        public init(rawContent: String, underlyingError: (any Error)? = nil, debugDescription: String) {
            self.rawContent = rawContent
            self.underlyingError = underlyingError
            self.debugDescription = debugDescription
        }

        /// The explanation, for `LocalizedError`.
        public var errorDescription: String? { debugDescription }

        /// `FoundationModels.GeneratedContent.ParsingError`, as Apple's bridge reports it.
        public static var errorDomain: String { "FoundationModels.GeneratedContent.ParsingError" }
        /// Always 1, as observed on Apple's platforms.
        public var errorCode: Int { 1 }
    }
}
