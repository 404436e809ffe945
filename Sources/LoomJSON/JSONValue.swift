/// A JSON value that keeps what generic decoders lose: object key order, duplicate-free
/// insertion-ordered members, and numbers exactly as written.
///
/// Loom passes arbitrary JSON Schema between layers (schemas, tool parameters, HTTP bodies),
/// renders `tojson` in chat templates, and prints CLI output; all of these need a lossless,
/// order-preserving representation, so every module shares this one type.
public enum JSONValue: Sendable, Hashable {
    case null
    case bool(Bool)
    /// A number, kept as its literal text so that decode → encode is lossless.
    case number(JSONNumber)
    case string(String)
    case array([JSONValue])
    /// Members in document order. Keys are unique (the parser rejects duplicates).
    case object(JSONObject)

    /// The value if it is a string.
    public var stringValue: String? { if case .string(let s) = self { return s }; return nil }
    /// The value if it is a boolean.
    public var boolValue: Bool? { if case .bool(let b) = self { return b }; return nil }
    /// The value as a `Double` if it is a number.
    public var doubleValue: Double? { if case .number(let n) = self { return n.doubleValue }; return nil }
    /// The value as an `Int` if it is a number with an exact integer value that fits.
    public var intValue: Int? { if case .number(let n) = self { return n.intValue }; return nil }
    /// The elements if the value is an array.
    public var arrayValue: [JSONValue]? { if case .array(let a) = self { return a }; return nil }
    /// The members if the value is an object.
    public var objectValue: JSONObject? { if case .object(let o) = self { return o }; return nil }
    /// True for `null`.
    public var isNull: Bool { if case .null = self { return true }; return false }

    /// Member lookup on objects (nil for other values or a missing key).
    public subscript(key: String) -> JSONValue? {
        if case .object(let o) = self { return o[key] }
        return nil
    }
}

/// A JSON number as written in the source text (or produced from a Swift number).
public struct JSONNumber: Sendable, Hashable, CustomStringConvertible {
    /// The literal, e.g. `-1.50e3`.
    public let literal: String

    /// Wraps a literal that is already valid JSON number syntax.
    public init(literal: String) { self.literal = literal }
    /// An integer.
    public init(_ value: Int) { literal = String(value) }
    /// A floating-point value, written the shortest way that round-trips (integers without `.0`).
    /// Negative zero is written `-0`, which JSON allows (RFC 8259 §6) and which parses back to
    /// -0.0, so the sign survives a trip through text.
    ///
    /// RFC 8259 §6 has no infinities or NaN. Infinities are written `1e999` and `-1e999`: valid
    /// number syntax whose nearest `Double` is the infinity again, so `doubleValue` round-trips.
    /// NaN has no number spelling at all: its literal is `NaN` (so `doubleValue` is NaN), and
    /// serialization writes it as `null`, as ECMAScript's `JSON.stringify` does, so a document
    /// holding one stays valid JSON.
    public init(_ value: Double) {
        if value.isNaN {
            literal = Self.notANumberLiteral
        } else if value.isInfinite {
            literal = value < 0 ? "-1e999" : "1e999"
        } else if value == 0, value.sign == .minus {
            literal = "-0"
        } else if value == value.rounded(), abs(value) < 1e15 {
            literal = String(Int(value))
        } else {
            literal = "\(value)"
        }
    }

    /// The literal `init(_:)` gives NaN; serialization writes it as `null`.
    static let notANumberLiteral = "NaN"

    /// The value as a `Double` (possibly rounded).
    public var doubleValue: Double { Double(literal) ?? .nan }
    /// The value as an `Int` when it is an exact integer that fits.
    ///
    /// Read from the decimal digits, not through `Double`, which would round `1e-400` to 0 and
    /// `9007199254740993.0` to an even neighbour.
    public var intValue: Int? {
        if let i = Int(literal) { return i }
        let negative = literal.hasPrefix("-")
        let unsigned = literal.dropFirst(negative ? 1 : 0)
        let exponentMark = unsigned.firstIndex { $0 == "e" || $0 == "E" }
        let mantissa = unsigned[..<(exponentMark ?? unsigned.endIndex)]
        let parts = mantissa.split(separator: ".", maxSplits: 1, omittingEmptySubsequences: false)
        let fraction = parts.count == 2 ? parts[1] : ""
        let digits = parts[0] + fraction
        guard !digits.isEmpty, digits.utf8.allSatisfy({ $0 >= 0x30 && $0 <= 0x39 }) else { return nil }
        let leading = digits.utf8.prefix { $0 == 0x30 }.count
        if leading == digits.utf8.count { return 0 }
        let trailing = digits.utf8.reversed().prefix { $0 == 0x30 }.count
        let significant = digits.utf8.dropFirst(leading).dropLast(trailing)
        let exponent: Int
        if let mark = exponentMark {
            // An exponent too large for Int makes the value either not an integer or far past Int.
            guard let e = Int(unsigned[unsigned.index(after: mark)...]) else { return nil }
            exponent = e
        } else {
            exponent = 0
        }
        // The value is significant × 10^scale.
        let (scale, overflow) = exponent.addingReportingOverflow(trailing - fraction.count)
        guard !overflow, scale >= 0, significant.count + scale <= 19 else { return nil }
        let magnitude = String(decoding: significant, as: UTF8.self) + String(repeating: "0", count: scale)
        return Int((negative ? "-" : "") + magnitude)
    }
    /// True when the literal has no fraction or exponent part.
    public var isIntegerLiteral: Bool { !literal.contains(where: { $0 == "." || $0 == "e" || $0 == "E" }) }
    public var description: String { literal }

    /// Numbers compare by their exact decimal value, so `1.0` equals `1` and `-0` equals `0`
    /// (JSON Schema's `const`/`enum` rule), while `0.1` and `0.10000000000000001`, or `1e400`
    /// and `2e400`, stay different even though they round to the same `Double`.
    public static func == (a: JSONNumber, b: JSONNumber) -> Bool {
        a.literal == b.literal || a.exactValue == b.exactValue
    }
    /// Hashes the exact decimal value, consistently with `==`.
    public func hash(into hasher: inout Hasher) {
        hasher.combine(exactValue)
    }

    /// The literal's value as sign, significant digits and a power of ten, the one form every
    /// spelling of a value shares (`1.50e3`, `1500`, `15E2`).
    var exactValue: JSONExactDecimal { JSONExactDecimal(literal: literal) }
}

/// An insertion-ordered JSON object. Keys are compared as RFC 8259 §8.3 compares member names,
/// code unit by code unit: a precomposed "é" and "e" + U+0301 are two keys, although Swift's
/// `String ==` (canonical equivalence) calls them equal.
public struct JSONObject: Sendable, Hashable, Sequence {
    /// Keys in order.
    public private(set) var keys: [String] = []
    private var values: [JSONMemberName: JSONValue] = [:]

    /// An empty object.
    public init() {}
    /// An object from ordered pairs; a later duplicate key replaces the earlier value in place.
    public init(_ pairs: [(String, JSONValue)]) {
        for (k, v) in pairs { self[k] = v }
    }

    /// Number of members.
    public var count: Int { keys.count }
    /// True when the object has no members.
    public var isEmpty: Bool { keys.isEmpty }

    /// Reads or writes a member; writing a new key appends it, writing nil removes it.
    public subscript(key: String) -> JSONValue? {
        get { values[JSONMemberName(key)] }
        set {
            let name = JSONMemberName(key)
            if let newValue {
                if values.updateValue(newValue, forKey: name) == nil { keys.append(key) }
            } else if values.removeValue(forKey: name) != nil {
                keys.removeAll { JSONMemberName($0) == name }
            }
        }
    }

    /// Members in order.
    public var members: [(key: String, value: JSONValue)] { keys.map { ($0, values[JSONMemberName($0)]!) } }

    public func makeIterator() -> IndexingIterator<[(key: String, value: JSONValue)]> {
        members.makeIterator()
    }

    /// Objects compare as JSON does: same keys and values, order ignored.
    public static func == (a: JSONObject, b: JSONObject) -> Bool { a.values == b.values }
    public func hash(into hasher: inout Hasher) { hasher.combine(values) }
}

extension JSONValue: ExpressibleByNilLiteral, ExpressibleByBooleanLiteral, ExpressibleByIntegerLiteral,
    ExpressibleByFloatLiteral, ExpressibleByStringLiteral, ExpressibleByArrayLiteral,
    ExpressibleByDictionaryLiteral
{
    public init(nilLiteral: ()) { self = .null }
    public init(booleanLiteral value: Bool) { self = .bool(value) }
    public init(integerLiteral value: Int) { self = .number(JSONNumber(value)) }
    public init(floatLiteral value: Double) { self = .number(JSONNumber(value)) }
    public init(stringLiteral value: String) { self = .string(value) }
    public init(arrayLiteral elements: JSONValue...) { self = .array(elements) }
    public init(dictionaryLiteral elements: (String, JSONValue)...) { self = .object(JSONObject(elements)) }
}
