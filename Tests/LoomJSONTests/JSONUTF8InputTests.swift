import LoomJSON
import Testing

/// RFC 8259 §8.1 requires UTF-8. LoomJSON's documented handling of bytes that are not: outside
/// strings they are an error; inside strings each maximal ill-formed subsequence decodes to one
/// U+FFFD (the Unicode Standard's §3.9 substitution practice), as a lone surrogate escape does.
@Suite struct JSONUTF8InputTests {
    @Test(arguments: [[0xFF], [0xC3], [0x5B, 0xC3, 0x5D], [0x5B, 0x31, 0x2C, 0x80, 0x5D], [0xEF, 0xBB, 0xBF, 0x31],
                      [0x7B, 0xFF, 0x3A, 0x31, 0x7D], [0x31, 0xFE]] as [[UInt8]])
    func invalidBytesOutsideStringsAreErrors(_ bytes: [UInt8]) {
        #expect(throws: JSONParseError.self) { try parse(bytes: bytes) }
    }

    @Test(arguments: [
        ([0xFF], [0xFFFD]),                              // never a UTF-8 byte
        ([0x80], [0xFFFD]),                              // a continuation byte alone
        ([0xC3], [0xFFFD]),                              // a two-byte lead with no continuation
        ([0xE2, 0x82], [0xFFFD]),                        // a truncated three-byte sequence is one subpart
        ([0xC0, 0x80], [0xFFFD, 0xFFFD]),                // overlong: C0 is never a lead byte
        ([0xED, 0xA0, 0x80], [0xFFFD, 0xFFFD, 0xFFFD]),  // an encoded surrogate
        ([0xF4, 0x90, 0x80, 0x80], [0xFFFD, 0xFFFD, 0xFFFD, 0xFFFD]),  // past U+10FFFF
        ([0x61, 0xFF, 0x62], [0x61, 0xFFFD, 0x62]),
        ([0xC3, 0xA9, 0xFF, 0xF0, 0x9F, 0x98, 0x80], [0xE9, 0xFFFD, 0x1F600]),
    ] as [([UInt8], [UInt32])])
    func invalidBytesInStringsBecomeReplacementCharacters(_ content: [UInt8], _ expected: [UInt32]) throws {
        let value = try parse(bytes: [0x22] + content + [0x22])
        #expect(value.stringValue.map(scalars) == expected)
        let key = try parse(bytes: [0x7B, 0x22] + content + [0x22, 0x3A, 0x30, 0x7D])
        #expect(key.objectValue?.keys.map(scalars) == [expected])
    }

    /// The `String` and byte entry points agree on valid input.
    @Test(arguments: [#"{"é":["😀",1.5e3,null]}"#, #""\u00e9""#, "[]"])
    func stringAndBytesAgree(_ text: String) throws {
        #expect(try JSONValue(parsing: text).serialized() == parse(bytes: Array(text.utf8)).serialized())
    }
}
