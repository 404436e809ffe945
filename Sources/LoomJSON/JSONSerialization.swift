/// How `JSONValue.serialized` writes text.
public struct JSONWriteOptions: Sendable {
    /// Separator after commas between items (`","` compact, `", "` as Python's json.dumps).
    public var itemSeparator: String
    /// Separator between a key and its value (`":"` compact, `": "` as Python's json.dumps).
    public var keySeparator: String
    /// Indentation per level; nil writes everything on one line.
    public var indent: Int?
    /// Escape every non-ASCII character as `\uXXXX` (Python's `ensure_ascii`).
    public var asciiOnly: Bool
    /// Escape `/` as `\/`.
    public var escapeSlashes: Bool

    public init(itemSeparator: String = ",", keySeparator: String = ":", indent: Int? = nil,
                asciiOnly: Bool = false, escapeSlashes: Bool = false) {
        self.itemSeparator = itemSeparator
        self.keySeparator = keySeparator
        self.indent = indent
        self.asciiOnly = asciiOnly
        self.escapeSlashes = escapeSlashes
    }

    /// No spaces: the form Loom sends and prints by default.
    public static let compact = JSONWriteOptions()
    /// Python's `json.dumps` defaults (`", "`, `": "`, ASCII-only).
    public static let python = JSONWriteOptions(itemSeparator: ", ", keySeparator: ": ", asciiOnly: true)
    /// Two-space indentation for people.
    public static let pretty = JSONWriteOptions(itemSeparator: ",", keySeparator: ": ", indent: 2)
}

extension JSONValue {
    /// The value as JSON text.
    public func serialized(_ options: JSONWriteOptions = .compact) -> String {
        var out = ""
        write(into: &out, options: options, level: 0)
        return out
    }

    private func newline(_ out: inout String, _ options: JSONWriteOptions, _ level: Int) {
        guard let indent = options.indent else { return }
        out += "\n" + String(repeating: " ", count: indent * level)
    }

    private func write(into out: inout String, options: JSONWriteOptions, level: Int) {
        switch self {
        case .null: out += "null"
        case .bool(let b): out += b ? "true" : "false"
        case .number(let n): out += n.literal == JSONNumber.notANumberLiteral ? "null" : n.literal
        case .string(let s): JSONValue.writeString(s, into: &out, options: options)
        case .array(let items):
            if items.isEmpty { out += "[]"; return }
            out += "["
            for (k, item) in items.enumerated() {
                if k > 0 { out += options.indent == nil ? options.itemSeparator : "," }
                newline(&out, options, level + 1)
                item.write(into: &out, options: options, level: level + 1)
            }
            newline(&out, options, level)
            out += "]"
        case .object(let obj):
            if obj.isEmpty { out += "{}"; return }
            out += "{"
            for (k, member) in obj.members.enumerated() {
                if k > 0 { out += options.indent == nil ? options.itemSeparator : "," }
                newline(&out, options, level + 1)
                JSONValue.writeString(member.key, into: &out, options: options)
                out += options.keySeparator
                member.value.write(into: &out, options: options, level: level + 1)
            }
            newline(&out, options, level)
            out += "}"
        }
    }

    /// Writes `s` as a JSON string literal with the escapes JSON requires.
    public static func writeString(_ s: String, into out: inout String, options: JSONWriteOptions = .compact) {
        out += "\""
        for scalar in s.unicodeScalars {
            switch scalar {
            case "\"": out += "\\\""
            case "\\": out += "\\\\"
            case "\n": out += "\\n"
            case "\r": out += "\\r"
            case "\t": out += "\\t"
            case "\u{08}": out += "\\b"
            case "\u{0C}": out += "\\f"
            case "/" where options.escapeSlashes: out += "\\/"
            default:
                if scalar.value < 0x20 || (options.asciiOnly && scalar.value > 0x7E) {
                    if scalar.value > 0xFFFF {
                        let v = scalar.value - 0x10000
                        out += hex4(0xD800 + (v >> 10)) + hex4(0xDC00 + (v & 0x3FF))
                    } else {
                        out += hex4(scalar.value)
                    }
                } else {
                    out.unicodeScalars.append(scalar)
                }
            }
        }
        out += "\""
    }

    private static func hex4(_ v: UInt32) -> String {
        let h = String(v, radix: 16)
        return "\\u" + String(repeating: "0", count: 4 - h.count) + h
    }
}
