/// Decodes the body of one JSON string (RFC 8259 §7): the one string decoder of Loom, used by the
/// complete parser (`JSONValue(parsing:)`) and by the parser of JSON prefixes a model is still
/// generating (`GeneratedContent(partialJSON:)`).
///
/// Escapes are the eight single-character ones and `\uXXXX` with exactly four hexadecimal
/// digits. A surrogate pair `\uD83D\uDE00` becomes one scalar; a lone surrogate (a high one not
/// followed by a low one, or a low one on its own) becomes U+FFFD, as a JSON text may contain
/// them but a Swift `String` cannot.
public enum JSONStringDecoder {
    /// A decoded string.
    public struct Decoded: Sendable, Equatable {
        /// The string's value.
        public var value: String
        /// The offset just after the closing quote, or the end of the input when the string is
        /// truncated.
        public var end: Int
        /// False when the input ended inside the string (only with `allowingTruncation`).
        public var isComplete: Bool

        /// A decoded string `value` ending at `end`.
        public init(value: String, end: Int, isComplete: Bool) {
            self.value = value
            self.end = end
            self.isComplete = isComplete
        }
    }

    /// Decodes the string whose opening quote is at `start` in `bytes` (UTF-8).
    ///
    /// With `allowingTruncation`, an input that ends inside the string is not an error: the
    /// string decoded so far is returned with `isComplete == false`, leaving out an escape or a
    /// surrogate pair that the end cut off (the rest has not been generated yet). Without it,
    /// that input throws.
    /// - Throws: `JSONParseError` for a control character, an invalid escape, or (unless
    ///   truncation is allowed) an unterminated string.
    public static func decode(_ bytes: UnsafeBufferPointer<UInt8>, at start: Int,
                              allowingTruncation: Bool = false) throws(JSONParseError) -> Decoded {
        var i = start + 1  // after the opening quote
        var out: [UInt8] = []
        var runStart = i
        func truncated(_ reason: String, at offset: Int) throws(JSONParseError) -> Decoded {
            guard allowingTruncation else { throw JSONParseError(offset: offset, reason: reason) }
            return Decoded(value: String(decoding: out, as: UTF8.self), end: bytes.count, isComplete: false)
        }
        while true {
            guard i < bytes.count else {
                out.append(contentsOf: UnsafeBufferPointer(rebasing: bytes[runStart..<i]))
                return try truncated("unterminated string", at: i)
            }
            let b = bytes[i]
            if b == UInt8(ascii: "\"") {
                out.append(contentsOf: UnsafeBufferPointer(rebasing: bytes[runStart..<i]))
                return Decoded(value: String(decoding: out, as: UTF8.self), end: i + 1, isComplete: true)
            }
            if b < 0x20 { throw JSONParseError(offset: i, reason: "control character in string") }
            if b != UInt8(ascii: "\\") { i += 1; continue }
            out.append(contentsOf: UnsafeBufferPointer(rebasing: bytes[runStart..<i]))
            guard i + 1 < bytes.count else { return try truncated("unterminated escape", at: i + 1) }
            let e = bytes[i + 1]
            if let unescaped = JSONEscape.unescape(e) {
                out.append(unescaped)
                i += 2
                runStart = i
                continue
            }
            guard e == UInt8(ascii: "u") else { throw JSONParseError(offset: i + 2, reason: "invalid escape") }
            guard i + 6 <= bytes.count else {
                if allowingTruncation { try checkHexPrefix(bytes, from: i + 2) }
                return try truncated("truncated \\u escape", at: i + 2)
            }
            var scalar = try hex4(bytes, at: i + 2)
            i += 6
            if (0xD800..<0xDC00).contains(scalar) {
                // A high surrogate must pair with a low one; a lone one becomes U+FFFD.
                if i + 1 < bytes.count, bytes[i] == UInt8(ascii: "\\"), bytes[i + 1] == UInt8(ascii: "u") {
                    guard i + 6 <= bytes.count else {
                        if allowingTruncation { try checkHexPrefix(bytes, from: i + 2) }
                        return try truncated("truncated \\u escape", at: i + 2)
                    }
                    let low = try hex4(bytes, at: i + 2)
                    if (0xDC00..<0xE000).contains(low) {
                        scalar = 0x10000 + ((scalar - 0xD800) << 10) + (low - 0xDC00)
                        i += 6
                    } else {
                        scalar = 0xFFFD
                    }
                } else if i >= bytes.count {
                    // The end cut the pair off: whether a low surrogate follows is not known yet.
                    return try truncated("unterminated string", at: i)
                } else if i + 1 >= bytes.count, bytes[i] == UInt8(ascii: "\\") {
                    return try truncated("unterminated escape", at: i + 1)
                } else {
                    scalar = 0xFFFD
                }
            } else if (0xDC00..<0xE000).contains(scalar) {
                scalar = 0xFFFD
            }
            // Every value left is a valid scalar: surrogates were paired or replaced.
            out.append(contentsOf: String(Character(Unicode.Scalar(scalar)!)).utf8)
            runStart = i
        }
    }

    /// The four hexadecimal digits at `at` as a code unit.
    private static func hex4(_ bytes: UnsafeBufferPointer<UInt8>, at start: Int) throws(JSONParseError) -> UInt32 {
        var v: UInt32 = 0
        for i in start..<start + 4 {
            guard let d = JSONEscape.hexDigit(bytes[i]).map(UInt32.init) else { throw JSONParseError(offset: i, reason: "invalid \\u escape") }
            v = v << 4 | d
        }
        return v
    }

    /// Throws when a cut-off `\u` escape already holds a byte that is not a hexadecimal digit:
    /// no continuation could make it valid.
    private static func checkHexPrefix(_ bytes: UnsafeBufferPointer<UInt8>, from start: Int) throws(JSONParseError) {
        for i in start..<bytes.count where JSONEscape.hexDigit(bytes[i]) == nil {
            throw JSONParseError(offset: i, reason: "invalid \\u escape")
        }
    }
}
