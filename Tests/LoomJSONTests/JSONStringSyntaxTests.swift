import LoomJSON
import Testing

/// RFC 8259 §7: string = quotation-mark *char quotation-mark; char = unescaped /
/// escape ( " \ / b f n r t / uXXXX ); unescaped = %x20-21 / %x23-5B / %x5D-10FFFF.
@Suite struct JSONStringSyntaxTests {
    /// Every two-character escape, and `\u` with upper-, lower- and mixed-case hex digits.
    @Test(arguments: [
        (#""\"""#, "\""), (#""\\""#, "\\"), (#""\/""#, "/"), (#""\b""#, "\u{08}"), (#""\f""#, "\u{0C}"),
        (#""\n""#, "\n"), (#""\r""#, "\r"), (#""\t""#, "\t"),
        (#""\u0041""#, "A"), (#""\u00e9""#, "\u{E9}"), (#""\u00E9""#, "\u{E9}"), (#""\uaBcD""#, "\u{ABCD}"),
        (#""\u0000""#, "\u{00}"), (#""\u001f""#, "\u{1F}"), (#""\u007F""#, "\u{7F}"), (#""\uFFFF""#, "\u{FFFF}"),
        (#""\uFEFF""#, "\u{FEFF}"), (#""\u2028\u2029""#, "\u{2028}\u{2029}"),
        (#""a\"b\\c\/d\be\ff\ng\rh\ti\u0020j""#, "a\"b\\c/d\u{08}e\u{0C}f\ng\rh\ti j"),
        (#""\\u0041""#, "\\u0041"), (#""\\\"""#, "\\\""),
    ])
    func decodesEveryEscape(_ text: String, _ expected: String) throws {
        #expect(try JSONValue(parsing: text).stringValue.map(scalars) == scalars(expected))
    }

    /// Unescaped characters pass through: ASCII, DEL, multi-byte UTF-8 and astral characters,
    /// and the JavaScript line terminators (legal in JSON strings).
    @Test(arguments: ["", "abc", " ", "\u{7F}", "é", "e\u{301}", "日本語", "😀", "\u{10FFFF}", "\u{2028}\u{2029}", "'", "#", "]}", "\u{FEFF}"])
    func keepsUnescapedCharacters(_ content: String) throws {
        let value = try JSONValue(parsing: "\"" + content + "\"")
        #expect(value.stringValue.map(scalars) == scalars(content))
    }

    /// A surrogate pair written as two escapes is one astral character.
    @Test(arguments: [(#""\ud83d\ude00""#, "😀"), (#""\uD834\uDD1E""#, "𝄞"), (#""\uD800\uDC00""#, "\u{10000}"),
                      (#""\uDBFF\uDFFF""#, "\u{10FFFF}"), (#""a\ud83d\ude00b""#, "a😀b")])
    func decodesSurrogatePairs(_ text: String, _ expected: String) throws {
        #expect(try JSONValue(parsing: text).stringValue.map(scalars) == scalars(expected))
    }

    /// A surrogate that is not half of a high-then-low pair decodes to U+FFFD (LoomJSON's
    /// documented choice; RFC 8259 §8.2 leaves the behaviour to the implementation), and whatever
    /// follows it is decoded on its own.
    @Test(arguments: [
        (#""\ud800""#, "\u{FFFD}"), (#""\udc00""#, "\u{FFFD}"), (#""\uDFFF""#, "\u{FFFD}"), (#""\ud800x""#, "\u{FFFD}x"),
        (#""\udc00\ud800""#, "\u{FFFD}\u{FFFD}"), (#""\ud800\ud800""#, "\u{FFFD}\u{FFFD}"),
        (#""\ud800\u0041""#, "\u{FFFD}A"), (#""\ud800\n""#, "\u{FFFD}\n"), (#""\ud800\\""#, "\u{FFFD}\\"),
        (#""\ud800\ud83d\ude00""#, "\u{FFFD}😀"), (#""\ude00\ud83d""#, "\u{FFFD}\u{FFFD}"), (#""\ud800\u""#, nil),
    ] as [(String, String?)])
    func loneSurrogatesBecomeReplacementCharacters(_ text: String, _ expected: String?) throws {
        if let expected {
            #expect(try JSONValue(parsing: text).stringValue.map(scalars) == scalars(expected))
        } else {
            #expect(throws: JSONParseError.self) { try JSONValue(parsing: text) }
        }
    }

    /// `\u` takes exactly four hex digits: no sign, space, fewer digits or non-hex letters.
    @Test(arguments: [#""\u12""#, #""\u123""#, #""\u""#, #""\u+1ab""#, #""\u-1ab""#, #""\u 123""#, #""\u12G4""#,
                      #""\uXXXX""#, #""\u00é9""#, #""\u0x12""#, #""\U0041""#, #""\ud800\u12""#, #""\ud800\uZZZZ""#,
                      #""\u12"#, #""\u1234"#])
    func rejectsMalformedUnicodeEscapes(_ text: String) {
        #expect(throws: JSONParseError.self) { try JSONValue(parsing: text) }
    }

    /// Only the eight characters after `\` that §7 lists start an escape.
    @Test(arguments: ["x", "'", "a", "v", "0", "1", "e", "B", "N", "U", "X", " ", "\n", "é", "\u{00}"])
    func rejectsOtherEscapes(_ c: String) {
        #expect(throws: JSONParseError.self) { try JSONValue(parsing: "\"\\" + c + "\"") }
    }

    /// §7: U+0000 through U+001F must be escaped.
    @Test(arguments: 0..<0x20)
    func rejectsUnescapedControlCharacters(_ byte: Int) {
        let c = UInt8(byte)
        #expect(throws: JSONParseError.self) { try parse(bytes: [0x22, c, 0x22]) }
        #expect(throws: JSONParseError.self) { try parse(bytes: Array(#"{"a":"x"#.utf8) + [c] + Array(#"y"}"#.utf8)) }
        #expect(throws: JSONParseError.self) { try parse(bytes: [0x7B, 0x22, c, 0x22, 0x3A, 0x31, 0x7D]) }
    }

    /// Unterminated strings, single quotes, and a closing quote that is escaped.
    @Test(arguments: [#"""#, #""abc"#, #""\"#, #""\""#, #""a\\\""#, "'a'", #"["a]"#, #"{"a:1}"#, #""\u00"#])
    func rejectsUnterminatedAndSingleQuotedStrings(_ text: String) {
        #expect(throws: JSONParseError.self) { try JSONValue(parsing: text) }
    }
}
