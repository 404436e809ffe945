// Request ids (`X-Request-ID`): the server gives every response one, echoing the client's when it
// is well-formed, so one id ties a client's report, the access log and the application's own
// traces together. Generated ids are UUIDs, which is what OpenAI-style clients send.
import Foundation

/// The `X-Request-ID` rules: what a client may send to have echoed, and what the server makes.
public enum HTTPRequestID {
    /// The header's name.
    public static let headerName = "X-Request-ID"

    /// The longest id echoed back; a longer one is replaced.
    public static let maximumLength = 128

    /// `value` when it is a well-formed id: 1…128 characters of ASCII letters, digits and
    /// `-_.:/+=@`, enough for UUIDs, ULIDs and tracing ids, and nothing that could break a header
    /// or a log line.
    public static func accepting(_ value: String?) -> String? {
        guard let value, !value.isEmpty, value.utf8.count <= maximumLength else { return nil }
        for c in value.utf8 {
            switch c {
            case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "0")...UInt8(ascii: "9"),
                 UInt8(ascii: "-"), UInt8(ascii: "_"), UInt8(ascii: "."), UInt8(ascii: ":"), UInt8(ascii: "/"),
                 UInt8(ascii: "+"), UInt8(ascii: "="), UInt8(ascii: "@"):
                continue
            default:
                return nil
            }
        }
        return value
    }

    /// A fresh id (a random UUID).
    public static func generate() -> String {
        UUID().uuidString
    }
}
