// A deliberately dumb HTTP client over a raw socket, so tests can send exactly the bytes they
// mean (malformed, partial, pipelined) and read the response framing byte for byte. Blocking
// calls run on their own threads, never on the cooperative pool the server's handlers need.
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import Foundation
import LoomSupport
import LoomTestSupport

struct RawClientError: Error, CustomStringConvertible {
    let description: String
}

struct RawResponse: Sendable {
    var status: Int
    var headers: [(String, String)]
    var body: [UInt8]
    var text: String { String(decoding: body, as: UTF8.self) }
    func header(_ name: String) -> String? { headers.first { $0.0.lowercased() == name.lowercased() }?.1 }
}

final class RawClient: Sendable {
    let fd: Int32
    // Each blocking call runs on its own thread (offPool), so one client's reads happen on
    // different threads one after the other; the lock states that order instead of leaving it
    // to the test's sequencing.
    private let buffer = Locked<[UInt8]>([])

    /// Connects to 127.0.0.1:port. A 120 s receive timeout turns a hung server into a test failure
    /// (generous: a working server under ThreadSanitizer on a loaded machine can take over 30 s).
    init(port: UInt16) throws {
        fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { throw RawClientError(description: "socket failed") }
        var addr = sockaddr_in()
        addr.sin_family = sa_family_t(AF_INET)
        addr.sin_port = port.bigEndian
        addr.sin_addr.s_addr = inet_addr("127.0.0.1")
        let rc = withUnsafePointer(to: &addr) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        // No close here: a class whose stored properties are set runs deinit when init throws.
        guard rc == 0 else { throw RawClientError(description: "connect failed: \(errno)") }
        var tv = timeval(tv_sec: 120, tv_usec: 0)
        setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, socklen_t(MemoryLayout<timeval>.size))
    }

    deinit { Glibc.close(fd) }

    func sendNow(_ bytes: [UInt8]) throws {
        var off = 0
        while off < bytes.count {
            let n = bytes[off...].withUnsafeBytes { Glibc.send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
            if n < 0 && errno == EINTR { continue }
            if n <= 0 { throw RawClientError(description: "send failed: \(errno)") }
            off += n
        }
    }

    func send(_ text: String) async throws { try await send(Array(text.utf8)) }
    func send(_ bytes: [UInt8]) async throws { try await offPool { try self.sendNow(bytes) } }

    /// Closes the socket (the server should see EOF).
    func shutdownBoth() { shutdown(fd, Int32(SHUT_RDWR)) }

    /// Receives more bytes into `buffer`; false on EOF.
    private func fill(_ buffer: inout [UInt8]) throws -> Bool {
        var chunk = [UInt8](repeating: 0, count: 8192)
        var n = chunk.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
        while n < 0 && errno == EINTR { n = chunk.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) } }
        if n < 0 { throw RawClientError(description: "recv failed (errno \(errno)); server hung?") }
        if n == 0 { return false }
        buffer.append(contentsOf: chunk[0..<n])
        return true
    }

    private func readLine(_ buffer: inout [UInt8]) throws -> String {
        while true {
            if let i = buffer.firstIndex(of: 10) {
                var line = Array(buffer[0..<i])
                buffer.removeFirst(i + 1)
                if line.last == 13 { line.removeLast() }
                return String(decoding: line, as: UTF8.self)
            }
            guard try fill(&buffer) else { throw RawClientError(description: "EOF inside a line") }
        }
    }

    private func readExactly(_ n: Int, _ buffer: inout [UInt8]) throws -> [UInt8] {
        while buffer.count < n {
            guard try fill(&buffer) else { throw RawClientError(description: "EOF inside a body") }
        }
        let out = Array(buffer[0..<n])
        buffer.removeFirst(n)
        return out
    }

    /// Reads a status line and headers, skipping interim 1xx responses unless asked for them.
    func readHeadNow(skipInterim: Bool = true) throws -> (Int, [(String, String)]) {
        try buffer.withLock { try readHead(skipInterim: skipInterim, &$0) }
    }

    private func readHead(skipInterim: Bool, _ buffer: inout [UInt8]) throws -> (Int, [(String, String)]) {
        while true {
            let statusLine = try readLine(&buffer)
            let parts = statusLine.split(separator: " ", maxSplits: 2)
            guard parts.count >= 2, parts[0].hasPrefix("HTTP/1."), let status = Int(parts[1]) else {
                throw RawClientError(description: "bad status line '\(statusLine)'")
            }
            var headers: [(String, String)] = []
            while true {
                let line = try readLine(&buffer)
                if line.isEmpty { break }
                guard let colon = line.firstIndex(of: ":") else { throw RawClientError(description: "bad header '\(line)'") }
                headers.append((String(line[..<colon]), line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces)))
            }
            if skipInterim && (100..<200).contains(status) { continue }
            return (status, headers)
        }
    }

    /// One chunk of a chunked body; empty at the terminating chunk.
    func readChunkNow() throws -> [UInt8] {
        try buffer.withLock { try readChunk(&$0) }
    }

    private func readChunk(_ buffer: inout [UInt8]) throws -> [UInt8] {
        let sizeLine = try readLine(&buffer)
        guard let size = Int(sizeLine.split(separator: ";")[0], radix: 16) else { throw RawClientError(description: "bad chunk size '\(sizeLine)'") }
        let data = try readExactly(size, &buffer)
        guard try readLine(&buffer).isEmpty else { throw RawClientError(description: "chunk without CRLF") }
        if size == 0 { return [] }
        return data
    }

    func readResponseNow() throws -> RawResponse {
        try buffer.withLock { buffer in
            let (status, headers) = try readHead(skipInterim: true, &buffer)
            let r = RawResponse(status: status, headers: headers, body: [])
            var body: [UInt8] = []
            if status == 204 || status == 304 {
                return r
            } else if r.header("Transfer-Encoding")?.lowercased() == "chunked" {
                while true {
                    let c = try readChunk(&buffer)
                    if c.isEmpty { break }
                    body += c
                }
            } else if let cl = r.header("Content-Length"), let n = Int(cl) {
                body = try readExactly(n, &buffer)
            } else {
                while try fill(&buffer) {}
                body = buffer
                buffer = []
            }
            return RawResponse(status: status, headers: headers, body: body)
        }
    }

    func readHead() async throws -> (Int, [(String, String)]) { try await offPool { try self.readHeadNow() } }
    func readChunk() async throws -> [UInt8] { try await offPool { try self.readChunkNow() } }
    func readResponse() async throws -> RawResponse { try await offPool { try self.readResponseNow() } }

    /// Whether the server closed the connection (EOF with nothing more to read).
    func readsEOF() async throws -> Bool {
        try await offPool {
            try self.buffer.withLock { buffer in
                if !buffer.isEmpty { return false }
                return try !self.fill(&buffer)
            }
        }
    }
}

/// A thread-safe counter for observing handlers.
final class Counter: Sendable {
    private let n = Locked(0)
    func increment() { n.withLock { $0 += 1 } }
    var value: Int { n.withLock { $0 } }
}
