// What the server reports about each request once it is over, for `loom serve`'s access log.
import LoomJSON

/// One finished request, reported to the server's access-log callback.
public struct HTTPAccessRecord: Sendable, Equatable {
    /// How the exchange ended.
    public enum Outcome: Sendable, Equatable {
        /// The whole response was sent.
        case completed
        /// The client went away first (hang-up seen, or a write to it failed or timed out);
        /// the handler was cancelled.
        case clientDisconnected
        /// The request timeout expired; the handler was cancelled.
        case timedOut
        /// The streaming producer threw (the body was left unterminated), or polling failed.
        case failed
        /// The request could not be parsed (answered with a 4xx/5xx and closed).
        case rejected
    }

    /// The request method ("" when the request line could not be parsed).
    public var method: String
    /// The request path ("" when the request line could not be parsed).
    public var path: String
    /// The status sent, or nil when no response head went out.
    public var status: Int?
    /// How the exchange ended.
    public var outcome: Outcome
    /// From the complete request being available to the end of the response.
    public var duration: Duration
    /// The id sent back in `X-Request-ID` (the client's, or one the server made).
    public var requestID: String
    /// What the handler noted (`HTTPRequest.notes`): empty for a request no handler saw.
    public var notes: JSONObject = JSONObject()
}
