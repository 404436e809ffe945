import LoomJSON
import Testing

/// Numbers keep their literal text (JSONNumber's documented contract), so decode → encode is the
/// identity even where `Double` and `Int` lose the value (RFC 8259 §6 lets parsers limit range
/// and precision; Loom chooses not to).
@Suite struct JSONNumberLosslessTests {
    static let canonical = [
        // Integers at and past the Int64 and UInt64 edges, and past Double's 2^53 exact range.
        "9223372036854775807", "-9223372036854775808", "9223372036854775808", "-9223372036854775809",
        "18446744073709551615", "18446744073709551616", "9007199254740993", "-9007199254740993",
        "123456789012345678901234567890123456789012345678901234567890",
        // Past Double's range in both directions, and the subnormal edge.
        "1e400", "-1e400", "1E+999999999999999999999", "1e-400", "-1e-400", "1e-999999999999999999999",
        "4.9e-324", "2.4703282292062327e-324", "2.2250738585072014e-308", "1.7976931348623157e308",
        // Digits beyond Double's precision, trailing zeros and signed zeros.
        "0.1000000000000000055511151231257827021181583404541015625", "3.141592653589793238462643383279502884197",
        "1.000000000000000000001", "100.0000", "-0", "-0.0", "-0e0", "0.000", "1.50", "2E10",
    ]

    @Test(arguments: canonical)
    func serializeOfParseIsTheIdentity(_ text: String) throws {
        let value = try JSONValue(parsing: text)
        #expect(value.serialized() == text)
        #expect(value.serialized(.pretty) == text)
        #expect(value.serialized(.python) == text)
        #expect(numberLiteral(value) == text)
        #expect(try JSONValue(parsing: "[\(text)]").serialized() == "[\(text)]")
    }

    /// `intValue` is the exact integer when the number is one and fits in `Int`.
    @Test(arguments: [
        ("0", 0), ("-0", 0), ("42", 42), ("-42", -42), ("1e2", 100), ("1E+2", 100), ("1.0", 1), ("1.50e1", 15), ("-0.0", 0),
        ("9223372036854775807", Int.max), ("-9223372036854775808", Int.min), ("9007199254740993", 9_007_199_254_740_993),
    ])
    func intValueIsExact(_ text: String, _ expected: Int) {
        #expect(JSONNumber(literal: text).intValue == expected)
    }

    /// Not integers, or integers outside `Int`: no `intValue`.
    @Test(arguments: ["0.5", "-1.5", "1e-1", "9223372036854775808", "-9223372036854775809", "1e19", "1e400", "-1e400",
                      "123456789012345678901234567890"])
    func intValueIsNilForNonIntegersAndOverflow(_ text: String) {
        #expect(JSONNumber(literal: text).intValue == nil)
    }

    /// Exactness holds where `Double` would round: a tiny fraction is not zero, and digits past
    /// Double's precision are not dropped.
    @Test(arguments: [("1e-400", nil), ("1.0000000000000000001", nil), ("9007199254740993.0", 9_007_199_254_740_993),
                      ("-9007199254740993e0", -9_007_199_254_740_993), ("0.9999999999999999999", nil), ("12345678901234567.8e1", 123_456_789_012_345_678),
                      ("0e999999999999999999999", 0), ("1e-999999999999999999999", nil), ("100e-2", 1), ("1000000e-6", 1)] as [(String, Int?)])
    func intValueDoesNotRoundThroughDouble(_ text: String, _ expected: Int?) {
        #expect(JSONNumber(literal: text).intValue == expected)
    }

    /// `isIntegerLiteral` looks at the syntax only.
    @Test(arguments: [("0", true), ("-12", true), ("123456789012345678901234567890", true), ("1.0", false), ("1e2", false), ("1E2", false)])
    func isIntegerLiteralReadsTheSyntax(_ text: String, _ expected: Bool) {
        #expect(JSONNumber(literal: text).isIntegerLiteral == expected)
    }

    /// Numbers compare by value (the documented rule, which JSON Schema's `const` and `enum` use).
    @Test(arguments: [("1.0", "1"), ("1e2", "100"), ("-0", "0"), ("0.5", "5e-1"), ("1E+2", "100.00"), ("-1.5e3", "-1500")])
    func equalValuesAreEqual(_ a: String, _ b: String) {
        #expect(JSONNumber(literal: a) == JSONNumber(literal: b))
        #expect(JSONNumber(literal: a).hashValue == JSONNumber(literal: b).hashValue)
    }

    /// Different values are unequal also where `Double` cannot tell them apart.
    @Test(arguments: [("1e400", "2e400"), ("1e-400", "0"), ("18446744073709551616", "18446744073709551617"),
                      ("0.1", "0.10000000000000001"), ("9007199254740993.0", "9007199254740992")])
    func valuesBeyondDoubleAreNotConflated(_ a: String, _ b: String) {
        #expect(JSONNumber(literal: a) != JSONNumber(literal: b))
    }

    /// Hashing follows the exact value too, so a `Set` keeps both and merges every spelling of one.
    @Test func hashingFollowsTheExactValue() {
        let numbers: Set<JSONNumber> = [JSONNumber(literal: "0.1"), JSONNumber(literal: "0.10000000000000001"),
                                        JSONNumber(literal: "1E-1"), JSONNumber(literal: "100e-3"), JSONNumber(literal: "-0.0")]
        #expect(numbers.count == 3)
        #expect(numbers.contains(JSONNumber(literal: "0")))
    }

    /// Text that is not number syntax compares as written rather than as a parsed value.
    @Test func nonNumberLiteralsCompareAsWritten() {
        #expect(JSONNumber(literal: "inf") == JSONNumber(literal: "inf"))
        #expect(JSONNumber(literal: "inf") != JSONNumber(literal: "1e999"))
        #expect(JSONNumber(literal: "1.") != JSONNumber(literal: "1"))
    }

    /// A finite `Double` becomes a literal that parses back to the same `Double`.
    @Test(arguments: [0.0, 1.0, -1.5, 0.1, 1.0 / 3.0, 1e15, 1e-5, 123456789.125, 5e-324, .leastNormalMagnitude,
                      .greatestFiniteMagnitude, -.greatestFiniteMagnitude, 9_007_199_254_740_993.0, 1e300])
    func finiteDoublesRoundTrip(_ d: Double) throws {
        let text = JSONValue.number(JSONNumber(d)).serialized()
        let back = try JSONValue(parsing: text)
        #expect(back.doubleValue == d)
    }

    /// JSON writes negative zero as `-0`; a `Double` of -0.0 keeps its sign through text.
    @Test func negativeZeroKeepsItsSign() throws {
        let text = JSONValue.number(JSONNumber(-0.0)).serialized()
        let back = try JSONValue(parsing: text)
        #expect(text == "-0")
        #expect(back.doubleValue?.sign == .minus)
        // As a value it is still zero (RFC 8259 has one zero; JSON Schema's `const: 0` accepts -0).
        #expect(back == 0)
    }

    /// Integers written through `JSONNumber(Int)` keep every digit.
    @Test(arguments: [0, 1, -1, Int.max, Int.min, 1 << 53 + 1])
    func intsRoundTrip(_ i: Int) throws {
        let text = JSONValue.number(JSONNumber(i)).serialized()
        #expect(text == String(i))
        #expect(try JSONValue(parsing: text).intValue == i)
    }
}
