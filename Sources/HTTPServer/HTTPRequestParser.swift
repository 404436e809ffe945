// Incremental HTTP/1.1 request parser (RFC 9112): bytes go in as recv(2) delivers them, complete
// requests come out. It never trusts the peer: every size is bounded before memory is committed,
// and every framing ambiguity that enables request smuggling is a 400.

/// Size limits the parser enforces while bytes arrive.
public struct HTTPRequestLimits: Sendable, Equatable {
    /// Maximum bytes of request line plus header fields (and of chunked trailers) → 431.
    public var maxHeaderBytes: Int
    /// Maximum number of header fields → 431.
    public var maxHeaderCount: Int
    /// Maximum body bytes after de-chunking → 413.
    public var maxBodyBytes: Int

    /// Creates limits; defaults suit a JSON API (32 KiB of headers, 100 fields, 8 MiB body).
    public init(maxHeaderBytes: Int = 32 * 1024, maxHeaderCount: Int = 100, maxBodyBytes: Int = 8 * 1024 * 1024) {
        self.maxHeaderBytes = maxHeaderBytes
        self.maxHeaderCount = maxHeaderCount
        self.maxBodyBytes = maxBodyBytes
    }
}

/// Why a request could not be parsed; each maps to the status the server answers with.
public enum HTTPRequestParseError: Error, Sendable, Equatable, CustomStringConvertible {
    /// Syntax the grammar does not allow (400).
    case malformed(String)
    /// Request line and headers exceed `maxHeaderBytes` or `maxHeaderCount` (431).
    case headersTooLarge
    /// The declared or accumulated body exceeds `maxBodyBytes` (413).
    case bodyTooLarge
    /// A transfer coding other than `chunked` (501).
    case unsupportedTransferEncoding(String)
    /// An HTTP version other than 1.0/1.1 (505).
    case unsupportedVersion(String)

    /// The response status for this error.
    public var status: Int {
        switch self {
        case .malformed: 400
        case .headersTooLarge: 431
        case .bodyTooLarge: 413
        case .unsupportedTransferEncoding: 501
        case .unsupportedVersion: 505
        }
    }

    /// A one-line explanation, suitable as the message of the refusal the server sends.
    public var description: String {
        switch self {
        case .malformed(let why): "malformed request: \(why)"
        case .headersTooLarge: "request headers too large"
        case .bodyTooLarge: "request body too large"
        case .unsupportedTransferEncoding(let te): "unsupported transfer encoding '\(te)'"
        case .unsupportedVersion(let v): "unsupported HTTP version '\(v)'"
        }
    }
}

/// The request line and headers, available before the body has arrived (for `Expect: 100-continue`).
public struct HTTPRequestHead: Sendable {
    /// The request with an empty body.
    public var request: HTTPRequest
    /// Whether the client waits for `100 Continue` before sending the body.
    public var expectsContinue: Bool
}

/// Parses a byte stream into successive requests (keep-alive and pipelining).
public struct HTTPRequestParser: Sendable {
    private enum State: Sendable {
        case head
        case fixedBody(remaining: Int)
        case chunkSize
        case chunkData(remaining: Int)
        case chunkDataEnd
        case trailers
    }

    /// The limits in force.
    public let limits: HTTPRequestLimits
    private var buffer: [UInt8] = []
    private var start = 0          // bytes before `start` are consumed
    private var scanned = 0        // head/line terminator search resumes here
    private var state = State.head
    private var head: HTTPRequestHead?
    private var body: [UInt8] = []

    /// Creates a parser enforcing `limits`.
    public init(limits: HTTPRequestLimits = HTTPRequestLimits()) {
        self.limits = limits
    }

    /// Whether any bytes of an unfinished request are buffered (a partial request, as opposed to
    /// an idle keep-alive connection).
    public var hasPartialRequest: Bool { head != nil || start < buffer.count }

    /// The parsed head while its body is still arriving.
    public var pendingHead: HTTPRequestHead? { head }

    /// Adds received bytes.
    public mutating func append<C: Collection>(_ bytes: C) where C.Element == UInt8 {
        if start > 0 && start >= buffer.count / 2 {
            buffer.removeSubrange(0..<start)
            scanned -= start
            start = 0
        }
        buffer.append(contentsOf: bytes)
    }

    /// The next complete request, nil if more bytes are needed, or an error. After an error the
    /// stream is unrecoverable (framing is lost) and the connection must be closed.
    public mutating func next() throws(HTTPRequestParseError) -> HTTPRequest? {
        while true {
            switch state {
            case .head:
                guard let end = try findHeadEnd() else { return nil }
                guard end - start <= limits.maxHeaderBytes else { throw .headersTooLarge }
                let parsed = try Self.parseHead(buffer[start..<end], limits: limits)
                start = end
                scanned = end
                head = parsed.head
                body = []
                switch parsed.framing {
                case .none: return finishRequest()
                case .length(let n):
                    if n == 0 { return finishRequest() }
                    body.reserveCapacity(n)
                    state = .fixedBody(remaining: n)
                case .chunked: state = .chunkSize
                }
            case .fixedBody(let remaining):
                let take = min(remaining, buffer.count - start)
                if take == 0 { return nil }
                body.append(contentsOf: buffer[start..<start + take])
                start += take
                scanned = start
                if take == remaining { return finishRequest() }
                state = .fixedBody(remaining: remaining - take)
                return nil
            case .chunkSize:
                guard let line = try nextLine(limit: 1024) else { return nil }
                let size = try Self.parseChunkSize(line)
                if size == 0 {
                    state = .trailers
                } else {
                    guard body.count + size <= limits.maxBodyBytes else { throw .bodyTooLarge }
                    state = .chunkData(remaining: size)
                }
            case .chunkData(let remaining):
                let take = min(remaining, buffer.count - start)
                if take == 0 { return nil }
                body.append(contentsOf: buffer[start..<start + take])
                start += take
                scanned = start
                state = take == remaining ? .chunkDataEnd : .chunkData(remaining: remaining - take)
            case .chunkDataEnd:
                guard let line = try nextLine(limit: 2) else { return nil }
                guard line.isEmpty else { throw .malformed("chunk data not followed by CRLF") }
                state = .chunkSize
            case .trailers:
                // Trailer fields are read (bounded) and dropped: nothing downstream uses them.
                guard let line = try nextLine(limit: limits.maxHeaderBytes) else { return nil }
                if line.isEmpty { return finishRequest() }
            }
        }
    }

    private mutating func finishRequest() -> HTTPRequest? {
        guard var request = head?.request else { return nil }
        request.body = body
        request.receivedAt = .now
        body = []
        head = nil
        state = .head
        if start == buffer.count {
            // Nothing pipelined behind this request: drop the storage so an idle keep-alive
            // connection does not pin the capacity of its largest body.
            buffer = []
            start = 0
            scanned = 0
        }
        return request
    }

    /// Index just past the empty line ending the head, skipping blank lines a client may send
    /// between requests (RFC 9112 §2.2). Accepts bare LF line ends, as §2.2 allows.
    private mutating func findHeadEnd() throws(HTTPRequestParseError) -> Int? {
        while start < buffer.count, buffer[start] == UInt8(ascii: "\r") || buffer[start] == UInt8(ascii: "\n") {
            start += 1
        }
        var i = max(scanned, start)
        while i < buffer.count {
            if buffer[i] == UInt8(ascii: "\n") && i > start {
                let p = buffer[i - 1]
                if p == UInt8(ascii: "\n") { return i + 1 }
                if p == UInt8(ascii: "\r") && i - 1 > start && buffer[i - 2] == UInt8(ascii: "\n") { return i + 1 }
            }
            i += 1
        }
        scanned = i
        if buffer.count - start > limits.maxHeaderBytes { throw .headersTooLarge }
        return nil
    }

    /// The next LF-terminated line without its CR/LF, or nil if incomplete.
    private mutating func nextLine(limit: Int) throws(HTTPRequestParseError) -> ArraySlice<UInt8>? {
        var i = max(scanned, start)
        while i < buffer.count {
            if buffer[i] == UInt8(ascii: "\n") {
                var end = i
                if end > start && buffer[end - 1] == UInt8(ascii: "\r") { end -= 1 }
                guard end - start <= limit else { throw .malformed("line too long") }
                let line = buffer[start..<end]
                start = i + 1
                scanned = start
                return line
            }
            i += 1
        }
        scanned = i
        if buffer.count - start > limit + 2 { throw .malformed("line too long") }
        return nil
    }

    private enum Framing { case none, length(Int), chunked }

    private static func parseHead(_ bytes: ArraySlice<UInt8>, limits: HTTPRequestLimits) throws(HTTPRequestParseError) -> (head: HTTPRequestHead, framing: Framing) {
        var lines: [ArraySlice<UInt8>] = []
        var lineStart = bytes.startIndex
        for i in bytes.indices where bytes[i] == UInt8(ascii: "\n") {
            var end = i
            if end > lineStart && bytes[end - 1] == UInt8(ascii: "\r") { end -= 1 }
            lines.append(bytes[lineStart..<end])
            lineStart = i + 1
        }
        while let last = lines.last, last.isEmpty { lines.removeLast() }
        guard let requestLine = lines.first else { throw .malformed("empty request") }
        guard lines.count - 1 <= limits.maxHeaderCount else { throw .headersTooLarge }

        let parts = requestLine.split(separator: UInt8(ascii: " "), omittingEmptySubsequences: false)
        guard parts.count == 3 else { throw .malformed("request line must be 'METHOD target HTTP/x.y'") }
        guard !parts[0].isEmpty, parts[0].allSatisfy(isTokenByte) else { throw .malformed("invalid method") }
        let target = parts[1]
        guard let first = target.first, first == UInt8(ascii: "/") || (target.count == 1 && first == UInt8(ascii: "*")) else {
            throw .malformed("request target must be origin-form (start with '/')")
        }
        guard target.allSatisfy({ $0 > 0x20 && $0 < 0x7F }) else { throw .malformed("invalid byte in request target") }
        let version = try parseVersion(parts[2])

        var headers = HTTPHeaders()
        for line in lines.dropFirst() {
            guard let c = line.first, c != UInt8(ascii: " "), c != UInt8(ascii: "\t") else {
                throw .malformed("obsolete header line folding")
            }
            guard let colon = line.firstIndex(of: UInt8(ascii: ":")) else { throw .malformed("header line without ':'") }
            let name = line[line.startIndex..<colon]
            guard !name.isEmpty, name.allSatisfy(isTokenByte) else { throw .malformed("invalid header name") }
            let rawValue = line[(colon + 1)...]
            guard rawValue.allSatisfy({ $0 == 0x09 || ($0 >= 0x20 && $0 != 0x7F) }) else {
                throw .malformed("control character in header value")
            }
            headers.add(String(decoding: name, as: UTF8.self),
                        String(decoding: rawValue, as: UTF8.self).trimmingASCIIWhitespace())
        }

        let method = String(decoding: parts[0], as: UTF8.self)
        let request = HTTPRequest(method: method, target: String(decoding: target, as: UTF8.self), version: version, headers: headers)
        if version == .http11 && headers.values(for: "Host").count > 1 { throw .malformed("multiple Host headers") }

        // Framing (RFC 9112 §6.3): Transfer-Encoding and Content-Length together are the classic
        // smuggling vector, so they are refused rather than prioritised.
        let framing: Framing
        let te = headers.values(for: "Transfer-Encoding")
        let cl = headers.values(for: "Content-Length")
        if !te.isEmpty {
            guard cl.isEmpty else { throw .malformed("both Transfer-Encoding and Content-Length") }
            guard version == .http11 else { throw .malformed("Transfer-Encoding in an HTTP/1.0 request") }
            let codings = te.flatMap { $0.split(separator: ",").map { $0.trimmingASCIIWhitespace().lowercased() } }
            guard codings == ["chunked"] else { throw .unsupportedTransferEncoding(te.joined(separator: ", ")) }
            framing = .chunked
        } else if !cl.isEmpty {
            let values = Set(cl.flatMap { $0.split(separator: ",", omittingEmptySubsequences: false).map { $0.trimmingASCIIWhitespace() } })
            guard values.count == 1, let text = values.first, !text.isEmpty, text.utf8.allSatisfy({ $0 >= 0x30 && $0 <= 0x39 }) else {
                throw .malformed("invalid Content-Length")
            }
            guard text.utf8.count <= 18, let n = Int(text) else { throw .bodyTooLarge }
            guard n <= limits.maxBodyBytes else { throw .bodyTooLarge }
            framing = .length(n)
        } else {
            framing = .none
        }
        let expects = headers["Expect"].map { $0.lowercased() == "100-continue" } ?? false
        return (HTTPRequestHead(request: request, expectsContinue: expects && version == .http11), framing)
    }

    private static func parseVersion(_ bytes: ArraySlice<UInt8>) throws(HTTPRequestParseError) -> HTTPVersion {
        let text = String(decoding: bytes, as: UTF8.self)
        let u = Array(bytes)
        guard u.count == 8, text.hasPrefix("HTTP/"), u[6] == UInt8(ascii: "."),
              (0x30...0x39).contains(u[5]), (0x30...0x39).contains(u[7]) else {
            throw .malformed("invalid HTTP version")
        }
        let version = HTTPVersion(major: Int(u[5] - 0x30), minor: Int(u[7] - 0x30))
        guard version == .http10 || version == .http11 else { throw .unsupportedVersion(text) }
        return version
    }

    private static func parseChunkSize(_ line: ArraySlice<UInt8>) throws(HTTPRequestParseError) -> Int {
        var size = 0
        var digits = 0
        for b in line {
            let v: Int
            switch b {
            case 0x30...0x39: v = Int(b - 0x30)
            case 0x41...0x46: v = Int(b - 0x41 + 10)
            case 0x61...0x66: v = Int(b - 0x61 + 10)
            case UInt8(ascii: ";"), UInt8(ascii: " "), UInt8(ascii: "\t"):
                guard digits > 0 else { throw .malformed("invalid chunk size") }
                return size  // chunk extensions are ignored
            default: throw .malformed("invalid chunk size")
            }
            digits += 1
            guard digits <= 15 else { throw .bodyTooLarge }
            size = size * 16 + v
        }
        guard digits > 0 else { throw .malformed("empty chunk size") }
        return size
    }

    /// RFC 9110 §5.6.2 `tchar`.
    private static func isTokenByte(_ b: UInt8) -> Bool {
        switch b {
        case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "0")...UInt8(ascii: "9"):
            return true
        default:
            return "!#$%&'*+-.^_`|~".utf8.contains(b)
        }
    }
}
