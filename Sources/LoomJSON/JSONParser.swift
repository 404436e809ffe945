/// Why a JSON text could not be parsed.
public struct JSONParseError: Error, Sendable, Equatable, CustomStringConvertible {
    /// Byte offset of the problem in the input.
    public let offset: Int
    /// What was wrong.
    public let reason: String
    public var description: String { "invalid JSON at byte \(offset): \(reason)" }
}

extension JSONValue {
    /// Parses a complete JSON text (RFC 8259), keeping key order and number literals.
    ///
    /// Duplicate object keys are an error (they make key order ambiguous), nesting is bounded by
    /// `maximumDepth`, and trailing non-whitespace is rejected.
    public init(parsing text: String, maximumDepth: Int = 512) throws(JSONParseError) {
        try self.init(parsing: Array(text.utf8), maximumDepth: maximumDepth)
    }

    /// Parses a complete JSON text given as UTF-8 bytes.
    ///
    /// Bytes that are not UTF-8 are an error outside strings; inside a string each maximal
    /// ill-formed subsequence decodes to U+FFFD, as a lone surrogate escape does.
    public init(parsing bytes: [UInt8], maximumDepth: Int = 512) throws(JSONParseError) {
        let result: Result<JSONValue, JSONParseError> = bytes.withUnsafeBufferPointer { buf in
            var p = JSONBytesParser(bytes: buf, maximumDepth: maximumDepth)
            do throws(JSONParseError) { return .success(try p.parseDocument()) } catch { return .failure(error) }
        }
        self = try result.get()
    }
}

private struct JSONBytesParser {
    let bytes: UnsafeBufferPointer<UInt8>
    let maximumDepth: Int
    var i = 0

    init(bytes: UnsafeBufferPointer<UInt8>, maximumDepth: Int) {
        self.bytes = bytes
        self.maximumDepth = maximumDepth
    }

    func fail(_ reason: String) -> JSONParseError { JSONParseError(offset: i, reason: reason) }

    mutating func skipWhitespace() {
        while i < bytes.count, bytes[i] == 0x20 || bytes[i] == 0x0A || bytes[i] == 0x0D || bytes[i] == 0x09 { i += 1 }
    }

    mutating func parseDocument() throws(JSONParseError) -> JSONValue {
        skipWhitespace()
        let v = try parseValue(depth: 0)
        skipWhitespace()
        if i != bytes.count { throw fail("unexpected trailing characters") }
        return v
    }

    mutating func expectLiteral(_ word: StaticString) throws(JSONParseError) {
        let n = word.utf8CodeUnitCount
        guard i + n <= bytes.count else { throw fail("unexpected end of input") }
        for k in 0..<n where bytes[i + k] != word.utf8Start[k] { throw fail("invalid literal") }
        i += n
    }

    mutating func parseValue(depth: Int) throws(JSONParseError) -> JSONValue {
        guard i < bytes.count else { throw fail("unexpected end of input") }
        switch bytes[i] {
        case UInt8(ascii: "{"):
            if depth >= maximumDepth { throw fail("nesting deeper than \(maximumDepth)") }
            i += 1
            var obj = JSONObject()
            skipWhitespace()
            if i < bytes.count, bytes[i] == UInt8(ascii: "}") { i += 1; return .object(obj) }
            while true {
                skipWhitespace()
                guard i < bytes.count, bytes[i] == UInt8(ascii: "\"") else { throw fail("expected a string key") }
                let keyAt = i
                let key = try parseString()
                skipWhitespace()
                guard i < bytes.count, bytes[i] == UInt8(ascii: ":") else { throw fail("expected ':'") }
                i += 1
                skipWhitespace()
                let v = try parseValue(depth: depth + 1)
                if obj[key] != nil { throw JSONParseError(offset: keyAt, reason: "duplicate key \"\(key)\"") }
                obj[key] = v
                skipWhitespace()
                guard i < bytes.count else { throw fail("unexpected end of input") }
                if bytes[i] == UInt8(ascii: ",") { i += 1; continue }
                if bytes[i] == UInt8(ascii: "}") { i += 1; return .object(obj) }
                throw fail("expected ',' or '}'")
            }
        case UInt8(ascii: "["):
            if depth >= maximumDepth { throw fail("nesting deeper than \(maximumDepth)") }
            i += 1
            var arr: [JSONValue] = []
            skipWhitespace()
            if i < bytes.count, bytes[i] == UInt8(ascii: "]") { i += 1; return .array(arr) }
            while true {
                skipWhitespace()
                arr.append(try parseValue(depth: depth + 1))
                skipWhitespace()
                guard i < bytes.count else { throw fail("unexpected end of input") }
                if bytes[i] == UInt8(ascii: ",") { i += 1; continue }
                if bytes[i] == UInt8(ascii: "]") { i += 1; return .array(arr) }
                throw fail("expected ',' or ']'")
            }
        case UInt8(ascii: "\""):
            return .string(try parseString())
        case UInt8(ascii: "t"): try expectLiteral("true"); return .bool(true)
        case UInt8(ascii: "f"): try expectLiteral("false"); return .bool(false)
        case UInt8(ascii: "n"): try expectLiteral("null"); return .null
        case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"):
            return .number(try parseNumber())
        default:
            throw fail("unexpected character")
        }
    }

    mutating func parseNumber() throws(JSONParseError) -> JSONNumber {
        let start = i
        func isDigit(_ b: UInt8) -> Bool { b >= 0x30 && b <= 0x39 }
        if bytes[i] == UInt8(ascii: "-") { i += 1 }
        guard i < bytes.count, isDigit(bytes[i]) else { throw fail("invalid number") }
        if bytes[i] == 0x30 {
            i += 1
        } else {
            while i < bytes.count, isDigit(bytes[i]) { i += 1 }
        }
        if i < bytes.count, bytes[i] == UInt8(ascii: ".") {
            i += 1
            guard i < bytes.count, isDigit(bytes[i]) else { throw fail("invalid number fraction") }
            while i < bytes.count, isDigit(bytes[i]) { i += 1 }
        }
        if i < bytes.count, bytes[i] == UInt8(ascii: "e") || bytes[i] == UInt8(ascii: "E") {
            i += 1
            if i < bytes.count, bytes[i] == UInt8(ascii: "+") || bytes[i] == UInt8(ascii: "-") { i += 1 }
            guard i < bytes.count, isDigit(bytes[i]) else { throw fail("invalid number exponent") }
            while i < bytes.count, isDigit(bytes[i]) { i += 1 }
        }
        return JSONNumber(literal: String(decoding: UnsafeBufferPointer(rebasing: bytes[start..<i]), as: UTF8.self))
    }

    mutating func parseString() throws(JSONParseError) -> String {
        let decoded = try JSONStringDecoder.decode(bytes, at: i)
        i = decoded.end
        return decoded.value
    }
}
