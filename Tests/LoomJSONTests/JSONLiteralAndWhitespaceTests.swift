import LoomJSON
import Testing

/// RFC 8259 §2 (JSON-text, ws, structural characters) and §3 (the literal names).
@Suite struct JSONLiteralAndWhitespaceTests {
    /// §2: a JSON text is any serialized value, scalars included, with optional whitespace around it.
    @Test(arguments: [
        ("true", JSONValue.bool(true)), ("false", .bool(false)), ("null", .null),
        ("0", .number(JSONNumber(literal: "0"))), (#""s""#, .string("s")),
        ("[]", .array([])), ("{}", .object(JSONObject())),
        (" true ", .bool(true)), ("\t\n\r null \r\n\t", .null),
    ] as [(String, JSONValue)])
    func acceptsAnyValueAsTheWholeText(_ text: String, _ expected: JSONValue) throws {
        #expect(try JSONValue(parsing: text) == expected)
    }

    /// §3: the literal names are lowercase and exact.
    @Test(arguments: ["True", "TRUE", "False", "NULL", "Null", "nul", "tru", "t", "f", "n", "fals", "nulll", "truee",
                      "none", "nil", "undefined", "truefalse", "null null", "[tru]", "[nul]", "{\"a\":fals}"])
    func rejectsMisspelledLiterals(_ text: String) {
        #expect(throws: JSONParseError.self) { try JSONValue(parsing: text) }
    }

    /// §2: ws is exactly space, horizontal tab, line feed and carriage return, allowed before and
    /// after every structural character and around the whole text.
    @Test(arguments: [
        " 1", "\t1", "\n1", "\r1", "1 ", "1\t", "1\n", "1\r", " \t\n\r1 \t\n\r",
        " [ 1 , 2 ] ", "[\t1\t,\t2\t]", "[\n1\n,\n2\n]", "[\r1\r,\r2\r]",
        " { \"a\" : 1 , \"b\" : [ ] } ", "{\n\t\"a\"\r\n:\n\t1\n}", "[ ]", "{ }",
    ])
    func acceptsTheFourWhitespaceCharacters(_ text: String) {
        #expect(throws: Never.self) { try JSONValue(parsing: text) }
    }

    /// Every other space-like character is outside the grammar: form feed, vertical tab, NEL,
    /// no-break space, the Unicode line and paragraph separators, ideographic space, a NUL, and
    /// the byte order mark (§8.1 lets a parser ignore a BOM or treat it as an error; Loom rejects it).
    @Test(arguments: ["\u{0C}", "\u{0B}", "\u{85}", "\u{A0}", "\u{2028}", "\u{2029}", "\u{3000}", "\u{00}", "\u{FEFF}", "\u{1680}", "\u{2003}"])
    func rejectsOtherSpaceCharacters(_ space: String) {
        for text in [space + "1", "1" + space, "[1," + space + "2]", "{" + space + "\"a\":1}", "{\"a\"" + space + ":1}"] {
            #expect(throws: JSONParseError.self, "\(text.debugDescription)") { try JSONValue(parsing: text) }
        }
    }

    /// §2: the text is exactly one value; anything but whitespace after it is an error.
    @Test(arguments: ["", " ", "\n\t\r ", "{}x", "[]]", "{}}", "1 1", "1,", "null,", #""a""b""#, "{} {}", "[] []",
                      "true false", "0 0", "1]", "\"a\" \"", "{}\u{00}", "[1]//", "[1]/*c*/", "# c\n1", "1 # c"])
    func rejectsEmptyTextsAndTrailingGarbage(_ text: String) {
        #expect(throws: JSONParseError.self) { try JSONValue(parsing: text) }
    }

    /// The error names the byte where the text stops being JSON.
    @Test(arguments: [("1 x", 2), ("[1,2]]", 5), ("{} {}", 3), ("[tru]", 1), ("[1,,2]", 3), ("  @", 2)])
    func errorOffsetPointsAtTheFirstBadByte(_ text: String, _ offset: Int) {
        let error = #expect(throws: JSONParseError.self) { try JSONValue(parsing: text) }
        #expect(error?.offset == offset)
    }
}
