// What a handler knows about its request that the server does not — tokens, cache hits, the
// application's outcome — handed to the access log beside the server's own facts.
import LoomJSON
import LoomSupport

/// Key/value facts a handler notes about its request; they appear in the request's
/// `HTTPAccessRecord.notes`, in the order first set. A handler (or its streaming producer) may
/// note from any task; later values of a key replace earlier ones.
public final class HTTPRequestNotes: Sendable {
    private let fields = Locked(JSONObject())

    /// No notes.
    public init() {}

    /// Sets `key` to `value`.
    public func set(_ key: String, _ value: JSONValue) {
        fields.withLock { $0[key] = value }
    }

    /// Everything noted so far.
    public var all: JSONObject { fields.withLock { $0 } }
}
