import Engine
import Testing

/// Each chat family's end-of-turn token ends generation, as in llama.cpp's end-of-generation set:
/// the generation loop, the engines' stop tokens and the grammar vocabulary all take
/// `endOfGenerationTokens`, so a model that closes its turn stops there.
@Suite struct TokenizerEndOfTurnTests {
    static let cache = TokenizerCache()

    /// A vocabulary and the end-of-turn text its chat template closes each turn with.
    static let families: [(path: String, endOfTurn: String)] = [
        (SharedData.path("vocab/ggml-vocab-phi-3.gguf"), "<|end|>"),
        (SharedData.path("vocab/ggml-vocab-qwen2.gguf"), "<|im_end|>"),
        (SharedData.llamaVocab("ggml-vocab-qwen35.gguf"), "<|im_end|>"),
        (SharedData.path("vocab/ggml-vocab-llama-bpe.gguf"), "<|eot_id|>"),
        (SharedData.gemma3Model, "<end_of_turn>"),
        (SharedData.defaultModel, "<|im_end|>"),
    ]

    @Test(arguments: families.indices)
    func endOfTurnEndsGeneration(_ index: Int) throws {
        let (path, text) = Self.families[index]
        let t = try Self.cache.tokenizer(path)
        let ids = t.encode(text, parseSpecial: true)
        try #require(ids.count == 1, "\(text) is not one token in \(path)")
        #expect(t.isEndOfGeneration(ids[0]), "\(text) does not end generation in \(path)")
        #expect(t.endOfGenerationTokens.contains(ids[0]))
        #expect(t.isControl(ids[0]))
        // Rendered as text only on request; plain decoding hides it.
        #expect(try t.decode(ids) == "")
    }
}
