#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Python's string formatting: `str.format` with the format-spec mini-language, and `%`.
enum PythonFormatSpec {
    /// A parsed `[[fill]align][sign][#][0][width][,|_][.precision][type]`.
    struct Spec {
        var fill: Unicode.Scalar = " "
        var align: Character?
        var sign: Character = "-"
        var alternate = false
        var width = 0
        var grouping: Character?
        var precision: Int?
        var type: Character?

        /// Widths beyond this would only serve to exhaust memory.
        static let maximumWidth = 10_000_000

        init(_ text: String) throws(TemplateError) {
            let c = Array(text.unicodeScalars)
            var i = 0
            func isAlign(_ s: Unicode.Scalar) -> Bool { s == "<" || s == ">" || s == "^" || s == "=" }
            if c.count >= 2 && isAlign(c[1]) {
                fill = c[0]; align = Character(c[1]); i = 2
            } else if !c.isEmpty && isAlign(c[0]) {
                align = Character(c[0]); i = 1
            }
            if i < c.count, c[i] == "+" || c[i] == "-" || c[i] == " " { sign = Character(c[i]); i += 1 }
            if i < c.count, c[i] == "#" { alternate = true; i += 1 }
            if i < c.count, c[i] == "0" {
                if align == nil { fill = "0"; align = "=" }
                i += 1
            }
            var w = 0
            while i < c.count, let d = Int(String(c[i])), c[i].isASCII { w = min(w * 10 + d, Spec.maximumWidth + 1); i += 1 }
            if w > Spec.maximumWidth { throw TemplateError(.limit, "format width too large") }
            width = w
            if i < c.count, c[i] == "," || c[i] == "_" { grouping = Character(c[i]); i += 1 }
            if i < c.count, c[i] == "." {
                i += 1
                var p = 0
                var any = false
                while i < c.count, let d = Int(String(c[i])), c[i].isASCII { p = min(p * 10 + d, Spec.maximumWidth + 1); i += 1; any = true }
                guard any else { throw TemplateError.value("Format specifier missing precision") }
                if p > 10_000 { throw TemplateError(.limit, "format precision too large") }
                precision = p
            }
            if i < c.count { type = Character(c[i]); i += 1 }
            if i < c.count { throw TemplateError.value("Invalid format specifier '\(text)'") }
        }
    }

    /// `printf`-style formatting of one number through the C library (same digits as Python).
    static func cFormat(_ format: String, _ value: Double) -> String {
        var buffer = [CChar](repeating: 0, count: 512)
        let n = withVaList([value]) { vsnprintf(&buffer, buffer.count, format, $0) }
        if n >= buffer.count {
            buffer = [CChar](repeating: 0, count: Int(n) + 1)
            _ = withVaList([value]) { vsnprintf(&buffer, buffer.count, format, $0) }
        }
        return String(decoding: buffer.prefix(while: { $0 != 0 }).map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }

    private static func group(_ digits: String, _ separator: Character) -> String {
        var out: [Character] = []
        for (i, ch) in digits.reversed().enumerated() {
            if i > 0 && i % 3 == 0 { out.append(separator) }
            out.append(ch)
        }
        return String(out.reversed())
    }

    /// `format(value, spec)`.
    static func formatValue(_ value: Value, _ specText: String) throws(TemplateError) -> String {
        if specText.isEmpty { return PythonFormat.str(value) }
        let spec = try Spec(specText)
        var body: String
        var signText = ""
        var defaultAlign: Character = ">"
        switch value {
        case .string(let s), .markup(let s):
            guard spec.type == nil || spec.type == "s" else {
                throw TemplateError.value("Unknown format code '\(spec.type!)' for object of type 'str'")
            }
            body = s
            if let p = spec.precision { body = PythonString.string(s.unicodeScalars.prefix(p)) }
            defaultAlign = "<"
        case .int, .bool, .double:
            var number = value.numeric!
            var type = spec.type
            if case .int = number, let t = type, "eEfFgG%".contains(t) { number = .double(number.asDouble) }
            if case .double = number, let t = type, "dxXobc".contains(t) {
                throw TemplateError.value("Unknown format code '\(t)' for object of type 'float'")
            }
            switch number {
            case .int(let i):
                let magnitude = i.magnitude
                switch type {
                case "x": body = String(magnitude, radix: 16); if spec.alternate { body = "0x" + body }
                case "X": body = String(magnitude, radix: 16).uppercased(); if spec.alternate { body = "0X" + body }
                case "o": body = String(magnitude, radix: 8); if spec.alternate { body = "0o" + body }
                case "b": body = String(magnitude, radix: 2); if spec.alternate { body = "0b" + body }
                case "c":
                    guard let s = Unicode.Scalar(UInt32(truncatingIfNeeded: i)) else { throw TemplateError(.arithmetic, "%c arg not in range(0x110000)") }
                    body = String(s)
                default:
                    body = String(magnitude)
                    if let g = spec.grouping { body = group(body, g) }
                }
                if i < 0 { signText = "-" } else if spec.sign == "+" { signText = "+" } else if spec.sign == " " { signText = " " }
            case .double(let d):
                if type == nil && spec.precision == nil {
                    body = PythonFormat.floatRepr(abs(d))
                } else {
                    if type == nil { type = "g" }
                    let precision = spec.precision ?? 6
                    switch type! {
                    case "%": body = cFormat("%.\(precision)f", abs(d) * 100) + "%"
                    case "f", "F", "e", "E", "g", "G":
                        body = cFormat("%\(spec.alternate ? "#" : "").\(precision)\(type!)", abs(d))
                    default:
                        throw TemplateError.value("Unknown format code '\(type!)' for object of type 'float'")
                    }
                    if let g = spec.grouping {
                        let parts = body.split(separator: ".", maxSplits: 1)
                        body = group(String(parts[0]), g) + (parts.count > 1 ? "." + parts[1] : "")
                    }
                }
                if d.sign == .minus && !d.isNaN { signText = "-" } else if spec.sign == "+" { signText = "+" } else if spec.sign == " " { signText = " " }
            }
        default:
            if spec.type != nil && spec.type != "s" {
                throw TemplateError.type("unsupported format string passed to \(value.typeName).__format__")
            }
            body = PythonFormat.str(value)
            defaultAlign = "<"
        }
        let align = spec.align ?? defaultAlign
        if align == "=" {
            let padded = PythonString.pad(body, width: spec.width - PythonString.length(signText), align: ">", fill: spec.fill)
            return signText + padded
        }
        return PythonString.pad(signText + body, width: spec.width, align: align, fill: spec.fill)
    }

    /// `str.format(*args, **kwargs)`.
    static func format(_ template: String, _ args: EvaluatedArguments, interpreter: TemplateInterpreter) throws(TemplateError) -> String {
        let c = Array(template.unicodeScalars)
        var out = ""
        var i = 0
        var autoIndex = 0
        while i < c.count {
            let ch = c[i]
            if ch == "{" {
                if i + 1 < c.count && c[i + 1] == "{" { out += "{"; i += 2; continue }
                var j = i + 1
                var depth = 1
                while j < c.count {
                    if c[j] == "{" { depth += 1 } else if c[j] == "}" { depth -= 1; if depth == 0 { break } }
                    j += 1
                }
                guard j < c.count else { throw TemplateError.value("expected '}' before end of string") }
                let field = PythonString.string(c[(i + 1)..<j])
                out += try formatField(field, args, &autoIndex, interpreter)
                i = j + 1
            } else if ch == "}" {
                guard i + 1 < c.count && c[i + 1] == "}" else { throw TemplateError.value("Single '}' encountered in format string") }
                out += "}"
                i += 2
            } else {
                out.unicodeScalars.append(ch)
                i += 1
            }
        }
        return out
    }

    private static func formatField(_ field: String, _ args: EvaluatedArguments, _ autoIndex: inout Int,
                                     _ interpreter: TemplateInterpreter) throws(TemplateError) -> String {
        var name = field
        var spec = ""
        var conversion: Character?
        if let colon = name.firstIndex(of: ":") {
            spec = String(name[name.index(after: colon)...])
            name = String(name[..<colon])
        }
        if let bang = name.firstIndex(of: "!") {
            conversion = name[name.index(after: bang)...].first
            name = String(name[..<bang])
        }
        // The first part names the argument; `.attr` and `[key]` follow.
        var headEnd = name.endIndex
        if let k = name.firstIndex(where: { $0 == "." || $0 == "[" }) { headEnd = k }
        let head = String(name[..<headEnd])
        var value: Value
        if head.isEmpty {
            guard autoIndex < args.positional.count else {
                throw TemplateError(.value, "Replacement index \(autoIndex) out of range for positional args tuple")
            }
            value = args.positional[autoIndex]
            autoIndex += 1
        } else if let n = Int(head) {
            guard n < args.positional.count else {
                throw TemplateError(.value, "Replacement index \(n) out of range for positional args tuple")
            }
            value = args.positional[n]
        } else {
            guard let v = args.keyword.first(where: { $0.0 == head })?.1 else { throw TemplateError(.value, "KeyError: '\(head)'") }
            value = v
        }
        var rest = name[headEnd...]
        while let first = rest.first {
            if first == "." {
                rest = rest.dropFirst()
                let end = rest.firstIndex(where: { $0 == "." || $0 == "[" }) ?? rest.endIndex
                value = try interpreter.attribute(of: value, String(rest[..<end]))
                rest = rest[end...]
            } else if first == "[" {
                guard let close = rest.firstIndex(of: "]") else { throw TemplateError.value("Missing ']' in format string") }
                let key = String(rest[rest.index(after: rest.startIndex)..<close])
                value = try interpreter.item(of: value, Int(key).map { .int($0) } ?? .string(key))
                rest = rest[rest.index(after: close)...]
            } else {
                throw TemplateError.value("Only '.' or '[' may follow ']' in format field specifier")
            }
        }
        if case .undefined(let u) = value { throw u.error }
        switch conversion {
        case "r"?, "a"?: value = .string(PythonFormat.repr(value))
        case "s"?: value = .string(PythonFormat.str(value))
        default: break
        }
        return try formatValue(value, spec)
    }

    /// `format % args` (printf-style).
    static func percentFormat(_ format: String, _ args: Value) throws(TemplateError) -> String {
        var positional: [Value]
        var mapping: PyDict?
        switch args {
        case .tuple(let items): positional = items
        case .dict(let d): positional = [args]; mapping = d
        default: positional = [args]
        }
        let c = Array(format.unicodeScalars)
        var out = ""
        var i = 0
        var next = 0
        var usedMapping = false
        while i < c.count {
            guard c[i] == "%" else { out.unicodeScalars.append(c[i]); i += 1; continue }
            i += 1
            guard i < c.count else { throw TemplateError.value("incomplete format") }
            var key: String?
            if c[i] == "(" {
                var j = i + 1
                while j < c.count && c[j] != ")" { j += 1 }
                guard j < c.count else { throw TemplateError.value("incomplete format key") }
                key = PythonString.string(c[(i + 1)..<j])
                i = j + 1
            }
            var flags = ""
            while i < c.count, "-+ #0".unicodeScalars.contains(c[i]) { flags.unicodeScalars.append(c[i]); i += 1 }
            var width = ""
            while i < c.count, c[i].properties.numericType == .decimal, c[i].isASCII { width.unicodeScalars.append(c[i]); i += 1 }
            var precision: String?
            if i < c.count, c[i] == "." {
                i += 1
                var p = ""
                while i < c.count, c[i].properties.numericType == .decimal, c[i].isASCII { p.unicodeScalars.append(c[i]); i += 1 }
                precision = p.isEmpty ? "0" : p
            }
            while i < c.count, c[i] == "l" || c[i] == "h" || c[i] == "L" { i += 1 }
            guard i < c.count else { throw TemplateError.value("incomplete format") }
            let type = Character(c[i])
            i += 1
            if type == "%" { out += "%"; continue }
            let value: Value
            if let key {
                guard let mapping else { throw TemplateError.type("format requires a mapping") }
                guard let v = mapping[key] else { throw TemplateError(.value, "KeyError: '\(key)'") }
                value = v
                usedMapping = true
            } else {
                guard next < positional.count else { throw TemplateError.type("not enough arguments for format string") }
                value = positional[next]
                next += 1
            }
            var spec = ""
            var fill = " "
            var align = ">"
            if flags.contains("-") { align = "<" } else if flags.contains("0") && type != "s" && type != "r" { fill = "0"; align = "=" }
            if flags.contains("+") { spec += "+" } else if flags.contains(" ") { spec += " " }
            if flags.contains("#") { spec += "#" }
            let specType: String
            switch type {
            case "s": specType = ""
            case "r", "a": specType = ""
            case "d", "i", "u":
                specType = "d"
                if value.numeric == nil { throw TemplateError.type("%\(type) format: a real number is required, not \(value.typeName)") }
            case "x", "X", "o", "e", "E", "f", "F", "g", "G", "c": specType = String(type)
            default: throw TemplateError.value("unsupported format character '\(type)'")
            }
            var v = value
            if type == "s" { v = .string(PythonFormat.str(value)) }
            if type == "r" || type == "a" { v = .string(PythonFormat.repr(value)) }
            if specType == "d", case .double(let d) = v {
                guard d.isFinite, abs(d) < 9.2e18 else { throw TemplateError(.arithmetic, "cannot convert float \(PythonFormat.floatRepr(d)) to integer") }
                v = .int(Int(d))
            }
            let text = try formatValue(v, fill == "0" ? "0\(align)\(spec)\(width)\(precision.map { "." + $0 } ?? "")\(specType)"
                : "\(align)\(spec)\(width)\(precision.map { "." + $0 } ?? "")\(specType)")
            out += text
        }
        // Python skips the "unused arguments" check when the operand supports subscripting
        // (a list, dict or range): it may be meant as a mapping.
        var subscriptable = false
        switch args {
        case .list, .dict, .range: subscriptable = true
        default: break
        }
        if !usedMapping && !subscriptable && next < positional.count {
            throw TemplateError.type("not all arguments converted during string formatting")
        }
        return out
    }
}
