import Engine
import Foundation
import LoomJSON
import Testing

/// stories260K marks absent special tokens with 0xFFFFFFFF; its 200-token golden story must
/// decode to llama2.c's expected text.
@Suite struct TokenizerStories260KTests {
    @Test func absentSpecialTokensAreNone() throws {
        let tokenizer = try Tokenizer(gguf: GGUFFile(path: SharedData.path("models/stories260K.gguf")))
        #expect(tokenizer.padding == nil)
        #expect(tokenizer.bos == 1 && tokenizer.eos == 2)
    }

    @Test func goldenStoryDecodesToLlama2cText() throws {
        let tokenizer = try Tokenizer(gguf: GGUFFile(path: SharedData.path("models/stories260K.gguf")))
        let reference = try JSONValue(parsing: String(contentsOfFile: SharedData.path("reference/stories260K.json"), encoding: .utf8))
        let ids = try #require(reference["generated_ids"]?.arrayValue).compactMap { $0.intValue.map(Int32.init) }
        let expected = try String(contentsOfFile: SharedData.path("reference/stories260K-expected.txt"), encoding: .utf8)
        let text = try tokenizer.decode(ids)
        #expect(text.trimmingCharacters(in: .newlines) == expected.trimmingCharacters(in: .newlines))
    }
}
