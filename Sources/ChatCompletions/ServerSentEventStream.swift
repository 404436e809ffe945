// Adapts any async sequence of byte chunks (e.g. `StreamingHTTPResponse.body`) into events.

/// The events carried by an async sequence of byte chunks, parsed as the chunks arrive.
public struct ServerSentEventStream<Base: AsyncSequence>: AsyncSequence where Base.Element == [UInt8] {
    /// Each element is one dispatched event.
    public typealias Element = ServerSentEvent

    private let base: Base
    private let maximumEventBytes: Int

    /// Wraps `base`; `maximumEventBytes` bounds a single line or event.
    public init(_ base: Base, maximumEventBytes: Int = 16 * 1024 * 1024) {
        self.base = base
        self.maximumEventBytes = maximumEventBytes
    }

    /// Iterates events; errors of the base sequence and `ServerSentEventError`s are rethrown.
    public struct AsyncIterator: AsyncIteratorProtocol {
        var base: Base.AsyncIterator
        var parser: ServerSentEventParser
        var ready: [ServerSentEvent] = []
        var readyIndex = 0
        var finished = false

        /// The next event, or nil once the byte stream ended.
        public mutating func next() async throws -> ServerSentEvent? {
            while true {
                if readyIndex < ready.count {
                    defer { readyIndex += 1 }
                    return ready[readyIndex]
                }
                if finished { return nil }
                ready = []
                readyIndex = 0
                if let chunk = try await base.next() {
                    ready = try parser.push(chunk)
                } else {
                    finished = true
                    ready = parser.finish()
                }
            }
        }
    }

    /// Starts iterating.
    public func makeAsyncIterator() -> AsyncIterator {
        AsyncIterator(base: base.makeAsyncIterator(), parser: ServerSentEventParser(maximumEventBytes: maximumEventBytes))
    }
}

extension ServerSentEventStream: Sendable where Base: Sendable {}
