// The hand-off between a handler's Task (async, on the cooperative pool) and its connection's
// thread (blocking socket I/O). The Task posts the response head and body chunks; the connection
// thread, woken through a self-pipe, writes them and only then resumes the writer. So a handler
// never blocks a cooperative thread on a socket, and never runs ahead of a slow client.
import Foundation
import LoomSupport

/// Why a streamed write failed.
public enum HTTPStreamError: Error, Sendable, Equatable {
    /// The client disconnected, the request timed out, the server is stopping, or the
    /// response had already ended.
    case connectionClosed
}

final class ResponseExchange: Sendable {
    enum Item {
        case head(HTTPResponse)
        case chunk([UInt8], CheckedContinuation<Void, any Error>)
        /// End of a streamed body; `failed` ends it without the terminating chunk.
        case end(failed: Bool)
    }

    private struct State {
        var items: [Item] = []
        var closed = false
    }

    // The pipe is written only under the lock and only while `closed` is false, so the owner can
    // close the pipe right after close().
    private let state = Locked(State())
    private let wake: WakePipe

    init(wake: WakePipe) { self.wake = wake }

    /// Queues an item and wakes the connection thread; false once closed.
    @discardableResult
    func post(_ item: Item) -> Bool {
        state.withLock { s in
            guard !s.closed else { return false }
            s.items.append(item)
            wake.wake()
            return true
        }
    }

    /// Queues body bytes and suspends until the connection thread has written them.
    func write(_ bytes: [UInt8]) async throws {
        try await withCheckedThrowingContinuation { (c: CheckedContinuation<Void, any Error>) in
            if !post(.chunk(bytes, c)) { c.resume(throwing: HTTPStreamError.connectionClosed) }
        }
    }

    /// Everything posted since the last call.
    func take() -> [Item] {
        state.withLock { s in
            defer { s.items = [] }
            return s.items
        }
    }

    /// Refuses further posts and fails every write still waiting.
    func close() {
        let pending = state.withLock { s in
            s.closed = true
            defer { s.items = [] }
            return s.items
        }
        for case .chunk(_, let c) in pending { c.resume(throwing: HTTPStreamError.connectionClosed) }
    }
}

/// The handle a streaming body producer writes through. Writes are ordered and each suspends
/// until its bytes were handed to the kernel (backpressure); after a disconnect they throw
/// `HTTPStreamError.connectionClosed` and the producer's Task is cancelled.
public final class HTTPStreamWriter: Sendable {
    private let exchange: ResponseExchange

    init(exchange: ResponseExchange) { self.exchange = exchange }

    /// Sends raw body bytes as one chunk (empty writes are skipped: a zero-size chunk would end
    /// the body).
    public func write(_ bytes: [UInt8]) async throws {
        guard !bytes.isEmpty else { return }
        try await exchange.write(bytes)
    }

    /// Sends the UTF-8 bytes of `text`.
    public func write(_ text: String) async throws {
        try await write(Array(text.utf8))
    }

    /// Sends one Server-Sent Event. Each line of `data` becomes a `data:` field (so embedded
    /// newlines survive); `event` and `id` are included when given. The event is dispatched by
    /// the terminating blank line.
    public func sendEvent(_ data: String, event: String? = nil, id: String? = nil) async throws {
        try await write(Self.formatEvent(data, event: event, id: id))
    }

    /// Sends an SSE comment line (ignored by clients; useful as a keep-alive ping).
    public func sendComment(_ text: String) async throws {
        let lines = text.split(separator: "\n", omittingEmptySubsequences: false)
        try await write(lines.map { ": " + $0.replacingOccurrences(of: "\r", with: "") + "\n" }.joined() + "\n")
    }

    /// The wire form of one event (exposed for tests and for producers that batch writes).
    public static func formatEvent(_ data: String, event: String? = nil, id: String? = nil) -> String {
        var out = ""
        if let event { out += "event: " + sanitize(event) + "\n" }
        if let id { out += "id: " + sanitize(id) + "\n" }
        let normalized = data.replacingOccurrences(of: "\r\n", with: "\n").replacingOccurrences(of: "\r", with: "\n")
        for line in normalized.split(separator: "\n", omittingEmptySubsequences: false) {
            out += "data: " + line + "\n"
        }
        return out + "\n"
    }

    private static func sanitize(_ field: String) -> String {
        String(field.unicodeScalars.filter { $0 != "\n" && $0 != "\r" })
    }
}
