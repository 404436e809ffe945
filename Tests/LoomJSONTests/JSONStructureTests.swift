import LoomJSON
import Testing

/// RFC 8259 §4 (objects) and §5 (arrays), and LoomJSON's documented object semantics: members
/// keep document order, and a repeated key is an error.
@Suite struct JSONStructureTests {
    @Test(arguments: [
        ("[]", JSONValue.array([])), ("[1]", [1]), ("[1,2,3]", [1, 2, 3]), ("[[]]", [[]]), ("[[],[[]]]", [[], [[]]]),
        (#"[1,"a",true,false,null,{},[]]"#, [1, "a", true, false, nil, [:], []]), (#"["",""]"#, ["", ""]),
    ] as [(String, JSONValue)])
    func acceptsArrays(_ text: String, _ expected: JSONValue) throws {
        let value = try JSONValue(parsing: text)
        #expect(value == expected)
        #expect(value.serialized() == text)
    }

    @Test(arguments: ["[", "]", "[1", "[1,", "[1,]", "[,1]", "[,]", "[1 2]", "[1,,2]", "[1;2]", "[1:2]", "(1)", "[1}", "[[]", "[]]", "[\"a\":1]"])
    func rejectsMalformedArrays(_ text: String) {
        #expect(throws: JSONParseError.self) { try JSONValue(parsing: text) }
    }

    @Test(arguments: [
        ("{}", JSONValue.object(JSONObject())), (#"{"a":1}"#, ["a": 1]), (#"{"a":1,"b":[2]}"#, ["a": 1, "b": [2]]),
        (#"{"":0}"#, ["": 0]), (#"{"a":{"b":{}}}"#, ["a": ["b": [:]]]), (#"{"a b":"c","\n":null}"#, ["a b": "c", "\n": nil]),
    ] as [(String, JSONValue)])
    func acceptsObjects(_ text: String, _ expected: JSONValue) throws {
        #expect(try JSONValue(parsing: text) == expected)
    }

    @Test(arguments: ["{", "}", "{\"a\"", "{\"a\"}", "{\"a\":}", "{\"a\" 1}", "{a:1}", "{'a':1}", "{1:1}", "{null:1}", "{true:1}",
                      "{[]:1}", "{{}:1}", "{\"a\":1,}", "{,\"a\":1}", "{,}", "{\"a\":1 \"b\":2}", "{\"a\":1;\"b\":2}", "{\"a\"::1}",
                      "{\"a\"=1}", "{\"a\":1]", "{\"a\":1", "{\"a\":1,", "{\"a\",1}"])
    func rejectsMalformedObjects(_ text: String) {
        #expect(throws: JSONParseError.self) { try JSONValue(parsing: text) }
    }

    /// Members come back in document order, however many there are.
    @Test func keepsMemberOrder() throws {
        let keys = (0..<200).map { "k\((7919 * $0) % 200)" }
        let text = "{" + keys.enumerated().map { #""\#($1)":\#($0)"# }.joined(separator: ",") + "}"
        let value = try JSONValue(parsing: text)
        #expect(value.objectValue?.keys == keys)
        #expect(value.objectValue?.members.map(\.key) == keys)
        #expect(value.objectValue?.members.map { $0.value.intValue ?? -1 } == Array(0..<200))
        #expect(value.serialized() == text)
        #expect(value["k0"]?.intValue == 0)
    }

    /// A key repeated in one object is an error at the second occurrence, also when the two
    /// spellings differ only in escapes; the same key in different objects is fine.
    @Test(arguments: [(#"{"a":1,"a":1}"#, 7), (#"{"a":1,"b":2,"a":3}"#, 13), (#"{"a":1,"\u0061":2}"#, 7),
                      (#"{"x":{"a":1,"a":2}}"#, 12), (#"[{"\/":1,"/":2}]"#, 9)])
    func rejectsDuplicateKeys(_ text: String, _ offset: Int) {
        let error = #expect(throws: JSONParseError.self) { try JSONValue(parsing: text) }
        #expect(error?.offset == offset)
    }

    @Test(arguments: [#"{"a":{"a":1}}"#, #"[{"a":1},{"a":2}]"#, #"{"a":1,"A":2}"#, #"{"a":1,"a ":2}"#, #"{"a":[{"a":{"a":0}}]}"#])
    func acceptsTheSameKeyInDifferentObjects(_ text: String) throws {
        #expect(try JSONValue(parsing: text).serialized() == text)
    }

    /// RFC 8259 §8.3 compares member names code unit by code unit, so a precomposed "é" and
    /// "e" + U+0301 are different keys, although Swift's `String ==` (canonical equivalence)
    /// calls them equal.
    @Test func keysDifferingOnlyInNormalizationAreDistinct() throws {
        let value = try JSONValue(parsing: "{\"\u{E9}\":1,\"e\u{301}\":2}")
        let object = try #require(value.objectValue)
        #expect(object.keys.map(scalars) == [[0xE9], [0x65, 0x301]])
        #expect(object["\u{E9}"] == 1)
        #expect(object["e\u{301}"] == 2)
        #expect(value.serialized() == "{\"\u{E9}\":1,\"e\u{301}\":2}")
        var edited = object
        edited["e\u{301}"] = nil
        #expect(edited.keys.map(scalars) == [[0xE9]])
        #expect(JSONObject([("\u{E9}", 1)]) != JSONObject([("e\u{301}", 1)]))
    }
}
