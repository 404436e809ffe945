import LoomJSON
import Testing

@Suite struct JSONValueTests {
    @Test func roundTripKeepsKeyOrderAndNumberLiterals() throws {
        let text = #"{"z":1,"a":[1.50,-0,2e10,{"k":null}],"m":"é\n\"x\"","t":true}"#
        let v = try JSONValue(parsing: text)
        #expect(v.serialized() == text)
        #expect(v["z"]?.intValue == 1)
        #expect(v.objectValue?.keys == ["z", "a", "m", "t"])
    }

    @Test(arguments: ["", "{", "[1,]", "{\"a\":1,}", "01", "1.", "\"\\x\"", "{\"a\":1,\"a\":2}", "[1] 2", "nul"])
    func rejectsInvalidText(_ text: String) {
        #expect(throws: JSONParseError.self) { try JSONValue(parsing: text) }
    }

    @Test func pythonStyleEscapesNonASCII() throws {
        let v = try JSONValue(parsing: #"{"a":"é😀"}"#)
        #expect(v.serialized(.python) == #"{"a": "\u00e9\ud83d\ude00"}"#)
    }

    @Test func depthIsBounded() {
        let deep = String(repeating: "[", count: 10_000) + String(repeating: "]", count: 10_000)
        #expect(throws: JSONParseError.self) { try JSONValue(parsing: deep) }
    }

    @Test func numbersCompareByValue() throws {
        #expect(try JSONValue(parsing: "1.0") == JSONValue(parsing: "1"))
        #expect(try JSONValue(parsing: "{\"a\":1,\"b\":2}") == JSONValue(parsing: "{\"b\":2,\"a\":1}"))
    }
}
