// The HTTP server's own refusals (parse errors, unknown paths, the busy gate, timeouts, a missing
// key) in the OpenAI envelope, so a client sees one error shape whether the server or the service
// turned it away. The `type`/`code` pairs are what OpenAI-compatible clients switch on.
import HTTPServer

extension ChatCompletionsServiceError {
    /// The envelope fields for a refusal the HTTP server made on the service's behalf.
    public init(refusal: HTTPServerRefusal) {
        let (type, code) = Self.typeAndCode(of: refusal.reason)
        self.init(status: refusal.status, message: refusal.message, type: type, code: code)
    }

    /// The refusal as the client receives it: `refusal.headers` first, then the JSON envelope.
    public static func response(for refusal: HTTPServerRefusal) -> HTTPResponse {
        .json(ChatCompletionsServiceError(refusal: refusal).envelope, status: refusal.status, headers: refusal.headers)
    }

    private static func typeAndCode(of reason: HTTPServerRefusal.Reason) -> (type: String, code: String) {
        switch reason {
        case .unparsableRequest(let error):
            switch error {
            case .bodyTooLarge: ("invalid_request_error", "request_too_large")
            case .headersTooLarge: ("invalid_request_error", "headers_too_large")
            case .unsupportedTransferEncoding: ("invalid_request_error", "unsupported_transfer_encoding")
            case .unsupportedVersion: ("invalid_request_error", "unsupported_http_version")
            case .malformed: ("invalid_request_error", "malformed_request")
            }
        case .readTimedOut: ("invalid_request_error", "request_timeout")
        case .notFound: ("invalid_request_error", "not_found")
        case .methodNotAllowed: ("invalid_request_error", "method_not_allowed")
        case .unauthorized: ("invalid_request_error", "invalid_api_key")
        case .busy: ("rate_limit_error", "rate_limit_exceeded")
        case .tooManyConnections: ("server_error", "too_many_connections")
        case .timedOut: ("timeout_error", "timeout")
        case .draining: ("unavailable_error", "server_draining")
        }
    }
}
