// Incremental Server-Sent Events parser (WHATWG HTML §9.2.6 "Event stream interpretation").
// Bytes go in exactly as the network delivers them — a chunk may end inside a line, between the
// CR and LF of a CRLF, or inside the UTF-8 BOM — and the events that are complete come out.
// Unlike upstream's `hasPrefix("data: ")` it honours `data:` without a space, multi-line data,
// comments, `event:`/`id:`/`retry:`, and CR, LF and CRLF line ends.

/// Why an event stream was rejected.
public enum ServerSentEventError: Error, Sendable, Equatable, CustomStringConvertible {
    /// One line or one event's data exceeded the parser's `maximumEventBytes`.
    case eventTooLarge(limit: Int)

    /// A one-line explanation.
    public var description: String {
        switch self {
        case .eventTooLarge(let limit): "server-sent event larger than \(limit) bytes"
        }
    }
}

/// Turns an event-stream byte sequence into `ServerSentEvent`s, chunk by chunk.
public struct ServerSentEventParser: Sendable {
    /// Largest line or accumulated `data` accepted (bounds memory against a hostile server).
    public let maximumEventBytes: Int
    /// The stream's current last-event-ID (persists across events).
    public private(set) var lastEventID: String?

    private var line: [UInt8] = []
    private var afterCR = false
    private var bomMatched = 0          // bytes of a leading UTF-8 BOM seen so far; -1 once past it
    private var data: [UInt8] = []
    private var hasData = false
    private var eventType: String?
    private var retry: Int?
    private var pending: [ServerSentEvent] = []

    private static let bom: [UInt8] = [0xEF, 0xBB, 0xBF]

    /// Creates a parser; `maximumEventBytes` defaults to 16 MiB.
    public init(maximumEventBytes: Int = 16 * 1024 * 1024) {
        self.maximumEventBytes = maximumEventBytes
    }

    /// Feeds bytes; returns the events they completed, in order.
    public mutating func push<C: Collection>(_ bytes: C) throws(ServerSentEventError) -> [ServerSentEvent] where C.Element == UInt8 {
        for b in bytes {
            if bomMatched >= 0 {
                if b == Self.bom[bomMatched] {
                    bomMatched += 1
                    if bomMatched == Self.bom.count { bomMatched = -1 }
                    continue
                }
                // Not a BOM after all: the bytes matched so far are ordinary content.
                let replay = Self.bom[0..<bomMatched]
                bomMatched = -1
                for r in replay { try consume(r) }
            }
            try consume(b)
        }
        let out = pending
        pending = []
        return out
    }

    /// Ends the stream. Per the spec an event not terminated by a blank line is discarded, so
    /// a truncated stream never yields a half-received event; returns nothing.
    public mutating func finish() -> [ServerSentEvent] {
        line = []
        data = []
        hasData = false
        eventType = nil
        retry = nil
        afterCR = false
        return []
    }

    /// Whether bytes of an unfinished event are buffered (useful to report truncation).
    public var hasPartialEvent: Bool { !line.isEmpty || hasData || eventType != nil }

    private mutating func consume(_ b: UInt8) throws(ServerSentEventError) {
        switch b {
        case 0x0A:
            if afterCR {
                afterCR = false  // the LF of a CRLF: the line already ended at the CR
                return
            }
            try endLine()
        case 0x0D:
            afterCR = true
            try endLine()
        default:
            afterCR = false
            guard line.count < maximumEventBytes else { throw .eventTooLarge(limit: maximumEventBytes) }
            line.append(b)
        }
    }

    private mutating func endLine() throws(ServerSentEventError) {
        defer { line.removeAll(keepingCapacity: true) }
        if line.isEmpty {
            dispatch()
            return
        }
        if line[0] == UInt8(ascii: ":") { return }  // comment
        let name: ArraySlice<UInt8>
        var value: ArraySlice<UInt8>
        if let colon = line.firstIndex(of: UInt8(ascii: ":")) {
            name = line[..<colon]
            value = line[(colon + 1)...]
            if value.first == UInt8(ascii: " ") { value = value.dropFirst() }
        } else {
            name = line[...]
            value = []
        }
        switch String(decoding: name, as: UTF8.self) {
        case "data":
            guard data.count + value.count + 1 <= maximumEventBytes else { throw .eventTooLarge(limit: maximumEventBytes) }
            data.append(contentsOf: value)
            data.append(0x0A)
            hasData = true
        case "event":
            eventType = String(decoding: value, as: UTF8.self)
        case "id":
            if !value.contains(0) { lastEventID = String(decoding: value, as: UTF8.self) }
        case "retry":
            if !value.isEmpty, value.allSatisfy({ $0 >= 0x30 && $0 <= 0x39 }) {
                retry = Int(String(decoding: value, as: UTF8.self)) ?? Int.max
            }
        default:
            break  // unknown fields are ignored
        }
    }

    private mutating func dispatch() {
        defer {
            data.removeAll(keepingCapacity: true)
            hasData = false
            eventType = nil
            retry = nil
        }
        guard hasData else { return }
        data.removeLast()  // the LF appended after the last data line
        let type = eventType.flatMap { $0.isEmpty ? nil : $0 } ?? "message"
        let valid = String(validating: data, as: UTF8.self)
        pending.append(ServerSentEvent(event: type, data: valid ?? String(decoding: data, as: UTF8.self), id: lastEventID,
                                       retry: retry, dataWasValidUTF8: valid != nil))
    }
}
