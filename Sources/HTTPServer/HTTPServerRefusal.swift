// What the server itself refuses — before, around or instead of a handler — described without a
// body, so the application mounted on the server (through its router) decides how the refusal
// looks on the wire. The server stays protocol-neutral: an API with its own error envelope
// installs a renderer, and everything else gets a short plain-text explanation.

/// A response the server decides on its own: an unparsable request, an unknown path, a saturated
/// gate, a timeout, or a request its router's authorizer turned away.
public struct HTTPServerRefusal: Sendable, Equatable {
    /// Why the server refused.
    public enum Reason: Sendable, Equatable {
        /// The request could not be parsed or exceeds a size limit (400, 413, 431, 501, 505).
        case unparsableRequest(HTTPRequestParseError)
        /// The client did not deliver a whole request within `readTimeout` (408).
        case readTimedOut
        /// No route has the request's path (404).
        case notFound
        /// The path exists, but not for the request's method (405, with `Allow`).
        case methodNotAllowed
        /// The router's authorizer refused the request (401 or whatever status it chose).
        case unauthorized
        /// Every slot of the `parallel`/`queue` gate is taken (429, with `Retry-After`).
        case busy
        /// `maxConnections` connections are already open (503).
        case tooManyConnections
        /// The handler did not start its response within `requestTimeout` (504).
        case timedOut
        /// The server is draining before it stops (503, with `Retry-After`).
        case draining
    }

    /// The HTTP status to answer with.
    public var status: Int
    /// Why.
    public var reason: Reason
    /// A one-line explanation for the client.
    public var message: String
    /// Header fields the refusal needs to be meaningful (`Allow`, `Retry-After`,
    /// `WWW-Authenticate`); a renderer must send them.
    public var headers: HTTPHeaders

    /// Creates a refusal.
    public init(status: Int, reason: Reason, message: String, headers: HTTPHeaders = HTTPHeaders()) {
        self.status = status
        self.reason = reason
        self.message = message
        self.headers = headers
    }

    /// The refusal for a request that failed to parse: the error's own status and description.
    public init(_ error: HTTPRequestParseError) {
        self.init(status: error.status, reason: .unparsableRequest(error), message: error.description)
    }

    /// The neutral rendering: `headers`, then `message` as a `text/plain` body.
    public var plainTextResponse: HTTPResponse {
        var response = HTTPResponse(status: status, headers: headers, body: Array(message.utf8))
        response.headers.set("Content-Type", "text/plain; charset=utf-8")
        return response
    }
}

/// Decides whether a request may reach a non-public route (and learn which paths exist): nil lets
/// it through, a refusal (reason `.unauthorized`) is rendered and sent instead.
public typealias HTTPAuthorizer = @Sendable (HTTPRequest) -> HTTPServerRefusal?

/// Turns a refusal into the response the client gets (status, `refusal.headers`, a body).
public typealias HTTPRefusalRenderer = @Sendable (HTTPServerRefusal) -> HTTPResponse
