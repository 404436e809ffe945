// An HTTP/1.1 client over a raw loopback socket that reads server-sent events one at a time as
// they arrive (Foundation's Linux URLSession delivers a streamed body only at the end, which
// could not prove incremental streaming). Blocking socket calls run on threads of their own,
// never on the cooperative pool the server's handlers need.
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import Foundation
import LoomTestSupport
import LoomJSON

struct LoopbackError: Error, CustomStringConvertible {
    let description: String
}

struct LoopbackResponse: Sendable {
    var status: Int
    var headers: [(String, String)]
    var body: [UInt8]

    func header(_ name: String) -> String? { headers.first { $0.0.lowercased() == name.lowercased() }?.1 }
    var text: String { String(decoding: body, as: UTF8.self) }
    var json: JSONValue? { try? JSONValue(parsing: body) }
    /// `error.code` of an OpenAI error envelope.
    var errorCode: String? { json?["error"]?["code"]?.stringValue }
    var errorType: String? { json?["error"]?["type"]?.stringValue }
}

final class LoopbackClient: @unchecked Sendable {
    // @unchecked: one test task drives a client at a time, and each blocking call's thread is
    // ordered after the previous one's by `offPool`'s hand-over.
    private let fd: Int32
    private var buffer: [UInt8] = []
    /// De-chunked body bytes of a streamed response not yet consumed as events.
    private var bodyBuffer: [UInt8] = []
    private var chunked = false
    private var bodyEnded = false

    init(port: UInt16) throws {
        fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { throw LoopbackError(description: "socket() failed") }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = port.bigEndian
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let rc = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard rc == 0 else { throw LoopbackError(description: "connect() failed: errno \(errno)") }
        // Turns a hung server into a failed test; no assertion depends on it.
        var timeout = timeval(tv_sec: 60, tv_usec: 0)
        setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
    }

    deinit { close(fd) }

    /// Closes the connection in both directions (the server sees the client leave).
    func disconnect() { shutdown(fd, Int32(SHUT_RDWR)) }

    // MARK: Requests

    static func requestBytes(_ method: String, _ path: String, headers: [(String, String)] = [], body: [UInt8] = []) -> [UInt8] {
        var head = "\(method) \(path) HTTP/1.1\r\nHost: 127.0.0.1\r\n"
        for (name, value) in headers { head += "\(name): \(value)\r\n" }
        if !body.isEmpty || method == "POST" { head += "Content-Length: \(body.count)\r\n" }
        head += "\r\n"
        return Array(head.utf8) + body
    }

    func send(_ method: String, _ path: String, headers: [(String, String)] = [], body: [UInt8] = []) async throws {
        let bytes = Self.requestBytes(method, path, headers: headers, body: body)
        try await offPool { try self.sendAll(bytes) }
    }

    func send(_ method: String, _ path: String, headers: [(String, String)] = [], json: JSONValue) async throws {
        var all = headers
        all.append(("Content-Type", "application/json"))
        try await send(method, path, headers: all, body: Array(json.serialized().utf8))
    }

    /// Sends a request and reads the whole response.
    func exchange(_ method: String, _ path: String, headers: [(String, String)] = [], json: JSONValue? = nil,
                  body: [UInt8]? = nil) async throws -> LoopbackResponse {
        if let json {
            try await send(method, path, headers: headers, json: json)
        } else {
            try await send(method, path, headers: headers, body: body ?? [])
        }
        return try await readResponse()
    }

    // MARK: Responses

    /// The status line and headers; prepares to read the body as events.
    func readHead() async throws -> (status: Int, headers: [(String, String)]) {
        try await offPool {
            let head = try self.readHeadNow()
            self.chunked = head.1.contains { $0.0.lowercased() == "transfer-encoding" && $0.1.lowercased() == "chunked" }
            self.bodyBuffer = []
            self.bodyEnded = false
            return head
        }
    }

    /// The whole response (Content-Length or chunked body).
    func readResponse() async throws -> LoopbackResponse {
        try await offPool {
            let (status, headers) = try self.readHeadNow()
            let response = LoopbackResponse(status: status, headers: headers, body: [])
            var body: [UInt8] = []
            if response.header("Transfer-Encoding")?.lowercased() == "chunked" {
                while let chunk = try self.readChunkNow() { body += chunk }
            } else if let length = response.header("Content-Length").flatMap({ Int($0) }) {
                body = try self.readExactly(length)
            }
            return LoopbackResponse(status: status, headers: headers, body: body)
        }
    }

    /// The `data` of the next server-sent event, or nil at the end of the body.
    func nextEvent() async throws -> String? {
        try await offPool { try self.nextEventNow() }
    }

    /// The next event's data parsed as JSON (fails on `[DONE]` or the end).
    func nextJSONEvent() async throws -> JSONValue {
        guard let data = try await nextEvent() else { throw LoopbackError(description: "the stream ended") }
        return try JSONValue(parsing: data)
    }

    /// Every remaining event's data, up to the end of the body.
    func remainingEvents() async throws -> [String] {
        var out: [String] = []
        while let event = try await nextEvent() { out.append(event) }
        return out
    }

    /// True when the server closed the connection.
    func readsEndOfStream() async throws -> Bool {
        try await offPool { self.buffer.isEmpty ? try !self.fill() : false }
    }

    // MARK: Blocking internals

    private func sendAll(_ bytes: [UInt8]) throws {
        var offset = 0
        while offset < bytes.count {
            let n = bytes[offset...].withUnsafeBytes { Glibc.send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
            if n < 0 && errno == EINTR { continue }
            if n <= 0 { throw LoopbackError(description: "send() failed: errno \(errno)") }
            offset += n
        }
    }

    private func fill() throws -> Bool {
        var chunk = [UInt8](repeating: 0, count: 16 * 1024)
        while true {
            let n = chunk.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
            if n < 0 && errno == EINTR { continue }
            if n < 0 { throw LoopbackError(description: "recv() failed: errno \(errno) (server hung?)") }
            if n == 0 { return false }
            buffer.append(contentsOf: chunk[0..<n])
            return true
        }
    }

    private func readLine() throws -> String {
        while true {
            if let newline = buffer.firstIndex(of: 10) {
                var line = Array(buffer[0..<newline])
                buffer.removeFirst(newline + 1)
                if line.last == 13 { line.removeLast() }
                return String(decoding: line, as: UTF8.self)
            }
            guard try fill() else { throw LoopbackError(description: "connection closed inside a line") }
        }
    }

    private func readExactly(_ count: Int) throws -> [UInt8] {
        while buffer.count < count {
            guard try fill() else { throw LoopbackError(description: "connection closed inside a body") }
        }
        let out = Array(buffer[0..<count])
        buffer.removeFirst(count)
        return out
    }

    private func readHeadNow() throws -> (Int, [(String, String)]) {
        while true {
            let statusLine = try readLine()
            let parts = statusLine.split(separator: " ", maxSplits: 2)
            guard parts.count >= 2, let status = Int(parts[1]) else {
                throw LoopbackError(description: "bad status line '\(statusLine)'")
            }
            var headers: [(String, String)] = []
            while true {
                let line = try readLine()
                if line.isEmpty { break }
                guard let colon = line.firstIndex(of: ":") else { throw LoopbackError(description: "bad header '\(line)'") }
                headers.append((String(line[..<colon]), line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces)))
            }
            if (100..<200).contains(status) { continue }
            return (status, headers)
        }
    }

    /// One chunk of a chunked body; nil at the terminating chunk.
    private func readChunkNow() throws -> [UInt8]? {
        let sizeLine = try readLine()
        guard let size = Int(sizeLine.split(separator: ";").first ?? "", radix: 16) else {
            throw LoopbackError(description: "bad chunk size '\(sizeLine)'")
        }
        let data = try readExactly(size)
        guard try readLine().isEmpty else { throw LoopbackError(description: "chunk without CRLF") }
        return size == 0 ? nil : data
    }

    private func nextEventNow() throws -> String? {
        while true {
            if let end = Self.eventEnd(in: bodyBuffer) {
                let raw = String(decoding: bodyBuffer[0..<end.start], as: UTF8.self)
                bodyBuffer.removeFirst(end.end)
                let data = raw.split(separator: "\n", omittingEmptySubsequences: false)
                    .filter { $0.hasPrefix("data:") }
                    .map { line -> String in
                        let value = line.dropFirst(5)
                        return String(value.first == " " ? value.dropFirst() : value)
                    }
                if data.isEmpty { continue }  // a comment or an event without data
                return data.joined(separator: "\n")
            }
            if bodyEnded { return nil }
            guard chunked else { throw LoopbackError(description: "not a chunked stream") }
            if let chunk = try readChunkNow() { bodyBuffer += chunk } else { bodyEnded = true }
        }
    }

    private static func eventEnd(in bytes: [UInt8]) -> (start: Int, end: Int)? {
        guard bytes.count >= 2 else { return nil }
        for i in 0..<(bytes.count - 1) where bytes[i] == 10 && bytes[i + 1] == 10 {
            return (i, i + 2)
        }
        return nil
    }
}

extension JSONValue {
    /// Array element lookup for tests (nil for other values or an index out of range).
    subscript(index: Int) -> JSONValue? {
        guard case .array(let items) = self, items.indices.contains(index) else { return nil }
        return items[index]
    }
}
