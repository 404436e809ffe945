// Apple's `ChatCompletionsLanguageModel.APIError` and `RequestError` names, so catch ladders
// written against the upstream package compile here (seed-003 §2.7). Failures that have a
// LanguageModelError case (429, context length, content filter, timeouts) are thrown as
// LanguageModelError instead, so the portable arm of such a ladder now sees them.
import Foundation

extension ChatCompletionsLanguageModel {
    /// Upstream's name for this backend's request and HTTP failures.
    public typealias RequestError = ChatCompletionsError

    /// An error object the server sent inside the event stream (`data: {"error": {…}}`) that
    /// maps to no LanguageModelError case. Messages are scrubbed of credentials.
    public struct APIError: Error, LocalizedError, Sendable, Equatable, CustomStringConvertible {
        /// The server's message.
        public var message: String
        /// The error `type`, when given.
        public var type: String?
        /// The offending parameter, when given.
        public var param: String?
        /// The error `code` as text, when given.
        public var code: String?

        /// Upstream's initializer.
        public init(message: String, type: String? = nil, param: String? = nil, code: String? = nil) {
            self.message = message
            self.type = type
            self.param = param
            self.code = code
        }

        /// The fields of a parsed envelope.
        public init(_ envelope: ChatCompletionsErrorEnvelope) {
            self.init(message: envelope.message, type: envelope.type, param: envelope.param, code: envelope.code)
        }

        /// A one-line explanation.
        public var description: String {
            "the Chat Completions server reported an error: \(message)" + (type.map { " (type \($0))" } ?? "") + (code.map { " (code \($0))" } ?? "")
        }

        /// Same as `description`.
        public var errorDescription: String? { description }
    }
}
