// OpenAI-style API keys: `Authorization: Bearer <key>` (RFC 6750 §2.1) on every request the
// service's router authorizes. The scheme name is case-insensitive (RFC 9110 §11.1).
import HTTPServer

/// Admits requests that present one API key as a Bearer token; refuses the rest with 401 and a
/// `WWW-Authenticate: Bearer` challenge.
public struct BearerKeyAuthorization: Sendable {
    /// The key clients must present.
    public let key: String

    /// Admits requests presenting `key`.
    public init(key: String) {
        self.key = key
    }

    /// nil when `request` presents the key; otherwise the 401 refusal.
    public func refusal(for request: HTTPRequest) -> HTTPServerRefusal? {
        let presented = request.headers["Authorization"].flatMap { value -> String? in
            let parts = value.split(separator: " ", maxSplits: 1)
            guard parts.count == 2, parts[0].lowercased() == "bearer" else { return nil }
            return Self.trimmingOptionalWhitespace(parts[1])
        }
        if let presented, Self.constantTimeEqual(Array(presented.utf8), Array(key.utf8)) { return nil }
        return HTTPServerRefusal(
            status: 401, reason: .unauthorized,
            message: presented == nil ? "Missing API key: send 'Authorization: Bearer <key>'" : "Incorrect API key provided",
            headers: ["WWW-Authenticate": "Bearer"])
    }

    /// Compares without an early exit, so response time does not reveal a matching prefix.
    static func constantTimeEqual(_ a: [UInt8], _ b: [UInt8]) -> Bool {
        var diff = UInt8(truncatingIfNeeded: a.count ^ b.count)
        for i in 0..<max(a.count, b.count) {
            diff |= (i < a.count ? a[i] : 0) ^ (i < b.count ? b[i] : 0)
        }
        return diff == 0
    }

    /// `value` without leading/trailing spaces and tabs (HTTP's optional whitespace).
    private static func trimmingOptionalWhitespace(_ value: Substring) -> String {
        var s = value
        while let c = s.first, c == " " || c == "\t" { s.removeFirst() }
        while let c = s.last, c == " " || c == "\t" { s.removeLast() }
        return String(s)
    }
}
