import LoomJSON

extension GeneratedContent {
    /// Parses a prefix of JSON text as produced so far by a streaming model.
    ///
    /// Open strings, arrays and objects are closed; a member whose key or value has not begun
    /// is dropped; an unfinished number keeps its longest valid prefix; a literal prefix
    /// (`tr`) becomes its only possible completion. `isComplete` is true only when the text
    /// is one whole JSON value. Text that cannot be the prefix of any JSON value throws
    /// `ParsingError`. Returns nil content when no value has begun (empty text).
    public init?(partialJSON text: String) throws {
        var parser = PartialJSONParser(bytes: Array(text.utf8))
        let parsed: (value: JSONValue, complete: Bool)?
        do {
            parsed = try parser.parseDocument()
        } catch {
            throw ParsingError(rawContent: text, underlyingError: error,
                               debugDescription: "Generated text is not a JSON prefix: \(error.reason)")
        }
        guard let parsed else { return nil }
        self.init(jsonValue: parsed.value, isComplete: parsed.complete)
    }
}

/// Why text could not be a prefix of JSON.
struct PartialJSONError: Error, Sendable {
    let offset: Int
    let reason: String
}

/// A recursive-descent parser that treats end of input as "not yet generated" rather than
/// as an error. Every parse function returns nil when input ended before the value began
/// and `complete == false` when it ended inside the value.
struct PartialJSONParser {
    let bytes: [UInt8]
    var i = 0
    var depth = 0
    let maximumDepth = 512

    init(bytes: [UInt8]) { self.bytes = bytes }

    var atEnd: Bool { i >= bytes.count }

    func fail(_ reason: String) -> PartialJSONError { PartialJSONError(offset: i, reason: reason) }

    mutating func skipWhitespace() {
        while i < bytes.count, bytes[i] == 0x20 || bytes[i] == 0x0A || bytes[i] == 0x0D || bytes[i] == 0x09 { i += 1 }
    }

    mutating func parseDocument() throws(PartialJSONError) -> (value: JSONValue, complete: Bool)? {
        skipWhitespace()
        guard let result = try parseValue() else { return nil }
        if result.complete {
            skipWhitespace()
            if !atEnd { throw fail("unexpected text after the JSON value") }
        }
        return result
    }

    mutating func parseValue() throws(PartialJSONError) -> (value: JSONValue, complete: Bool)? {
        skipWhitespace()
        guard !atEnd else { return nil }
        switch bytes[i] {
        case UInt8(ascii: "{"): return try parseObject()
        case UInt8(ascii: "["): return try parseArray()
        case UInt8(ascii: "\""):
            let (s, complete) = try parseString()
            return (.string(s), complete)
        case UInt8(ascii: "t"): return try parseLiteral("true", .bool(true))
        case UInt8(ascii: "f"): return try parseLiteral("false", .bool(false))
        case UInt8(ascii: "n"): return try parseLiteral("null", .null)
        case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"): return try parseNumber()
        default: throw fail("unexpected character")
        }
    }

    mutating func parseLiteral(_ word: String, _ value: JSONValue) throws(PartialJSONError) -> (value: JSONValue, complete: Bool) {
        for expected in word.utf8 {
            if atEnd { return (value, false) }
            guard bytes[i] == expected else { throw fail("invalid literal") }
            i += 1
        }
        return (value, true)
    }

    mutating func parseNumber() throws(PartialJSONError) -> (value: JSONValue, complete: Bool)? {
        let start = i
        while i < bytes.count, isNumberByte(bytes[i]) { i += 1 }
        let literal = String(decoding: bytes[start..<i], as: UTF8.self)
        if atEnd {
            // The number may continue; keep its longest valid prefix ("1." → 1, "-" → nothing).
            var candidate = Substring(literal)
            while !candidate.isEmpty, !isValidNumber(candidate) { candidate = candidate.dropLast() }
            guard !candidate.isEmpty else { return nil }
            return (.number(JSONNumber(literal: String(candidate))), false)
        }
        guard isValidNumber(Substring(literal)) else { throw fail("invalid number") }
        return (.number(JSONNumber(literal: literal)), true)
    }

    func isNumberByte(_ b: UInt8) -> Bool {
        (b >= 0x30 && b <= 0x39) || b == UInt8(ascii: "-") || b == UInt8(ascii: "+") || b == UInt8(ascii: ".")
            || b == UInt8(ascii: "e") || b == UInt8(ascii: "E")
    }

    /// RFC 8259 number grammar: -?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?
    func isValidNumber(_ s: Substring) -> Bool {
        var u = Array(s.utf8)[...]
        func digits(_ u: inout ArraySlice<UInt8>) -> Int {
            var n = 0
            while let c = u.first, c >= 0x30, c <= 0x39 { u.removeFirst(); n += 1 }
            return n
        }
        if u.first == UInt8(ascii: "-") { u.removeFirst() }
        if u.first == UInt8(ascii: "0") { u.removeFirst() } else if digits(&u) == 0 { return false }
        if u.first == UInt8(ascii: ".") { u.removeFirst(); if digits(&u) == 0 { return false } }
        if u.first == UInt8(ascii: "e") || u.first == UInt8(ascii: "E") {
            u.removeFirst()
            if u.first == UInt8(ascii: "+") || u.first == UInt8(ascii: "-") { u.removeFirst() }
            if digits(&u) == 0 { return false }
        }
        return u.isEmpty
    }

    /// The string starting at the opening quote at `i`, through LoomJSON's decoder: an input
    /// that ends inside it gives the text so far (an escape or surrogate pair cut off by the end
    /// is left out until it has been generated).
    mutating func parseString() throws(PartialJSONError) -> (String, Bool) {
        let start = i
        let result: Result<JSONStringDecoder.Decoded, JSONParseError> = bytes.withUnsafeBufferPointer { buffer in
            do throws(JSONParseError) {
                return .success(try JSONStringDecoder.decode(buffer, at: start, allowingTruncation: true))
            } catch {
                return .failure(error)
            }
        }
        switch result {
        case .success(let decoded):
            i = decoded.end
            return (decoded.value, decoded.isComplete)
        case .failure(let error):
            throw PartialJSONError(offset: error.offset, reason: error.reason)
        }
    }

    mutating func parseArray() throws(PartialJSONError) -> (value: JSONValue, complete: Bool) {
        i += 1
        depth += 1
        defer { depth -= 1 }
        if depth > maximumDepth { throw fail("nesting too deep") }
        var items: [JSONValue] = []
        skipWhitespace()
        if atEnd { return (.array(items), false) }
        if bytes[i] == UInt8(ascii: "]") { i += 1; return (.array(items), true) }
        while true {
            guard let item = try parseValue() else { return (.array(items), false) }
            items.append(item.value)
            if !item.complete { return (.array(items), false) }
            skipWhitespace()
            if atEnd { return (.array(items), false) }
            if bytes[i] == UInt8(ascii: ",") { i += 1; continue }
            if bytes[i] == UInt8(ascii: "]") { i += 1; return (.array(items), true) }
            throw fail("expected ',' or ']'")
        }
    }

    mutating func parseObject() throws(PartialJSONError) -> (value: JSONValue, complete: Bool) {
        i += 1
        depth += 1
        defer { depth -= 1 }
        if depth > maximumDepth { throw fail("nesting too deep") }
        var object = JSONObject()
        skipWhitespace()
        if atEnd { return (.object(object), false) }
        if bytes[i] == UInt8(ascii: "}") { i += 1; return (.object(object), true) }
        while true {
            skipWhitespace()
            if atEnd { return (.object(object), false) }
            guard bytes[i] == UInt8(ascii: "\"") else { throw fail("expected a member name") }
            let (key, keyComplete) = try parseString()
            if !keyComplete { return (.object(object), false) }
            skipWhitespace()
            if atEnd { return (.object(object), false) }
            guard bytes[i] == UInt8(ascii: ":") else { throw fail("expected ':'") }
            i += 1
            if object[key] != nil { throw fail("duplicate member '\(key)'") }
            guard let value = try parseValue() else { return (.object(object), false) }
            object[key] = value.value
            if !value.complete { return (.object(object), false) }
            skipWhitespace()
            if atEnd { return (.object(object), false) }
            if bytes[i] == UInt8(ascii: ",") { i += 1; continue }
            if bytes[i] == UInt8(ascii: "}") { i += 1; return (.object(object), true) }
            throw fail("expected ',' or '}'")
        }
    }
}
