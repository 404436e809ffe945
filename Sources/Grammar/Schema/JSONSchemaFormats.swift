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
    // Second 60 is checked against the offset by `constraints` (one regex cannot: its DFA would
    // have to carry the local time through the fraction, 1440 states per position).
    static let time = #"([01]\d|2[0-3]):[0-5]\d:([0-5]\d|60)(\.\d+)?([Zz]|[+-]([01]\d|2[0-3]):[0-5]\d)"#
    /// RFC 3339 §5.7: second 60 exists only at 23:59:60 UTC, so a local `h:m:60` is valid exactly
    /// with the offsets that bring it to 23:59 UTC: `+hh:mm` with mm = m + 1 and hh = h (or
    /// mm = 00 and hh = h + 1 when m = 59), `-hh:mm` with hh = 23 − h and mm = 59 − m, and `Z`
    /// at 23:59. The minute and the hour conditions are two small regexes that must both hold
    /// (next to `time`, which checks the ranges); times whose second is not 60 pass both.
    private static let notLeap = #"\d\d:\d\d:[0-5]\d(\.\d+)?([Zz]|[+-]\d\d:\d\d)"#
    private static func two(_ n: Int) -> String { n < 10 ? "0\(n)" : "\(n)" }
    static let leapMinutes: String = {
        let leap = (0..<60).map { m in
            #"\d\d:"# + two(m) + #":60(\.\d+)?(\+\d\d:"# + two((m + 1) % 60) + #"|-\d\d:"# + two(59 - m) + (m == 59 ? "|[Zz]" : "") + ")"
        }
        return "(" + notLeap + "|" + leap.joined(separator: "|") + ")"
    }()
    static let leapHours: String = {
        let leap = (0..<24).map { h in
            two(h) + #":(59:60(\.\d+)?(\+"# + two((h + 1) % 24) + #":\d\d|-"# + two(23 - h) + #":\d\d"# + (h == 23 ? "|[Zz]" : "")
                + #")|([0-4]\d|5[0-8]):60(\.\d+)?(\+"# + two(h) + #":\d\d|-"# + two(23 - h) + #":\d\d))"#
        }
        return "(" + notLeap + "|" + leap.joined(separator: "|") + ")"
    }()
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
    // RFC 3986 (URIs) and RFC 3987 (IRIs: the same grammar with non-ASCII `ucschar` among the
    // unreserved characters and `iprivate` also allowed in queries).
    private static let pct = "%[0-9A-Fa-f]{2}"
    private static let unreserved = #"[A-Za-z0-9\-._~]"#
    private static let subDelims = "[!$&'()*+,;=]"
    /// RFC 3987 `ucschar`: the non-ASCII code points IRIs may carry unescaped.
    static let ucschar: String = {
        var ranges = [#"\u{A0}-\u{D7FF}"#, #"\u{F900}-\u{FDCF}"#, #"\u{FDF0}-\u{FFEF}"#]
        for plane in 1...13 { ranges.append("\\u{\(String(plane, radix: 16))0000}-\\u{\(String(plane, radix: 16))FFFD}") }
        ranges.append(#"\u{E1000}-\u{EFFFD}"#)
        return "[" + ranges.joined() + "]"
    }()
    /// RFC 3987 `iprivate`: private-use code points (queries only in IRIs, any literal in URI templates).
    static let iprivate = #"[\u{E000}-\u{F8FF}\u{F0000}-\u{FFFFD}\u{100000}-\u{10FFFD}]"#
    // IP-literal: an IPv6 address or IPvFuture ("v" is case-insensitive like all ABNF strings).
    private static let ipLiteral = "\\[(" + ipv6 + "|[vV][0-9A-Fa-f]+\\.(" + unreserved + "|" + subDelims + "|:)+)\\]"

    /// (absolute, relative reference) regexes over the given unreserved characters.
    private static func references(unreserved u: String, queryExtra: String?) -> (absolute: String, relative: String) {
        let pchar = "(" + u + "|" + pct + "|" + subDelims + "|[:@])"
        let authority = "((" + u + "|" + pct + "|" + subDelims + "|:)*@)?((" + u + "|" + pct + "|" + subDelims + ")*|" + ipLiteral + ")(:\\d*)?"
        let pathAbempty = "(/" + pchar + "*)*"
        let hierPart = "(//" + authority + pathAbempty + "|/(" + pchar + "+(/" + pchar + "*)*)?|" + pchar + "+(/" + pchar + "*)*)?"
        let fragment = "(" + pchar + "|[/?])*"
        let query = queryExtra.map { "(" + pchar + "|[/?]|" + $0 + ")*" } ?? fragment
        let absolute = "[A-Za-z][A-Za-z0-9+\\-.]*:" + hierPart + "(\\?" + query + ")?(#" + fragment + ")?"
        let pathNoScheme = "(" + u + "|" + pct + "|" + subDelims + "|@)+(/" + pchar + "*)*"
        let relative = "(//" + authority + pathAbempty + "|/(" + pchar + "+(/" + pchar + "*)*)?|" + pathNoScheme + ")?(\\?" + query + ")?(#" + fragment + ")?"
        return (absolute, relative)
    }
    private static let uriForms = references(unreserved: unreserved, queryExtra: nil)
    private static let iriForms = references(unreserved: "(" + unreserved + "|" + ucschar + ")", queryExtra: iprivate)
    static let uri = uriForms.absolute
    static let relativeRef = uriForms.relative
    static let uriReference = "(" + uri + "|" + relativeRef + ")"
    static let iri = iriForms.absolute
    static let iriReference = "(" + iri + "|" + iriForms.relative + ")"

    // RFC 6570 URI Template: literals (plus "'", which the JSON-Schema-Test-Suite admits) and
    // `{operator? varspec,…}` expressions; a prefix length is 1–9999 without leading zeros.
    private static let templateLiteral = "([!#$&'()*+,\\-./0-9:;=?@A-Z\\[\\]_a-z~]|" + ucschar + "|" + iprivate + "|" + pct + ")"
    private static let varchar = "([A-Za-z0-9_]|" + pct + ")"
    private static let varspec = varchar + "(\\.?" + varchar + ")*(:[1-9]\\d{0,3}|\\*)?"
    static let uriTemplate = "(" + templateLiteral + "|\\{[+#./;?&=,!@|]?" + varspec + "(," + varspec + ")*\\})*"
    static let jsonPointer = "(/([^~/]|~[01])*)*"
    static let relativeJSONPointer = "(0|[1-9]\\d*)(#|(/([^~/]|~[01])*)*)"

    /// Formats whose regex is an exact subset of the valid values (host names without IDNA A-labels):
    /// fine for generation (`JSONSchemaOptions.canonicalForms`), not exact for recognition.
    static let canonicalSubsetOnly: Set<String> = ["hostname"]

    /// Formats that validators assert but Loom cannot express exactly.
    static let unsupported: Set<String> = ["regex", "idn-hostname", "idn-email"]

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
        case "iri": return iri
        case "iri-reference": return iriReference
        case "uri-template": return uriTemplate
        case "json-pointer": return jsonPointer
        case "relative-json-pointer": return relativeJSONPointer
        default: return nil
        }
    }

    /// Further full-match regexes a valid value must also satisfy (leap seconds against the offset).
    static func constraints(_ format: String) -> [String] {
        switch format {
        case "time": return [leapMinutes, leapHours]
        case "date-time": return [#"\d{4}-\d\d-\d\d[Tt]"# + leapMinutes, #"\d{4}-\d\d-\d\d[Tt]"# + leapHours]
        default: return []
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
