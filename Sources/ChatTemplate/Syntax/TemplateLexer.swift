/// One lexical token of a template.
struct TemplateToken {
    enum Kind: Equatable {
        case text(String)
        case blockBegin, blockEnd, variableBegin, variableEnd
        case name(String)
        case string(String)
        case integer(Int)
        case float(Double)
        /// Punctuation and operators: `+ - * / // % ** ~ == != < <= > >= = ( ) [ ] { } , . : |`.
        case op(String)
        case end
    }
    let kind: Kind
    /// Byte offset in the normalised source, for error positions.
    let offset: Int
}

/// Splits template source into tokens with Jinja2's whitespace rules as Hugging Face configures
/// them: `trim_blocks` (the first newline after a block or comment tag is dropped),
/// `lstrip_blocks` (spaces and tabs before a block or comment tag at the start of a line are
/// dropped), `{%-`/`-%}` markers, `+` overrides, `{% raw %}`, and `keep_trailing_newline=False`.
struct TemplateLexer {
    /// The source after newline normalisation, as UTF-8.
    let bytes: [UInt8]
    private var pos = 0
    private(set) var tokens: [TemplateToken] = []

    init(source: String) {
        bytes = TemplateLexer.normalizeNewlines(source)
    }

    /// Python's `str.splitlines()` + `"\n".join(...)`: every line boundary becomes `\n` and one
    /// trailing boundary is dropped.
    static func normalizeNewlines(_ source: String) -> [UInt8] {
        // Fast path: no line break other than `\n` (no VT/FF/CR/FS/GS/RS, NEL, U+2028/U+2029).
        let bytes = Array(source.utf8)
        var plain = true
        for (i, b) in bytes.enumerated() {
            if (b >= 0x0B && b <= 0x0D) || (b >= 0x1C && b <= 0x1E) { plain = false; break }
            if b == 0xC2, i + 1 < bytes.count, bytes[i + 1] == 0x85 { plain = false; break }
            if b == 0xE2, i + 2 < bytes.count, bytes[i + 1] == 0x80, bytes[i + 2] == 0xA8 || bytes[i + 2] == 0xA9 { plain = false; break }
        }
        if plain {
            var out = bytes
            if out.last == 0x0A { out.removeLast() }
            return out
        }
        var out: [UInt8] = []
        out.reserveCapacity(source.utf8.count)
        var scalars = source.unicodeScalars.makeIterator()
        var pending: Unicode.Scalar? = scalars.next()
        while let c = pending {
            pending = scalars.next()
            switch c.value {
            case 0x0D:
                if pending == "\n" { pending = scalars.next() }
                out.append(0x0A)
            case 0x0A, 0x0B, 0x0C, 0x1C, 0x1D, 0x1E, 0x85, 0x2028, 0x2029:
                out.append(0x0A)
            default:
                out.append(contentsOf: String(c).utf8)
            }
        }
        if out.last == 0x0A { out.removeLast() }
        return out
    }

    /// 1-based line and column (in scalars) of a byte offset.
    func position(of offset: Int) -> (line: Int, column: Int) {
        var line = 1
        var lineStart = 0
        let end = min(offset, bytes.count)
        for i in 0..<end where bytes[i] == 0x0A {
            line += 1
            lineStart = i + 1
        }
        let column = bytes[lineStart..<end].reduce(0) { $0 + (($1 & 0xC0) == 0x80 ? 0 : 1) } + 1
        return (line, column)
    }

    func error(_ message: String, at offset: Int) -> TemplateError {
        let p = position(of: offset)
        return TemplateError(.syntax, message, line: p.line, column: p.column)
    }

    mutating func tokenize() throws(TemplateError) -> [TemplateToken] {
        let n = bytes.count
        while pos < n {
            guard let open = findTagOpen(from: pos) else {
                emitText(pos, n)
                break
            }
            let kind = bytes[open + 1]
            var cursor = open + 2
            var marker: UInt8 = 0
            if cursor < n, bytes[cursor] == UInt8(ascii: "-") || bytes[cursor] == UInt8(ascii: "+") {
                marker = bytes[cursor]
                cursor += 1
            }
            // Whitespace control on the text before the tag.
            var textEnd = open
            if marker == UInt8(ascii: "-") {
                textEnd = rstripEnd(pos, open)
            } else if marker != UInt8(ascii: "+") && kind != UInt8(ascii: "{") {
                textEnd = lstripBlocksEnd(pos, open)
            }
            if kind == UInt8(ascii: "%"), let rawEnd = try lexRaw(open: open, after: cursor, textStart: pos, textEnd: textEnd) {
                pos = rawEnd
                continue
            }
            emitText(pos, textEnd)
            switch kind {
            case UInt8(ascii: "#"):
                pos = try skipComment(open: open, from: cursor)
            case UInt8(ascii: "{"):
                tokens.append(TemplateToken(kind: .variableBegin, offset: open))
                pos = cursor
                try lexExpression(closer: UInt8(ascii: "}"), open: open)
            default:
                tokens.append(TemplateToken(kind: .blockBegin, offset: open))
                pos = cursor
                try lexExpression(closer: UInt8(ascii: "%"), open: open)
            }
        }
        tokens.append(TemplateToken(kind: .end, offset: n))
        return tokens
    }

    private func findTagOpen(from start: Int) -> Int? {
        var i = start
        let n = bytes.count
        while i + 1 < n {
            if bytes[i] == UInt8(ascii: "{") {
                let c = bytes[i + 1]
                if c == UInt8(ascii: "{") || c == UInt8(ascii: "%") || c == UInt8(ascii: "#") { return i }
            }
            i += 1
        }
        return nil
    }

    private mutating func emitText(_ start: Int, _ end: Int) {
        guard end > start else { return }
        tokens.append(TemplateToken(kind: .text(String(decoding: bytes[start..<end], as: UTF8.self)), offset: start))
    }

    /// End of `bytes[start..<end]` with trailing whitespace removed (Python `str.rstrip()`).
    private func rstripEnd(_ start: Int, _ end: Int) -> Int {
        let text = String(decoding: bytes[start..<end], as: UTF8.self)
        var scalars = Array(text.unicodeScalars)
        while let last = scalars.last, PythonString.isSpace(last) { scalars.removeLast() }
        var count = 0
        for s in scalars { count += String(s).utf8.count }
        return start + count
    }

    /// `lstrip_blocks`: drop spaces/tabs between the last line start and a block or comment tag.
    private func lstripBlocksEnd(_ start: Int, _ end: Int) -> Int {
        var lineStart = end
        while lineStart > start, bytes[lineStart - 1] != 0x0A { lineStart -= 1 }
        if lineStart == end { return end }
        // Without a newline in the text, strip only if the text itself starts a line.
        if lineStart == start && !(start == 0 || bytes[start - 1] == 0x0A) { return end }
        let tail = String(decoding: bytes[lineStart..<end], as: UTF8.self)
        return tail.unicodeScalars.allSatisfy(PythonString.isSpace) ? lineStart : end
    }

    /// After a closing delimiter: `-` strips all following whitespace; block and comment tags
    /// drop one newline (`trim_blocks`) unless `+` says otherwise.
    private mutating func afterClose(marker: UInt8, trims: Bool) {
        let n = bytes.count
        if marker == UInt8(ascii: "-") {
            while pos < n {
                let b = bytes[pos]
                if b == 0x20 || b == 0x09 || b == 0x0A || b == 0x0B || b == 0x0C || b == 0x0D {
                    pos += 1
                } else if b >= 0x80 {
                    // Non-ASCII whitespace (NBSP, ideographic space, …) counts for Python's `\s`.
                    var len = 1
                    while pos + len < n, (bytes[pos + len] & 0xC0) == 0x80 { len += 1 }
                    let s = String(decoding: bytes[pos..<(pos + len)], as: UTF8.self)
                    if let scalar = s.unicodeScalars.first, PythonString.isSpace(scalar) { pos += len } else { break }
                } else {
                    break
                }
            }
        } else if trims && marker != UInt8(ascii: "+") && pos < n && bytes[pos] == 0x0A {
            pos += 1
        }
    }

    private mutating func skipComment(open: Int, from start: Int) throws(TemplateError) -> Int {
        var i = start
        let n = bytes.count
        while i + 1 < n {
            if bytes[i] == UInt8(ascii: "#") && bytes[i + 1] == UInt8(ascii: "}") {
                var marker: UInt8 = 0
                if i > start, bytes[i - 1] == UInt8(ascii: "-") || bytes[i - 1] == UInt8(ascii: "+") { marker = bytes[i - 1] }
                pos = i + 2
                afterClose(marker: marker, trims: true)
                return pos
            }
            i += 1
        }
        throw error("missing end of comment tag", at: open)
    }

    /// `{% raw %}…{% endraw %}`: returns the position after the raw block, or nil if the tag is not `raw`.
    private mutating func lexRaw(open: Int, after start: Int, textStart: Int, textEnd: Int) throws(TemplateError) -> Int? {
        var i = skipSpaces(start)
        guard matchWord("raw", at: i) else { return nil }
        i = skipSpaces(i + 3)
        var marker: UInt8 = 0
        if i < bytes.count, bytes[i] == UInt8(ascii: "-") || bytes[i] == UInt8(ascii: "+") { marker = bytes[i]; i += 1 }
        guard i + 1 < bytes.count, bytes[i] == UInt8(ascii: "%"), bytes[i + 1] == UInt8(ascii: "}") else { return nil }
        emitText(textStart, textEnd)
        pos = i + 2
        // Jinja2's raw-begin rule has no trim_blocks suffix: a newline after `{% raw %}` stays.
        afterClose(marker: marker, trims: false)
        let bodyStart = pos
        var j = bodyStart
        while let tag = findTagOpen(from: j) {
            j = tag + 1
            guard bytes[tag + 1] == UInt8(ascii: "%") else { continue }
            var k = tag + 2
            var innerMarker: UInt8 = 0
            if k < bytes.count, bytes[k] == UInt8(ascii: "-") || bytes[k] == UInt8(ascii: "+") { innerMarker = bytes[k]; k += 1 }
            k = skipSpaces(k)
            guard matchWord("endraw", at: k) else { continue }
            k = skipSpaces(k + 6)
            var closeMarker: UInt8 = 0
            if k < bytes.count, bytes[k] == UInt8(ascii: "-") || bytes[k] == UInt8(ascii: "+") { closeMarker = bytes[k]; k += 1 }
            guard k + 1 < bytes.count, bytes[k] == UInt8(ascii: "%"), bytes[k + 1] == UInt8(ascii: "}") else { continue }
            // The raw text before `{% endraw %}` gets the same whitespace control as any text.
            let bodyEnd = innerMarker == UInt8(ascii: "-") ? rstripEnd(bodyStart, tag)
                : innerMarker == UInt8(ascii: "+") ? tag : lstripBlocksEnd(bodyStart, tag)
            emitText(bodyStart, bodyEnd)
            pos = k + 2
            afterClose(marker: closeMarker, trims: true)
            return pos
        }
        throw error("missing end of raw directive", at: open)
    }

    private func skipSpaces(_ start: Int) -> Int {
        var i = start
        while i < bytes.count, bytes[i] == 0x20 || bytes[i] == 0x09 || bytes[i] == 0x0A || bytes[i] == 0x0D { i += 1 }
        return i
    }

    private func matchWord(_ word: String, at i: Int) -> Bool {
        let w = Array(word.utf8)
        guard i + w.count <= bytes.count, Array(bytes[i..<(i + w.count)]) == w else { return false }
        let after = i + w.count
        return after >= bytes.count || !TemplateLexer.isNameByte(bytes[after])
    }

    static func isNameStart(_ b: UInt8) -> Bool {
        (b >= 0x61 && b <= 0x7A) || (b >= 0x41 && b <= 0x5A) || b == 0x5F
    }

    static func isNameByte(_ b: UInt8) -> Bool { isNameStart(b) || (b >= 0x30 && b <= 0x39) }

    /// Tokens inside `{{ … }}` or `{% … %}` up to the closing delimiter.
    private mutating func lexExpression(closer: UInt8, open: Int) throws(TemplateError) {
        let n = bytes.count
        let isBlock = closer == UInt8(ascii: "%")
        var depth = 0
        while true {
            while pos < n, bytes[pos] == 0x20 || bytes[pos] == 0x09 || bytes[pos] == 0x0A || bytes[pos] == 0x0D { pos += 1 }
            guard pos < n else {
                throw error(isBlock ? "unexpected end of template, expected end of block tag '%}'" : "unexpected end of template, expected '}}'", at: open)
            }
            let b = bytes[pos]
            // Closing delimiter, possibly with a whitespace-control marker.
            // Inside brackets a closing delimiter is punctuation (`{{ {'a': {'b': 1}} }}`).
            if depth == 0 {
                var k = pos
                var marker: UInt8 = 0
                if b == UInt8(ascii: "-") || b == UInt8(ascii: "+") { marker = b; k += 1 }
                if k + 1 < n, bytes[k] == closer, bytes[k + 1] == UInt8(ascii: "}") {
                    tokens.append(TemplateToken(kind: isBlock ? .blockEnd : .variableEnd, offset: pos))
                    pos = k + 2
                    afterClose(marker: marker, trims: isBlock)
                    return
                }
            }
            let start = pos
            if TemplateLexer.isNameStart(b) {
                while pos < n, TemplateLexer.isNameByte(bytes[pos]) { pos += 1 }
                tokens.append(TemplateToken(kind: .name(String(decoding: bytes[start..<pos], as: UTF8.self)), offset: start))
            } else if b >= 0x30 && b <= 0x39 {
                try lexNumber()
            } else if b == UInt8(ascii: "'") || b == UInt8(ascii: "\"") {
                try lexString(quote: b)
            } else {
                let two = pos + 1 < n ? String(decoding: bytes[pos..<(pos + 2)], as: UTF8.self) : ""
                if ["//", "**", "==", "!=", "<=", ">="].contains(two) {
                    tokens.append(TemplateToken(kind: .op(two), offset: pos))
                    pos += 2
                } else if "+-*/%~<>=()[]{},.:|".utf8.contains(b) {
                    if b == UInt8(ascii: "(") || b == UInt8(ascii: "[") || b == UInt8(ascii: "{") { depth += 1 }
                    if b == UInt8(ascii: ")") || b == UInt8(ascii: "]") || b == UInt8(ascii: "}") { depth = max(0, depth - 1) }
                    tokens.append(TemplateToken(kind: .op(String(UnicodeScalar(b))), offset: pos))
                    pos += 1
                } else {
                    throw error("unexpected char '\(String(decoding: bytes[pos..<min(n, pos + 1)], as: UTF8.self))'", at: pos)
                }
            }
        }
    }

    private mutating func lexNumber() throws(TemplateError) {
        let n = bytes.count
        let start = pos
        func digits() { while pos < n, (bytes[pos] >= 0x30 && bytes[pos] <= 0x39) || (bytes[pos] == 0x5F && pos + 1 < n && bytes[pos + 1] >= 0x30 && bytes[pos + 1] <= 0x39) { pos += 1 } }
        digits()
        var isFloat = false
        // After `.` (attribute position, e.g. `x.0`) a number is an integer index only.
        let afterDot: Bool = { if case .op(".")? = tokens.last?.kind { return true }; return false }()
        if !afterDot {
            if pos + 1 < n, bytes[pos] == UInt8(ascii: "."), bytes[pos + 1] >= 0x30 && bytes[pos + 1] <= 0x39 {
                isFloat = true
                pos += 1
                digits()
            }
            if pos < n, bytes[pos] == UInt8(ascii: "e") || bytes[pos] == UInt8(ascii: "E") {
                var k = pos + 1
                if k < n, bytes[k] == UInt8(ascii: "+") || bytes[k] == UInt8(ascii: "-") { k += 1 }
                if k < n, bytes[k] >= 0x30 && bytes[k] <= 0x39 {
                    isFloat = true
                    pos = k
                    digits()
                }
            }
        }
        let text = PythonString.removingDigitSeparators(String(decoding: bytes[start..<pos], as: UTF8.self))
        if isFloat {
            guard let d = Double(text) else { throw error("invalid number '\(text)'", at: start) }
            tokens.append(TemplateToken(kind: .float(d), offset: start))
        } else {
            guard let i = Int(text) else { throw error("integer literal '\(text)' is too large", at: start) }
            tokens.append(TemplateToken(kind: .integer(i), offset: start))
        }
    }

    private mutating func lexString(quote: UInt8) throws(TemplateError) {
        let n = bytes.count
        let start = pos
        pos += 1
        var raw: [UInt8] = []
        while pos < n, bytes[pos] != quote {
            if bytes[pos] == UInt8(ascii: "\\"), pos + 1 < n {
                raw.append(bytes[pos])
                pos += 1
            }
            raw.append(bytes[pos])
            pos += 1
        }
        guard pos < n else { throw error("unexpected end of string", at: start) }
        pos += 1
        tokens.append(TemplateToken(kind: .string(TemplateLexer.unescape(raw)), offset: start))
    }

    /// Python's `unicode-escape` decoding as Jinja2 applies it to string literals; unknown
    /// escapes stay as written.
    static func unescape(_ raw: [UInt8]) -> String {
        guard raw.contains(UInt8(ascii: "\\")) else { return String(decoding: raw, as: UTF8.self) }
        let scalars = Array(String(decoding: raw, as: UTF8.self).unicodeScalars)
        var out = String.UnicodeScalarView()
        var i = 0
        // `i` sits on the escape letter; the digits follow it.
        func hexValue(_ count: Int) -> UInt32? {
            guard i + count < scalars.count else { return nil }
            var v: UInt32 = 0
            for k in 1...count {
                guard let d = UInt32(String(scalars[i + k]), radix: 16) else { return nil }
                v = v * 16 + d
            }
            return v
        }
        while i < scalars.count {
            let c = scalars[i]
            guard c == "\\", i + 1 < scalars.count else { out.append(c); i += 1; continue }
            let e = scalars[i + 1]
            switch e {
            case "\\": out.append("\\"); i += 2
            case "'": out.append("'"); i += 2
            case "\"": out.append("\""); i += 2
            case "a": out.append("\u{07}"); i += 2
            case "b": out.append("\u{08}"); i += 2
            case "f": out.append("\u{0C}"); i += 2
            case "n": out.append("\n"); i += 2
            case "r": out.append("\r"); i += 2
            case "t": out.append("\t"); i += 2
            case "v": out.append("\u{0B}"); i += 2
            case "\n": i += 2
            case "x", "u", "U":
                let count = e == "x" ? 2 : (e == "u" ? 4 : 8)
                i += 1
                if let v = hexValue(count), let s = Unicode.Scalar(v) {
                    out.append(s)
                    i += count + 1
                } else {
                    out.append("\\")
                }
            case "0"..."7":
                var v: UInt32 = 0
                var k = i + 1
                while k < scalars.count, k < i + 4, let d = UInt32(String(scalars[k]), radix: 8) { v = v * 8 + d; k += 1 }
                out.append(Unicode.Scalar(v) ?? "\u{FFFD}")
                i = k
            default:
                out.append("\\")
                i += 1
            }
        }
        return String(out)
    }
}
