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
    /// The server answered with a non-success status that maps to no LanguageModelError case
    /// (upstream's shape). `data` is the body, scrubbed of credentials and truncated to 64 KiB;
    /// `envelope` parses it.
    case httpError(statusCode: Int, data: Data)
    /// The response could not be understood (not JSON, wrong shape, a tool call without a name).
    case malformedResponse(String)
    /// A streamed event's `data:` bytes were not UTF-8 (upstream's case, spelled as upstream
    /// spells it), so its payload could not be read.
    case invalidStreamData
    /// The connection failed (refused, reset, DNS, TLS…).
    case transport(StreamingHTTPError)

    /// A one-line explanation.
    public var description: String {
        switch self {
        case .invalidRequest(let why): "invalid Chat Completions request: \(why)"
        case .invalidEndpoint(let why): "invalid Chat Completions endpoint: \(why)"
        case .credentialUnavailable(let why): "the token provider failed: \(why)"
        case .httpError(let status, let data):
            "HTTP \(status) from the Chat Completions server: "
                + (ChatCompletionsErrorEnvelope(body: [UInt8](data))?.message ?? (data.isEmpty ? "(empty body)" : String(decoding: data, as: UTF8.self)))
        case .malformedResponse(let why): "malformed Chat Completions response: \(why)"
        case .invalidStreamData: "the Chat Completions stream carried data that is not UTF-8 text"
        case .transport(let error): "Chat Completions transport failure: \(error.description)"
        }
    }

    /// Same as `description`.
    public var errorDescription: String? { description }

    /// The parsed error body of an `httpError`, when it has a recognisable shape.
    public var envelope: ChatCompletionsErrorEnvelope? {
        guard case .httpError(_, let data) = self else { return nil }
        return ChatCompletionsErrorEnvelope(body: [UInt8](data))
    }
}
