// One dispatched Server-Sent Event (WHATWG HTML §9.2 "Server-sent events").

/// A Server-Sent Event as dispatched by `ServerSentEventParser`.
public struct ServerSentEvent: Sendable, Equatable {
    /// The `event:` field, or `"message"` when the event had none.
    public var event: String
    /// The `data:` lines joined with `\n` (no trailing newline).
    public var data: String
    /// The last event ID seen on the stream when this event was dispatched (`id:` persists
    /// across events, as the spec requires), or nil if none was ever set.
    public var id: String?
    /// The `retry:` reconnection time in milliseconds, when this event carried one.
    public var retry: Int?
    /// Whether the `data:` bytes were valid UTF-8. The spec decodes them with replacement
    /// characters, so `data` is always usable; a consumer that parses JSON out of it refuses an
    /// event whose bytes were not text rather than parse a corrupted payload.
    public var dataWasValidUTF8: Bool

    /// Creates an event.
    public init(event: String = "message", data: String, id: String? = nil, retry: Int? = nil,
                dataWasValidUTF8: Bool = true) {
        self.event = event
        self.data = data
        self.id = id
        self.retry = retry
        self.dataWasValidUTF8 = dataWasValidUTF8
    }

    /// Whether this is the OpenAI-style end-of-stream sentinel `data: [DONE]`.
    public var isDone: Bool { data == "[DONE]" }
}
