/// How a generation request ended: the `outcome` label of `loom_requests_total`, a fixed set so
/// the counter's cardinality is five series.
public enum RequestOutcome: String, Sendable, CaseIterable {
    /// A complete answer (any finish reason: end of text, length, stop sequence, schema complete).
    case ok
    /// The caller went away or cancelled the task.
    case cancelled
    /// The request's deadline passed.
    case timeout
    /// The request cannot be served as asked (an HTTP 4xx: too long for the context, an option or
    /// schema the model cannot honour, a malformed body).
    case clientError = "client_error"
    /// The server or the model failed (an HTTP 5xx).
    case serverError = "server_error"

    /// The outcome an HTTP status stands for: 2xx/3xx ok, 499 (client closed) cancelled,
    /// 408/504 timeout, other 4xx client error, 5xx server error.
    public init(httpStatus status: Int) {
        switch status {
        case ..<400: self = .ok
        case 499: self = .cancelled
        case 408, 504: self = .timeout
        case ..<500: self = .clientError
        default: self = .serverError
        }
    }
}
