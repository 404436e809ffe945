// Failures of the Chat Completions backend that LanguageModelError has no case for. Failures
// it does have a case for (429, context length, content filter, timeouts) are thrown as
// LanguageModelError instead; see ChatCompletionsErrorMapping.
import Foundation

/// A Chat Completions request that could not be sent or whose response could not be used.
/// Descriptions never include credentials (header values and tokens are scrubbed).
public enum ChatCompletionsError: Error, Sendable, LocalizedError, CustomStringConvertible {
    /// The request asks for something this server protocol cannot express (e.g. top-k with
    /// the top-k extension field disabled); nothing was sent.
    case invalidRequest(String)
    /// The base URL or override is not a usable http(s) endpoint.
    case invalidEndpoint(String)
    /// The token provider threw; carries the error's type and description (the token itself
    /// is never involved).
    case credentialUnavailable(String)
    /// The server answered with a non-success status that maps to no LanguageModelError case.
    /// `envelope` is the parsed error body when it had one; `body` the (scrubbed, truncated) text.
    case httpError(statusCode: Int, envelope: ChatCompletionsErrorEnvelope?, body: String)
    /// The server reported an error inside the event stream.
    case serverError(ChatCompletionsErrorEnvelope)
    /// The response could not be understood (not JSON, wrong shape, a tool call without a name).
    case malformedResponse(String)
    /// The connection failed (refused, reset, DNS, TLS…).
    case transport(StreamingHTTPError)

    /// A one-line explanation.
    public var description: String {
        switch self {
        case .invalidRequest(let why): "invalid Chat Completions request: \(why)"
        case .invalidEndpoint(let why): "invalid Chat Completions endpoint: \(why)"
        case .credentialUnavailable(let why): "the token provider failed: \(why)"
        case .httpError(let status, let envelope, let body):
            "HTTP \(status) from the Chat Completions server: \(envelope?.message ?? (body.isEmpty ? "(empty body)" : body))"
        case .serverError(let envelope): "the Chat Completions server reported an error: \(envelope.message)"
        case .malformedResponse(let why): "malformed Chat Completions response: \(why)"
        case .transport(let error): "Chat Completions transport failure: \(error.description)"
        }
    }

    /// Same as `description`.
    public var errorDescription: String? { description }
}
