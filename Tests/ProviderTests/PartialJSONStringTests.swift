import LoomJSON
import Provider
import Testing

/// Strings in a JSON prefix decode exactly as LoomJSON decodes complete JSON (RFC 8259): four
/// hexadecimal digits per `\u` escape, surrogate pairs joined, lone surrogates as U+FFFD; an
/// escape the end of the text cut off is left out until it has been generated.
@Suite struct PartialJSONStringTests {
    /// The string value of `text` parsed as a JSON prefix, and whether it is complete.
    static func string(_ text: String) throws -> (String, Bool) {
        let content = try #require(try GeneratedContent(partialJSON: text))
        let value = try #require(content.jsonValue.stringValue)
        return (value, content.isComplete)
    }

    @Test(arguments: [
        (#""a\uD83D\uDE00b""#, "a\u{1F600}b"),  // a surrogate pair is one scalar
        (#""a\uD800b""#, "a\u{FFFD}b"),  // a lone high surrogate
        (#""a\uDC00b""#, "a\u{FFFD}b"),  // a lone low surrogate
        (#""\uD800\u0041""#, "\u{FFFD}A"),  // a high surrogate followed by a non-surrogate escape
        (#""\u00e9\n\/""#, "é\n/"),
    ])
    func `complete strings decode as LoomJSON decodes them`(text: String, expected: String) throws {
        let (value, complete) = try Self.string(text)
        #expect(value == expected)
        #expect(complete)
        #expect(try JSONValue(parsing: text).stringValue == expected)
    }

    @Test(arguments: [#""\u+1ab""#, #""\u-001""#, #""\u 123""#, #""\u12G4""#, #""ab\u0G"#])
    func `a unicode escape needs four hexadecimal digits`(text: String) {
        #expect(throws: GeneratedContent.ParsingError.self) { _ = try GeneratedContent(partialJSON: text) }
    }

    @Test(arguments: [
        (#""ab\"#, "ab"),
        (#""ab\u00"#, "ab"),
        (#""a\uD83D"#, "a"),  // a low surrogate may still follow
        (#""a\uD83D\"#, "a"),
        (#""a\uD83D\uDE"#, "a"),
    ])
    func `an escape cut off by the end is left out`(text: String, expected: String) throws {
        let (value, complete) = try Self.string(text)
        #expect(value == expected)
        #expect(!complete)
    }
}
