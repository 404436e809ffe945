import LoomJSON
/// Python's `str()`, `repr()` and `json.dumps` for template values, byte for byte.
enum PythonFormat {
    /// `str(x)`, which Jinja2 uses to print values and for `~`, `|string` and `|join`.
    static func str(_ value: Value) -> String {
        switch value {
        case .undefined: return ""
        case .string(let s), .markup(let s): return s
        default:
            var out = ""
            writeRepr(value, into: &out)
            return out
        }
    }

    /// `repr(x)`: strings quoted, containers recursive.
    static func repr(_ value: Value) -> String {
        var out = ""
        writeRepr(value, into: &out)
        return out
    }

    static func writeRepr(_ value: Value, into out: inout String) {
        var active: [ObjectIdentifier] = []
        writeRepr(value, into: &out, active: &active)
    }

    /// `active` holds the namespaces being printed: a namespace that contains itself prints as
    /// `<Namespace {...}>`, as Python's recursive-repr guard does.
    private static func writeRepr(_ value: Value, into out: inout String, active: inout [ObjectIdentifier]) {
        switch value {
        case .undefined: out += "Undefined"
        case .none: out += "None"
        case .bool(let b): out += b ? "True" : "False"
        case .int(let i): out += String(i)
        case .double(let d): out += floatRepr(d)
        case .string(let s): writeStringRepr(s, into: &out)
        case .markup(let s):
            out += "Markup("
            writeStringRepr(s, into: &out)
            out += ")"
        case .list(let items):
            out += "["
            for (i, item) in items.enumerated() {
                if i > 0 { out += ", " }
                writeRepr(item, into: &out, active: &active)
            }
            out += "]"
        case .tuple(let items):
            out += "("
            for (i, item) in items.enumerated() {
                if i > 0 { out += ", " }
                writeRepr(item, into: &out, active: &active)
            }
            out += items.count == 1 ? ",)" : ")"
        case .dict(let d):
            writeDictRepr(d, into: &out, active: &active)
        case .range(let r):
            out += r.repr
        case .view(let v):
            out += "dict_\(v.kind.rawValue)(["
            for (i, item) in v.items.enumerated() {
                if i > 0 { out += ", " }
                writeRepr(item, into: &out, active: &active)
            }
            out += "])"
        case .namespace(let ns):
            let id = ObjectIdentifier(ns)
            if active.contains(id) { out += "<Namespace {...}>"; return }
            active.append(id)
            out += "<Namespace "
            writeDictRepr(ns.attributes, into: &out, active: &active)
            out += ">"
            active.removeLast()
        case .generator: out += "<generator object>"
        case .callable(let c):
            switch c {
            case .macro(let m): out += "<Macro '\(m.definition.name)'>"
            case .builtin(let name): out += "<function \(name)>"
            case .method(let receiver, let name): out += "<built-in method \(name) of \(receiver.typeName) object>"
            case .loopCycle, .loopChanged: out += "<bound method>"
            case .joiner: out += "<jinja2.utils.Joiner object>"
            case .cycler: out += "<jinja2.utils.Cycler object>"
            }
        case .loop(let l): out += "<LoopContext \(l.index0 + 1)/\(l.items.count)>"
        }
    }

    private static func writeDictRepr(_ d: PyDict, into out: inout String, active: inout [ObjectIdentifier]) {
        out += "{"
        for i in 0..<d.count {
            if i > 0 { out += ", " }
            writeRepr(d.keys[i], into: &out, active: &active)
            out += ": "
            writeRepr(d.values[i], into: &out, active: &active)
        }
        out += "}"
    }

    /// Python's `repr(str)`: single quotes unless the text has `'` and no `"`; non-printable
    /// characters as `\xNN`, `\uNNNN` or `\UNNNNNNNN`.
    static func writeStringRepr(_ s: String, into out: inout String) {
        var hasSingle = false, hasDouble = false
        for b in s.utf8 {
            if b == 0x27 { hasSingle = true } else if b == 0x22 { hasDouble = true }
        }
        let quote: Unicode.Scalar = hasSingle && !hasDouble ? "\"" : "'"
        out.unicodeScalars.append(quote)
        for c in s.unicodeScalars {
            switch c {
            case quote, "\\": out += "\\"; out.unicodeScalars.append(c)
            case "\t": out += "\\t"
            case "\n": out += "\\n"
            case "\r": out += "\\r"
            default:
                if c.value < 0x20 || c.value == 0x7F {
                    out += "\\x" + hex(c.value, width: 2)
                } else if c.value < 0x7F || isPrintable(c) {
                    out.unicodeScalars.append(c)
                } else if c.value <= 0xFF {
                    out += "\\x" + hex(c.value, width: 2)
                } else if c.value <= 0xFFFF {
                    out += "\\u" + hex(c.value, width: 4)
                } else {
                    out += "\\U" + hex(c.value, width: 8)
                }
            }
        }
        out.unicodeScalars.append(quote)
    }

    /// Python's `str.isprintable` for one character: everything except the "Other" and
    /// "Separator" categories, with the ASCII space allowed.
    static func isPrintable(_ c: Unicode.Scalar) -> Bool {
        if c == " " { return true }
        switch c.properties.generalCategory {
        case .control, .format, .surrogate, .privateUse, .unassigned,
             .lineSeparator, .paragraphSeparator, .spaceSeparator:
            return false
        default:
            return true
        }
    }

    static func hex(_ v: UInt32, width: Int) -> String {
        let digits = String(v, radix: 16)
        return digits.count >= width ? digits : String(repeating: "0", count: width - digits.count) + digits
    }

    /// Python's `repr(float)`: the shortest round-tripping digits, in fixed notation when the
    /// decimal exponent is in [-4, 16), otherwise as `1e+16`.
    static func floatRepr(_ d: Double) -> String {
        if d.isNaN { return "nan" }
        if d.isInfinite { return d < 0 ? "-inf" : "inf" }
        if d == 0 { return d.sign == .minus ? "-0.0" : "0.0" }
        // Swift's description also prints the shortest round-tripping digits; only the layout differs.
        var text = "\(abs(d))"
        var exponent = 0
        if let e = text.firstIndex(where: { $0 == "e" || $0 == "E" }) {
            exponent = Int(text[text.index(after: e)...]) ?? 0
            text = String(text[..<e])
        }
        var digits = ""
        var pointPosition = 0
        var seenPoint = false
        for ch in text {
            if ch == "." { seenPoint = true; continue }
            digits.append(ch)
            if !seenPoint { pointPosition += 1 }
        }
        // Normalise to digits without leading/trailing zeros; decpt = position of the point.
        var decpt = pointPosition + exponent
        while digits.hasPrefix("0") && digits.count > 1 { digits.removeFirst(); decpt -= 1 }
        while digits.hasSuffix("0") && digits.count > 1 { digits.removeLast() }
        var out = d < 0 ? "-" : ""
        if decpt <= -4 || decpt > 16 {
            out += String(digits.first!)
            if digits.count > 1 { out += "." + digits.dropFirst() }
            let e = decpt - 1
            out += e < 0 ? "e-" : "e+"
            let mag = String(abs(e))
            out += mag.count < 2 ? "0" + mag : mag
        } else if decpt <= 0 {
            out += "0." + String(repeating: "0", count: -decpt) + digits
        } else if decpt >= digits.count {
            out += digits + String(repeating: "0", count: decpt - digits.count) + ".0"
        } else {
            let idx = digits.index(digits.startIndex, offsetBy: decpt)
            out += digits[..<idx] + "." + digits[idx...]
        }
        return out
    }

    /// markupsafe's `escape`: `& < > ' "` as entities.
    static func htmlEscape(_ s: String) -> String {
        guard s.utf8.contains(where: { $0 == 0x26 || $0 == 0x3C || $0 == 0x3E || $0 == 0x27 || $0 == 0x22 }) else { return s }
        var out = ""
        out.reserveCapacity(s.utf8.count + 16)
        for c in s.unicodeScalars {
            switch c {
            case "&": out += "&amp;"
            case "<": out += "&lt;"
            case ">": out += "&gt;"
            case "'": out += "&#39;"
            case "\"": out += "&#34;"
            default: out.unicodeScalars.append(c)
            }
        }
        return out
    }
}

/// Options of `json.dumps` as Hugging Face's `tojson` filter passes them.
struct PythonJSONOptions {
    var ensureASCII = false
    /// Indentation string per level; nil for single-line output.
    var indent: String?
    var itemSeparator: String
    var keySeparator: String
    var sortKeys = false

    init(ensureASCII: Bool = false, indent: String? = nil, separators: (String, String)? = nil, sortKeys: Bool = false) {
        self.ensureASCII = ensureASCII
        self.indent = indent
        // Python's defaults: ", " without indent, "," with one (no trailing spaces on lines).
        itemSeparator = separators?.0 ?? (indent == nil ? ", " : ",")
        keySeparator = separators?.1 ?? ": "
        self.sortKeys = sortKeys
    }
}

extension PythonFormat {
    /// `json.dumps(value, …)`.
    static func json(_ value: Value, _ options: PythonJSONOptions) throws(TemplateError) -> String {
        var out = ""
        try writeJSON(value, options, level: 0, into: &out)
        return out
    }

    private static func newline(_ options: PythonJSONOptions, _ level: Int, _ out: inout String) {
        guard let indent = options.indent else { return }
        out += "\n"
        for _ in 0..<level { out += indent }
    }

    private static func writeJSON(_ value: Value, _ options: PythonJSONOptions, level: Int, into out: inout String) throws(TemplateError) {
        if level > 256 { throw TemplateError(.limit, "value nested too deeply for tojson") }
        switch value {
        case .none: out += "null"
        case .bool(let b): out += b ? "true" : "false"
        case .int(let i): out += String(i)
        case .double(let d):
            if d.isNaN { out += "NaN" } else if d.isInfinite { out += d < 0 ? "-Infinity" : "Infinity" } else { out += floatRepr(d) }
        case .string(let s), .markup(let s): writeJSONString(s, ascii: options.ensureASCII, into: &out)
        case .list(let items), .tuple(let items):
            if items.isEmpty { out += "[]"; return }
            out += "["
            for (i, item) in items.enumerated() {
                if i > 0 { out += options.itemSeparator }
                newline(options, level + 1, &out)
                try writeJSON(item, options, level: level + 1, into: &out)
            }
            newline(options, level, &out)
            out += "]"
        case .dict(let d):
            if d.isEmpty { out += "{}"; return }
            out += "{"
            // json.dumps turns int, float, bool and None keys into strings.
            var keys: [String] = []
            for key in d.keys {
                switch key {
                case .string(let s), .markup(let s): keys.append(s)
                case .none: keys.append("null")
                case .bool(let b): keys.append(b ? "true" : "false")
                case .int(let i): keys.append(String(i))
                case .double(let x): keys.append(floatRepr(x))
                default: throw TemplateError(.type, "keys must be str, int, float, bool or None, not \(key.typeName)")
                }
            }
            var order = Array(0..<d.count)
            if options.sortKeys {
                for k in d.keys where k.stringValue == nil {
                    throw TemplateError(.type, "'<' not supported between instances of '\(k.typeName)' and 'str'")
                }
                order.sort { PythonString.less(keys[$0], keys[$1]) }
            }
            for (n, i) in order.enumerated() {
                if n > 0 { out += options.itemSeparator }
                newline(options, level + 1, &out)
                writeJSONString(keys[i], ascii: options.ensureASCII, into: &out)
                out += options.keySeparator
                try writeJSON(d.values[i], options, level: level + 1, into: &out)
            }
            newline(options, level, &out)
            out += "}"
        default:
            throw TemplateError(.type, "Object of type \(value.typeName) is not JSON serializable")
        }
    }

    /// A JSON string literal with Python's escapes (lowercase hex, surrogate pairs when ASCII-only):
    /// LoomJSON's writer escapes exactly as `json.dumps` does.
    static func writeJSONString(_ s: String, ascii: Bool, into out: inout String) {
        JSONValue.writeString(s, into: &out, options: JSONWriteOptions(asciiOnly: ascii))
    }
}
