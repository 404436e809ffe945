import LoomJSON
import Testing

/// The one JSON string decoder, on complete and on truncated input.
@Suite struct JSONStringDecoderTests {
    static func decode(_ text: String, truncation: Bool) throws(JSONParseError) -> JSONStringDecoder.Decoded {
        let bytes = Array(text.utf8)
        let result: Result<JSONStringDecoder.Decoded, JSONParseError> = bytes.withUnsafeBufferPointer { buffer in
            do throws(JSONParseError) {
                return .success(try JSONStringDecoder.decode(buffer, at: 0, allowingTruncation: truncation))
            } catch {
                return .failure(error)
            }
        }
        return try result.get()
    }

    @Test func `the end is the offset after the closing quote`() throws {
        let decoded = try Self.decode(#""ab" ,"#, truncation: false)
        #expect(decoded == JSONStringDecoder.Decoded(value: "ab", end: 4, isComplete: true))
    }

    @Test(arguments: [#""ab"#, #""ab\"#, #""ab\u00"#, #""\uD800"#])
    func `truncated input throws unless truncation is allowed`(text: String) throws {
        #expect(throws: JSONParseError.self) { _ = try Self.decode(text, truncation: false) }
        let decoded = try Self.decode(text, truncation: true)
        #expect(!decoded.isComplete)
        #expect(decoded.end == text.utf8.count)
    }

    @Test(arguments: [#""\u+1ab""#, #""\x""#, "\"a\u{1}\""])
    func `invalid strings throw either way`(text: String) {
        #expect(throws: JSONParseError.self) { _ = try Self.decode(text, truncation: false) }
        #expect(throws: JSONParseError.self) { _ = try Self.decode(text, truncation: true) }
    }
}
