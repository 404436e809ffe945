/// `format` values Loom enforces, as full-match regexes over the decoded string.
///
/// Each is at least as strict as the checker JSON Schema tooling uses (Python `jsonschema` with its
/// format extras: RFC 3339 dates and times with calendar-valid days, `ipaddress`, RFC 3986 URIs),
/// so enforcing a format never admits an instance those checkers reject. Formats those checkers
/// assert but Loom cannot express exactly are reported as unsupported; any other value is an
/// annotation (any string), as the specification says.
enum JSONSchemaFormats {
    private static let leapYear = #"(\d\d(0[48]|[2468][048]|[13579][26])|([02468][048]|[13579][26])00)"#
    static let date = #"(\d{4}-(0[13578]|1[02])-(0[1-9]|[12]\d|3[01])|\d{4}-(0[469]|11)-(0[1-9]|[12]\d|30)|\d{4}-02-(0[1-9]|1\d|2[0-8])|"#
        + leapYear + "-02-29)"
    // A leap second is only valid at 23:59:60 UTC; other offsets are refused (stricter, never looser).
    static let time = #"(([01]\d|2[0-3]):[0-5]\d:[0-5]\d(\.\d+)?([Zz]|[+-]([01]\d|2[0-3]):[0-5]\d)|23:59:60(\.\d+)?([Zz]|[+-]00:00))"#
    static let dateTime = date + "[Tt]" + time
    // RFC 3339 Appendix A: units in order, none skipped in the middle.
    private static let durTime = #"T(\d+H(\d+M(\d+S)?)?|\d+M(\d+S)?|\d+S)"#
    static let duration = #"P(\d+W|(\d+Y(\d+M(\d+D)?)?|\d+M(\d+D)?|\d+D)("# + durTime + ")?|" + durTime + ")"
    // RFC 5321 mailbox: dot-atom or quoted local part; host name or address literal.
    private static let atext = #"[A-Za-z0-9!#$%&'*+/=?^_`{|}~-]"#
    static var email: String {
        "(" + atext + "+(\\." + atext + "+)*|\"([^\"\\\\]|\\\\.)*\")@(" + hostname + "|\\[" + ipv4 + "\\]|\\[IPv6:" + ipv6 + "\\])"
    }
    private static let label = "[A-Za-z0-9]([A-Za-z0-9-]{0,61}[A-Za-z0-9])?"
    static let hostname = "(" + label + "\\.)*" + label
    private static let octet = #"(25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)"#
    static let ipv4 = octet + "(\\." + octet + "){3}"
    private static let h16 = "[0-9A-Fa-f]{1,4}"
    private static let ls32 = "(" + h16 + ":" + h16 + "|" + ipv4 + ")"
    static let ipv6 = "(" + [
        "(" + h16 + ":){6}" + ls32,
        "::(" + h16 + ":){5}" + ls32,
        "(" + h16 + ")?::(" + h16 + ":){4}" + ls32,
        "((" + h16 + ":){0,1}" + h16 + ")?::(" + h16 + ":){3}" + ls32,
        "((" + h16 + ":){0,2}" + h16 + ")?::(" + h16 + ":){2}" + ls32,
        "((" + h16 + ":){0,3}" + h16 + ")?::" + h16 + ":" + ls32,
        "((" + h16 + ":){0,4}" + h16 + ")?::" + ls32,
        "((" + h16 + ":){0,5}" + h16 + ")?::" + h16,
        "((" + h16 + ":){0,6}" + h16 + ")?::",
    ].joined(separator: "|") + ")"
    static let uuid = "[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}"
    // RFC 3986 without IP-literal hosts (stricter, never looser).
    private static let pct = "%[0-9A-Fa-f]{2}"
    private static let unreserved = #"[A-Za-z0-9\-._~]"#
    private static let subDelims = "[!$&'()*+,;=]"
    private static let pchar = "(" + unreserved + "|" + pct + "|" + subDelims + "|[:@])"
    private static let authority = "((" + unreserved + "|" + pct + "|" + subDelims + "|:)*@)?((" + unreserved + "|" + pct + "|" + subDelims + ")*|\\[" + ipv6 + "\\])(:\\d*)?"
    private static let pathAbempty = "(/" + pchar + "*)*"
    private static let hierPart = "(//" + authority + pathAbempty + "|/(" + pchar + "+(/" + pchar + "*)*)?|" + pchar + "+(/" + pchar + "*)*)?"
    private static let queryOrFragment = "(" + pchar + "|[/?])*"
    static let uri = "[A-Za-z][A-Za-z0-9+\\-.]*:" + hierPart + "(\\?" + queryOrFragment + ")?(#" + queryOrFragment + ")?"
    private static let pathNoScheme = "(" + unreserved + "|" + pct + "|" + subDelims + "|@)+(/" + pchar + "*)*"
    static let relativeRef = "(//" + authority + pathAbempty + "|/(" + pchar + "+(/" + pchar + "*)*)?|" + pathNoScheme + ")?(\\?" + queryOrFragment + ")?(#" + queryOrFragment + ")?"
    static let uriReference = "(" + uri + "|" + relativeRef + ")"
    static let jsonPointer = "(/([^~/]|~[01])*)*"
    static let relativeJSONPointer = "(0|[1-9]\\d*)(#|(/([^~/]|~[01])*)*)"

    /// Formats that validators assert but Loom cannot express exactly.
    static let unsupported: Set<String> = ["regex", "iri", "iri-reference", "idn-hostname", "uri-template", "idn-email"]

    /// The regex for a format, nil for annotation-only formats; throws for unsupported assertions.
    static func regex(_ format: String) -> String? {
        switch format {
        case "date": return date
        case "time": return time
        case "date-time": return dateTime
        case "duration": return duration
        case "email": return email
        case "hostname": return hostname
        case "ipv4": return ipv4
        case "ipv6": return ipv6
        case "uuid": return uuid
        case "uri": return uri
        case "uri-reference": return uriReference
        case "json-pointer": return jsonPointer
        case "relative-json-pointer": return relativeJSONPointer
        default: return nil
        }
    }

    /// Length limits some checkers add on top of the syntax (hostnames: 253 octets).
    static func maxLength(_ format: String) -> Int? { format == "hostname" ? 253 : nil }

    /// Search patterns a valid value must not contain: a hostname's last label is not all digits, and
    /// no label has `--` in positions 3–4 (reserved for IDNA A-labels, which need Punycode checks).
    static func forbidden(_ format: String) -> [String] {
        switch format {
        case "hostname": return [#"^(.*\.)?[0-9]+$"#, #"^(.*\.)?[^.][^.]--"#]
        case "email": return [#"@(.*\.)?[0-9]+$"#, #"@(.*\.)?[^.][^.]--"#]
        default: return []
        }
    }
}
