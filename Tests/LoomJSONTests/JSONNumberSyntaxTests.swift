import LoomJSON
import Testing

/// RFC 8259 §6: number = [ minus ] int [ frac ] [ exp ]; int = zero / ( digit1-9 *DIGIT );
/// frac = decimal-point 1*DIGIT; exp = e [ minus / plus ] 1*DIGIT.
@Suite struct JSONNumberSyntaxTests {
    /// One case per production and combination: sign, zero and non-zero int, frac, exp with
    /// each letter case and sign, and leading zeros in the exponent (which `1*DIGIT` allows).
    static let valid = [
        "0", "-0", "1", "-1", "9", "10", "-10", "1234567890", "-9876543210",
        "0.0", "-0.0", "0.5", "-0.5", "3.14159", "10.01", "1.000",
        "0e0", "0E0", "1e5", "1E5", "1e+5", "1E+5", "1e-5", "1E-5", "-1e5", "-1E-5",
        "1e05", "1e005", "1e-007", "1.5e10", "-1.5E-10", "0.0e+0", "-0.0E-0", "123.456e789",
    ]

    @Test(arguments: valid)
    func acceptsEveryProduction(_ text: String) throws {
        let value = try JSONValue(parsing: text)
        #expect(value == .number(JSONNumber(literal: text)))
        #expect(value.serialized() == text)
    }

    @Test(arguments: valid)
    func acceptsEveryProductionInsideContainers(_ text: String) throws {
        let array = "[\(text),\(text)]"
        #expect(try JSONValue(parsing: array).serialized() == array)
        let object = #"{"n":\#(text)}"#
        #expect(try JSONValue(parsing: object).serialized() == object)
    }

    /// Leading zeros, a bare or trailing point, a leading plus, an empty or signless-digitless
    /// exponent, a bare minus, hexadecimal, non-ASCII digits, separators and the IEEE special values.
    @Test(arguments: [
        "01", "-01", "00", "007", "0.1.2",
        "1.", "-1.", "1.e5", "0.e1", ".5", "-.5", ".", "-",
        "+1", "+0", "--1", "-+1", "- 1",
        "1e", "1E", "1e+", "1e-", "1E+", "1e+-1", "1ee5", "1e5.5", "1e5e5", "e5", "-e5", "1e 5",
        "0x1", "0X1A", "0b1", "0o7", "1_000", "1,000", "1 000",
        "NaN", "-NaN", "nan", "Infinity", "-Infinity", "+Infinity", "inf", "-inf",
        "\u{0661}", "\u{FF11}", "1\u{0661}", "١٢",
        "[01]", "[1.]", "[.5]", "[+1]", "[1e]", "[-]", "{\"a\":01}", "{\"a\":-}",
    ])
    func rejectsEverythingElse(_ text: String) {
        #expect(throws: JSONParseError.self) { try JSONValue(parsing: text) }
    }
}
