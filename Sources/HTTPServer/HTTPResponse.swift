// What a handler returns: status, headers and either a complete body or a producer that streams
// the body (chunked transfer coding) through an HTTPStreamWriter.
import LoomJSON

/// A request handler. It runs as its own Task (cancelled when the client disconnects or the
/// request times out) and must not block its thread: blocking work belongs off the cooperative pool.
public typealias HTTPHandler = @Sendable (HTTPRequest) async -> HTTPResponse

/// A streaming body producer. Each `writer.write` suspends until the bytes reached the socket,
/// so a slow client slows the producer down instead of growing a buffer. Throwing (or being
/// cancelled) ends the response without the final chunk, which clients see as a truncated body.
/// An API whose clients expect an in-band error event reports a mid-stream failure by sending
/// that event and returning normally.
public typealias HTTPBodyProducer = @Sendable (HTTPStreamWriter) async throws -> Void

/// An HTTP response: status, headers, and a full or streamed body.
public struct HTTPResponse: Sendable {
    /// How the body is produced.
    public enum Body: Sendable {
        /// The whole body, sent with `Content-Length`.
        case full([UInt8])
        /// A body produced incrementally, sent with `Transfer-Encoding: chunked` (or, to an
        /// HTTP/1.0 client, delimited by closing the connection).
        case stream(HTTPBodyProducer)
    }

    /// The status code (100…599).
    public var status: Int
    /// Header fields to send. The server owns framing: `Content-Length`, `Transfer-Encoding`
    /// and `Connection` set here are replaced.
    public var headers: HTTPHeaders
    /// The body.
    public var body: Body

    /// Creates a response with a complete body.
    public init(status: Int = 200, headers: HTTPHeaders = HTTPHeaders(), body: [UInt8] = []) {
        self.status = status
        self.headers = headers
        self.body = .full(body)
    }

    /// Creates a response whose body is produced incrementally by `producer`.
    public init(status: Int = 200, headers: HTTPHeaders = HTTPHeaders(), stream producer: @escaping HTTPBodyProducer) {
        self.status = status
        self.headers = headers
        self.body = .stream(producer)
    }

    /// A `text/plain; charset=utf-8` response.
    public static func text(_ text: String, status: Int = 200) -> HTTPResponse {
        HTTPResponse(status: status, headers: ["Content-Type": "text/plain; charset=utf-8"], body: Array(text.utf8))
    }

    /// An `application/json` response with the compact serialization of `value`.
    public static func json(_ value: JSONValue, status: Int = 200, headers: HTTPHeaders = HTTPHeaders()) -> HTTPResponse {
        var h = headers
        h.set("Content-Type", "application/json")
        return HTTPResponse(status: status, headers: h, body: Array(value.serialized().utf8))
    }

    /// A Server-Sent Events response (`text/event-stream`, no caching, no proxy buffering);
    /// `producer` emits events with `writer.sendEvent(_:)`.
    public static func eventStream(status: Int = 200, headers: HTTPHeaders = HTTPHeaders(), _ producer: @escaping HTTPBodyProducer) -> HTTPResponse {
        var h = headers
        h.set("Content-Type", "text/event-stream; charset=utf-8")
        h.set("Cache-Control", "no-cache")
        h.set("X-Accel-Buffering", "no")
        return HTTPResponse(status: status, headers: h, stream: producer)
    }

    /// The reason phrase for `status` (informational only; clients ignore it).
    static func reasonPhrase(_ status: Int) -> String {
        switch status {
        case 100: "Continue"
        case 200: "OK"
        case 201: "Created"
        case 202: "Accepted"
        case 204: "No Content"
        case 400: "Bad Request"
        case 401: "Unauthorized"
        case 403: "Forbidden"
        case 404: "Not Found"
        case 405: "Method Not Allowed"
        case 408: "Request Timeout"
        case 409: "Conflict"
        case 411: "Length Required"
        case 413: "Content Too Large"
        case 415: "Unsupported Media Type"
        case 422: "Unprocessable Content"
        case 429: "Too Many Requests"
        case 431: "Request Header Fields Too Large"
        case 500: "Internal Server Error"
        case 501: "Not Implemented"
        case 503: "Service Unavailable"
        case 504: "Gateway Timeout"
        case 505: "HTTP Version Not Supported"
        default: "Status \(status)"
        }
    }
}
