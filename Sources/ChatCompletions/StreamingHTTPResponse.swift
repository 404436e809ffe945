// A response whose head is known and whose body is still arriving.
import Foundation

/// An HTTP response delivered incrementally: status and headers first, then body chunks as
/// the network delivers them.
public struct StreamingHTTPResponse: Sendable {
    /// The status code.
    public let statusCode: Int
    /// Header fields with lower-cased names (HTTP names are case-insensitive).
    public let headers: [String: String]
    /// The final URL after redirects, when known.
    public let url: URL?
    /// Body chunks in arrival order. Ending iteration early, cancelling the iterating task or
    /// dropping every copy of this response cancels the transfer and closes the connection.
    public let body: AsyncThrowingStream<[UInt8], any Error>

    /// Creates a response (the client does this; tests may build one over a scripted stream).
    public init(statusCode: Int, headers: [String: String], url: URL? = nil, body: AsyncThrowingStream<[UInt8], any Error>) {
        self.statusCode = statusCode
        var lowered: [String: String] = [:]
        for (k, v) in headers { lowered[k.lowercased()] = v }
        self.headers = lowered
        self.url = url
        self.body = body
    }

    /// The value of header `name` (case-insensitive).
    public func header(_ name: String) -> String? { headers[name.lowercased()] }

    /// Whether the status is 2xx.
    public var isSuccess: Bool { (200..<300).contains(statusCode) }

    /// The body's Server-Sent Events, parsed as bytes arrive.
    public func events(maximumEventBytes: Int = 16 * 1024 * 1024) -> ServerSentEventStream<AsyncThrowingStream<[UInt8], any Error>> {
        ServerSentEventStream(body, maximumEventBytes: maximumEventBytes)
    }

    /// Reads the whole body (for non-streaming responses and error envelopes), refusing to
    /// hold more than `limit` bytes.
    public func collectBody(limit: Int = 16 * 1024 * 1024) async throws -> [UInt8] {
        var out: [UInt8] = []
        for try await chunk in body {
            guard out.count + chunk.count <= limit else { throw StreamingHTTPError.bodyTooLarge(limit: limit) }
            out.append(contentsOf: chunk)
        }
        return out
    }
}
