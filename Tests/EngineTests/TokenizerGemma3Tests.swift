import Engine
import Foundation
import Testing

/// Gemma 3's 262,144-token SentencePiece vocabulary (`models/gemma3-270m.gguf`, fetched by
/// `models/fetch gemma3-270m`) against `../shared/reference/gemma3-270m-q4_k_m.json`, whose prompt
/// llama.cpp tokenized and whose greedy continuation decodes to the text its README gives.
@Suite struct TokenizerGemma3Tests {
    static let cache = TokenizerCache()

    static func reference() throws -> (prompt: [Int32], generated: [Int32]) {
        let data = try Data(contentsOf: URL(fileURLWithPath: SharedData.path("reference/gemma3-270m-q4_k_m.json")))
        let object = try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
        let prompt = try #require(object["prompt_ids"] as? [Int])
        let generated = try #require(object["generated_ids"] as? [Int])
        return (prompt.map { Int32($0) }, generated.map { Int32($0) })
    }

    @Test func vocabularyAndSpecialTokens() throws {
        let t = try Self.cache.tokenizer(SharedData.gemma3Model)
        #expect(t.algorithm == .sentencePiece)
        #expect(t.vocabularySize == 262_144)
        #expect(t.bos == 2 && t.eos == 1 && t.unknown == 3 && t.padding == 0)
        #expect(t.addBOSByDefault && !t.addSpacePrefix)
        // `<end_of_turn>` ends an instruction-tuned Gemma's turn; `<eos>` ends the document.
        #expect(t.tokenText(106) == "<end_of_turn>")
        #expect(t.eot == 106)
        #expect(t.isEndOfGeneration(106) && t.isEndOfGeneration(1))
        #expect(!t.isEndOfGeneration(105))  // <start_of_turn>
    }

    @Test func promptTokenizesAsLlamaCpp() throws {
        let t = try Self.cache.tokenizer(SharedData.gemma3Model)
        let reference = try Self.reference()
        #expect(t.encode("The capital of France is", addBOS: true) == reference.prompt)
        #expect(reference.prompt == [2, 818, 5279, 529, 7001, 563])
    }

    @Test func greedyContinuationDecodesToTheReferenceText() throws {
        let t = try Self.cache.tokenizer(SharedData.gemma3Model)
        let reference = try Self.reference()
        let text = try t.decode(reference.generated)
        #expect(text == " the capital of the country of France. It is the largest city in France and the second largest city in Europe. It")
        // Without a space prefix nothing is stripped, so the pieces round-trip as they are.
        #expect(t.encode(text) == reference.generated)
    }

    /// The chat markers are control tokens: parsed only when asked, never from user text.
    @Test func turnMarkersAreControlTokens() throws {
        let t = try Self.cache.tokenizer(SharedData.gemma3Model)
        let turn = "<start_of_turn>user\nHi<end_of_turn>\n"
        let parsed = t.encode(turn, parseSpecial: true)
        #expect(parsed.first == 105)
        #expect(parsed.contains(106))
        let plain = t.encode(turn, parseSpecial: false)
        #expect(!plain.contains(105) && !plain.contains(106))
        #expect(try t.decode(parsed, renderSpecial: true) == turn)
    }
}
