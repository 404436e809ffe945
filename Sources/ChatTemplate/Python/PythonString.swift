/// Python `str` operations with code-point semantics.
///
/// Swift's `String` compares and searches by grapheme clusters with canonical equivalence,
/// which differs from Python (`"e\u{301}" != "é"` there). Searching is done on UTF-8 bytes,
/// which matches code-point semantics exactly because UTF-8 is self-synchronising; positions
/// returned to templates are counted in code points.
enum PythonString {
    /// Python's `str.isspace` for one character.
    static func isSpace(_ c: Unicode.Scalar) -> Bool {
        switch c.value {
        case 0x09...0x0D, 0x1C...0x20, 0x85, 0xA0, 0x1680, 0x2000...0x200A, 0x2028, 0x2029, 0x202F, 0x205F, 0x3000:
            return true
        default:
            return false
        }
    }

    /// Number of code points.
    static func length(_ s: String) -> Int { s.unicodeScalars.count }

    /// Code points of `s` as an array (for indexing and slicing).
    static func scalars(_ s: String) -> [Unicode.Scalar] { Array(s.unicodeScalars) }

    static func string(_ scalars: some Sequence<Unicode.Scalar>) -> String {
        var v = String.UnicodeScalarView()
        v.append(contentsOf: scalars)
        return String(v)
    }

    static func equal(_ a: String, _ b: String) -> Bool { a.utf8.elementsEqual(b.utf8) }

    /// Code-point order, which for UTF-8 equals byte order.
    static func less(_ a: String, _ b: String) -> Bool { a.utf8.lexicographicallyPrecedes(b.utf8) }

    static func hasPrefix(_ s: String, _ p: String) -> Bool { s.utf8.starts(with: p.utf8) }

    static func hasSuffix(_ s: String, _ p: String) -> Bool {
        let a = s.utf8, b = p.utf8
        guard b.count <= a.count else { return false }
        return a.suffix(b.count).elementsEqual(b)
    }

    /// Byte offset of `needle` in `haystack` at or after `from`.
    static func find(_ haystack: [UInt8], _ needle: [UInt8], from: Int = 0) -> Int? {
        let n = haystack.count, m = needle.count
        if m == 0 { return from <= n ? from : nil }
        guard m <= n else { return nil }
        let first = needle[0]
        var i = from
        while i <= n - m {
            if haystack[i] == first {
                var k = 1
                while k < m && haystack[i + k] == needle[k] { k += 1 }
                if k == m { return i }
            }
            i += 1
        }
        return nil
    }

    static func rfind(_ haystack: [UInt8], _ needle: [UInt8]) -> Int? {
        let n = haystack.count, m = needle.count
        guard m <= n else { return nil }
        var i = n - m
        while i >= 0 {
            if haystack[i..<(i + m)].elementsEqual(needle) { return i }
            i -= 1
        }
        return nil
    }

    static func contains(_ s: String, _ sub: String) -> Bool {
        find(Array(s.utf8), Array(sub.utf8)) != nil
    }

    /// Code points in `bytes[..<offset]`.
    static func scalarIndex(_ bytes: [UInt8], _ offset: Int) -> Int {
        var count = 0
        for i in 0..<offset where (bytes[i] & 0xC0) != 0x80 { count += 1 }
        return count
    }

    /// `str.replace(old, new, count)`.
    static func replace(_ s: String, _ old: String, _ new: String, count: Int = -1) -> String {
        if count == 0 { return s }
        if old.isEmpty {
            var out = ""
            var done = 0
            for c in s.unicodeScalars {
                if count < 0 || done < count { out += new; done += 1 }
                out.unicodeScalars.append(c)
            }
            if count < 0 || done < count { out += new }
            return out
        }
        let hay = Array(s.utf8), needle = Array(old.utf8)
        var out: [UInt8] = []
        out.reserveCapacity(hay.count)
        var pos = 0
        var done = 0
        while count < 0 || done < count, let hit = find(hay, needle, from: pos) {
            out.append(contentsOf: hay[pos..<hit])
            out.append(contentsOf: new.utf8)
            pos = hit + needle.count
            done += 1
        }
        if done == 0 { return s }
        out.append(contentsOf: hay[pos...])
        return String(decoding: out, as: UTF8.self)
    }

    /// `str.strip/lstrip/rstrip(chars)`.
    static func strip(_ s: String, chars: String?, left: Bool, right: Bool) -> String {
        let set = chars.map { Set($0.unicodeScalars.map(\.value)) }
        func strippable(_ c: Unicode.Scalar) -> Bool { set.map { $0.contains(c.value) } ?? isSpace(c) }
        let view = s.unicodeScalars
        var start = view.startIndex, end = view.endIndex
        if left { while start < end, strippable(view[start]) { start = view.index(after: start) } }
        if right {
            while end > start {
                let prev = view.index(before: end)
                if strippable(view[prev]) { end = prev } else { break }
            }
        }
        if start == view.startIndex && end == view.endIndex { return s }
        return String(view[start..<end])
    }

    /// `str.split(sep, maxsplit)`.
    static func split(_ s: String, separator: String?, maxSplit: Int = -1) throws(TemplateError) -> [String] {
        guard let separator else {
            var parts: [String] = []
            var current = String.UnicodeScalarView()
            var inWord = false
            var splits = 0
            let scalars = Array(s.unicodeScalars)
            var i = 0
            while i < scalars.count {
                let c = scalars[i]
                if isSpace(c) {
                    if inWord {
                        parts.append(String(current))
                        current = String.UnicodeScalarView()
                        inWord = false
                        splits += 1
                        if maxSplit >= 0 && splits >= maxSplit {
                            // The rest, without leading whitespace, is the last part.
                            while i < scalars.count, isSpace(scalars[i]) { i += 1 }
                            if i < scalars.count { parts.append(string(scalars[i...])) }
                            return parts
                        }
                    }
                } else {
                    current.append(c)
                    inWord = true
                }
                i += 1
            }
            if inWord { parts.append(String(current)) }
            return parts
        }
        guard !separator.isEmpty else { throw TemplateError.value("empty separator") }
        let hay = Array(s.utf8), needle = Array(separator.utf8)
        var parts: [String] = []
        var pos = 0
        while maxSplit < 0 || parts.count < maxSplit, let hit = find(hay, needle, from: pos) {
            parts.append(String(decoding: hay[pos..<hit], as: UTF8.self))
            pos = hit + needle.count
        }
        parts.append(String(decoding: hay[pos...], as: UTF8.self))
        return parts
    }

    /// `str.rsplit(sep, maxsplit)`.
    static func rsplit(_ s: String, separator: String?, maxSplit: Int = -1) throws(TemplateError) -> [String] {
        if maxSplit < 0 { return try split(s, separator: separator) }
        guard let separator else {
            let reversed = string(s.unicodeScalars.reversed())
            return try split(reversed, separator: nil, maxSplit: maxSplit).reversed().map { string($0.unicodeScalars.reversed()) }
        }
        guard !separator.isEmpty else { throw TemplateError.value("empty separator") }
        var hay = Array(s.utf8)
        let needle = Array(separator.utf8)
        var parts: [String] = []
        while parts.count < maxSplit, let hit = rfind(hay, needle) {
            parts.append(String(decoding: hay[(hit + needle.count)...], as: UTF8.self))
            hay = Array(hay[..<hit])
        }
        parts.append(String(decoding: hay, as: UTF8.self))
        return parts.reversed()
    }

    /// `str.splitlines(keepends)`.
    static func splitLines(_ s: String, keepEnds: Bool = false) -> [String] {
        var lines: [String] = []
        let scalars = Array(s.unicodeScalars)
        var start = 0
        var i = 0
        while i < scalars.count {
            let c = scalars[i].value
            let isBreak = c == 0x0A || c == 0x0D || c == 0x0B || c == 0x0C || (0x1C...0x1E).contains(c) || c == 0x85 || c == 0x2028 || c == 0x2029
            if isBreak {
                var end = i + 1
                if c == 0x0D, end < scalars.count, scalars[end] == "\n" { end += 1 }
                lines.append(string(scalars[start..<(keepEnds ? end : i)]))
                start = end
                i = end
            } else {
                i += 1
            }
        }
        if start < scalars.count { lines.append(string(scalars[start...])) }
        return lines
    }

    static func upper(_ s: String) -> String { s.uppercased() }
    static func lower(_ s: String) -> String { s.lowercased() }

    /// A numeric literal's digits without the `_` separators Python allows between them.
    static func removingDigitSeparators(_ s: String) -> String {
        s.contains("_") ? String(s.filter { $0 != "_" }) : s
    }

    /// Python's `str.title()`.
    static func title(_ s: String) -> String {
        var out = ""
        var previousCased = false
        for c in s.unicodeScalars {
            let p = c.properties
            if p.isUppercase || p.generalCategory == .titlecaseLetter {
                out += previousCased ? p.lowercaseMapping : String(c)
                previousCased = true
            } else if p.isLowercase {
                out += previousCased ? String(c) : p.titlecaseMapping
                previousCased = true
            } else {
                out.unicodeScalars.append(c)
                previousCased = false
            }
        }
        return out
    }

    /// Python's `str.istitle()`: upper- and title-case characters only after uncased ones,
    /// lower-case ones only after cased ones, and at least one cased character.
    static func isTitle(_ s: String) -> Bool {
        var previousCased = false
        var cased = false
        for c in s.unicodeScalars {
            let p = c.properties
            if p.isUppercase || p.generalCategory == .titlecaseLetter {
                if previousCased { return false }
                previousCased = true
                cased = true
            } else if p.isLowercase {
                if !previousCased { return false }
                previousCased = true
                cased = true
            } else {
                previousCased = false
            }
        }
        return cased
    }

    /// Python's `str.capitalize()`: the first character in title case, the rest lower case.
    static func capitalize(_ s: String) -> String {
        guard let first = s.unicodeScalars.first else { return s }
        return first.properties.titlecaseMapping + string(s.unicodeScalars.dropFirst()).lowercased()
    }

    static func swapCase(_ s: String) -> String {
        var out = ""
        for c in s.unicodeScalars {
            if c.properties.isUppercase { out += c.properties.lowercaseMapping }
            else if c.properties.isLowercase { out += c.properties.uppercaseMapping }
            else { out.unicodeScalars.append(c) }
        }
        return out
    }

    /// Python's `str.isdigit`, `isalpha`, … over a non-empty string.
    static func all(_ s: String, _ predicate: (Unicode.Scalar) -> Bool) -> Bool {
        !s.isEmpty && s.unicodeScalars.allSatisfy(predicate)
    }

    static func isDigit(_ c: Unicode.Scalar) -> Bool {
        c.properties.numericType == .decimal || c.properties.numericType == .digit
    }

    static func isAlpha(_ c: Unicode.Scalar) -> Bool {
        switch c.properties.generalCategory {
        case .uppercaseLetter, .lowercaseLetter, .titlecaseLetter, .modifierLetter, .otherLetter: return true
        default: return false
        }
    }

    static func isUpperString(_ s: String) -> Bool {
        var cased = false
        for c in s.unicodeScalars {
            if c.properties.isLowercase || c.properties.generalCategory == .titlecaseLetter { return false }
            if c.properties.isUppercase { cased = true }
        }
        return cased
    }

    static func isLowerString(_ s: String) -> Bool {
        var cased = false
        for c in s.unicodeScalars {
            if c.properties.isUppercase || c.properties.generalCategory == .titlecaseLetter { return false }
            if c.properties.isLowercase { cased = true }
        }
        return cased
    }

    /// Pads to `width` code points: `align` is `<`, `>` or `^` (Python's centring puts the extra
    /// space on the right for `format`, on the left for `str.center` when odd — see `center`).
    static func pad(_ s: String, width: Int, align: Character, fill: Unicode.Scalar = " ") -> String {
        let len = length(s)
        guard width > len else { return s }
        let total = width - len
        let fillText = String(Character(fill))
        switch align {
        case ">": return String(repeating: fillText, count: total) + s
        case "^":
            let left = total / 2
            return String(repeating: fillText, count: left) + s + String(repeating: fillText, count: total - left)
        default: return s + String(repeating: fillText, count: total)
        }
    }

    /// Python's `str.center`: when the padding is odd, the extra space goes left if the width is odd.
    static func center(_ s: String, width: Int, fill: Unicode.Scalar = " ") -> String {
        let len = length(s)
        guard width > len else { return s }
        let marg = width - len
        let left = marg / 2 + (marg & width & 1)
        let fillText = String(Character(fill))
        return String(repeating: fillText, count: left) + s + String(repeating: fillText, count: marg - left)
    }
}
