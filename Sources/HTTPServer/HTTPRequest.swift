// A fully received request as handlers see it: framing is already resolved, the body is complete.

/// The HTTP version from the request line.
public struct HTTPVersion: Sendable, Equatable, CustomStringConvertible {
    /// Major version (always 1 for requests this server accepts).
    public var major: Int
    /// Minor version (0 or 1).
    public var minor: Int
    /// Creates a version.
    public init(major: Int, minor: Int) { self.major = major; self.minor = minor }
    /// HTTP/1.0.
    public static let http10 = HTTPVersion(major: 1, minor: 0)
    /// HTTP/1.1.
    public static let http11 = HTTPVersion(major: 1, minor: 1)
    /// `HTTP/1.1` form.
    public var description: String { "HTTP/\(major).\(minor)" }
}

/// A complete HTTP request: request line, headers and de-framed body.
public struct HTTPRequest: Sendable {
    /// The method token exactly as sent (methods are case-sensitive: `GET`, `POST`, …).
    public var method: String
    /// The raw request-target, e.g. `/v1/models?limit=2`.
    public var target: String
    /// The target's path, before any `?` (still percent-encoded as sent).
    public var path: String
    /// The target's query after `?`, or nil when there is none.
    public var query: String?
    /// The request's HTTP version.
    public var version: HTTPVersion
    /// The header fields in arrival order.
    public var headers: HTTPHeaders
    /// The body bytes (Content-Length or de-chunked); empty when there is no body.
    public var body: [UInt8]
    /// When the whole request had arrived: the origin of its latencies, so time spent waiting
    /// for a slot of the server's concurrency gate counts.
    public var receivedAt: ContinuousClock.Instant
    /// Facts the handler notes for the access log (tokens, cache hits, outcome).
    public var notes = HTTPRequestNotes()

    /// Creates a request (used by the parser and by tests that call handlers directly).
    public init(method: String, target: String, version: HTTPVersion = .http11, headers: HTTPHeaders = HTTPHeaders(), body: [UInt8] = [],
                receivedAt: ContinuousClock.Instant = .now) {
        self.method = method
        self.target = target
        if let q = target.firstIndex(of: "?") {
            path = String(target[..<q])
            query = String(target[target.index(after: q)...])
        } else {
            path = target
            query = nil
        }
        self.version = version
        self.headers = headers
        self.body = body
        self.receivedAt = receivedAt
    }

    /// Whether the client allows the connection to stay open after this exchange
    /// (HTTP/1.1 unless `Connection: close`; HTTP/1.0 only with `Connection: keep-alive`).
    public var wantsKeepAlive: Bool {
        if headers.hasToken("close", in: "Connection") { return false }
        if version == .http10 { return headers.hasToken("keep-alive", in: "Connection") }
        return true
    }

    /// The body decoded as UTF-8 (invalid sequences replaced).
    public var bodyText: String { String(decoding: body, as: UTF8.self) }

    /// The request's id (`X-Request-ID`): the client's when well-formed, else one the server
    /// made; the server sets it before routing, so every handler sees one. Empty on a request
    /// that did not come through a server.
    public var requestID: String { headers[HTTPRequestID.headerName] ?? "" }
}
