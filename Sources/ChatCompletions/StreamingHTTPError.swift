// Transport failures of StreamingHTTPClient, typed so the model layer can map them
// (timeouts → LanguageModelError.timeout, …) without inspecting URLError codes itself.

/// A failure to obtain or read an HTTP response.
public enum StreamingHTTPError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The URL's scheme is not http/https or it has no host.
    case unsupportedURL(String)
    /// The response was not an HTTP response (never force-cast: reported instead).
    case notHTTPResponse
    /// The request or the wait for further bytes timed out.
    case timedOut
    /// The request was cancelled (task cancellation or the body stream was dropped).
    case cancelled
    /// The body exceeded the caller's limit while being collected.
    case bodyTooLarge(limit: Int)
    /// Any other transport failure (DNS, refused connection, TLS, reset…), with the system's
    /// error code and description.
    case transport(code: Int, description: String)

    /// A one-line explanation (never includes credentials or request bodies).
    public var description: String {
        switch self {
        case .unsupportedURL(let u): "unsupported URL '\(u)' (need http or https with a host)"
        case .notHTTPResponse: "the server's response was not an HTTP response"
        case .timedOut: "the request timed out"
        case .cancelled: "the request was cancelled"
        case .bodyTooLarge(let limit): "response body larger than \(limit) bytes"
        case .transport(let code, let text): "transport error \(code): \(text)"
        }
    }
}
