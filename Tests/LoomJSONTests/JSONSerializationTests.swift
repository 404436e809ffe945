import LoomJSON
import Testing

/// What `serialized` writes is JSON (RFC 8259) that parses back to the same value, in every
/// write option; strings escape exactly what §7 requires plus what the options ask for.
@Suite struct JSONSerializationTests {
    static let options: [(String, JSONWriteOptions)] = [
        ("compact", .compact), ("python", .python), ("pretty", .pretty),
        ("slashes", JSONWriteOptions(escapeSlashes: true)), ("indent4", JSONWriteOptions(indent: 4, asciiOnly: true)),
    ]

    /// Every ASCII character, the surrogate-adjacent BMP edges and astral characters survive.
    @Test(arguments: options.map(\.0))
    func everyCharacterRoundTrips(_ name: String) throws {
        let options = try #require(Self.options.first { $0.0 == name }).1
        var s = String(String.UnicodeScalarView((0..<0x80).compactMap(Unicode.Scalar.init)))
        s += "\u{80}\u{FF}\u{7FF}\u{800}\u{D7FF}\u{E000}\u{FFFD}\u{FFFF}\u{10000}\u{1F600}\u{10FFFF}e\u{301}\u{2028}\u{FEFF}"
        let value = JSONValue.object(JSONObject([(s, .array([.string(s), .object(JSONObject([("k", .string(s))]))]))]))
        let text = value.serialized(options)
        let back = try JSONValue(parsing: text)
        #expect(back.objectValue?.keys.map(scalars) == [scalars(s)])
        #expect(back[s]?.arrayValue?.first?.stringValue.map(scalars) == scalars(s))
        #expect(back == value)
        if options.asciiOnly { #expect(text.utf8.allSatisfy { $0 < 0x80 }) }
    }

    /// Control characters use the short escapes where §7 has one and `\u00XX` otherwise.
    @Test func controlCharactersAreEscaped() {
        let s = String(String.UnicodeScalarView((0..<0x20).compactMap(Unicode.Scalar.init)))
        let text = JSONValue.string(s).serialized()
        #expect(text.utf8.allSatisfy { $0 >= 0x20 })
        #expect(text.contains(#"\b\t\n\u000b\f\r"#))
        #expect(text.hasPrefix(#""\u0000\u0001"#))
    }

    @Test func slashIsEscapedOnlyOnRequest() {
        #expect(JSONValue.string("a/b").serialized() == #""a/b""#)
        #expect(JSONValue.string("a/b").serialized(JSONWriteOptions(escapeSlashes: true)) == #""a\/b""#)
    }

    @Test func layoutOptions() throws {
        let value = try JSONValue(parsing: #"{"a":[1,{"b":null}],"c":{},"d":[]}"#)
        #expect(value.serialized() == #"{"a":[1,{"b":null}],"c":{},"d":[]}"#)
        #expect(value.serialized(.python) == #"{"a": [1, {"b": null}], "c": {}, "d": []}"#)
        #expect(value.serialized(.pretty) == "{\n  \"a\": [\n    1,\n    {\n      \"b\": null\n    }\n  ],\n  \"c\": {},\n  \"d\": []\n}")
    }

    /// §6: Infinity and NaN are not JSON numbers, so a value built from a non-finite `Double`
    /// must still serialize as valid JSON: infinities as numbers that read back as the same
    /// infinity, NaN as `null` (ECMAScript's `JSON.stringify` rule).
    @Test(arguments: [(Double.infinity, "1e999"), (-Double.infinity, "-1e999"), (Double.nan, "null")])
    func nonFiniteDoublesSerializeAsValidJSON(_ d: Double, _ expected: String) throws {
        let text = JSONValue.array([.number(JSONNumber(d))]).serialized()
        #expect(text == "[\(expected)]")
        let parsed = try JSONValue(parsing: text)
        if d.isNaN {
            #expect(parsed == .array([.null]))
            #expect(JSONNumber(d).doubleValue.isNaN)
        } else {
            let item = try #require(parsed.arrayValue?.first)
            let value = try #require(item.doubleValue)
            #expect(value == d)
        }
    }

    /// `JSONEscape.unescape` maps exactly the eight single-character escapes of §7.
    @Test(arguments: UInt8(0)...UInt8(255))
    func singleCharacterEscapeTable(_ byte: UInt8) {
        let table: [UInt8: UInt8] = [0x22: 0x22, 0x5C: 0x5C, 0x2F: 0x2F, 0x62: 0x08, 0x66: 0x0C, 0x6E: 0x0A, 0x72: 0x0D, 0x74: 0x09]
        #expect(JSONEscape.unescape(byte) == table[byte])
    }
}
