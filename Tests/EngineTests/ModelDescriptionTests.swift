import Engine
import Foundation
import Testing

/// Hyper-parameter derivation and validation (`ModelDescription(file:)`).
@Suite struct ModelDescriptionTests {
    private func load(_ g: TinyGGUF) throws -> ModelDescription {
        try ModelDescription(file: GGUFFile(path: g.write()))
    }

    private func expectError(_ expected: ModelLoadError, _ g: TinyGGUF) throws {
        let path = try g.write()
        let file = try GGUFFile(path: path)
        #expect(throws: expected) { try ModelDescription(file: file) }
    }

    @Test func readsStories260K() throws {
        let d = try ModelDescription(file: GGUFFile(path: SharedData.path("models/stories260K.gguf")))
        #expect(d.architecture == "llama")
        #expect(d.embeddingLength == 64 && d.blockCount == 5 && d.headCount == 8 && d.kvHeadCount == 4)
        #expect(d.headDimension == 8 && d.feedForwardLength == 172 && d.vocabularySize == 512)
        #expect(d.rope == RoPEParameters(style: .adjacentPairs, dimensionCount: 8, base: 10000, linearScale: 1,
                                         hasFrequencyFactors: false))
        #expect(!d.tiedOutput && !d.hasAttentionBias)
        #expect(d.specialTokens.bos == 1 && d.specialTokens.eos == 2 && d.specialTokens.padding == nil)
        #expect(d.specialTokens.endOfGenerationIDs == [2])
    }

    @Test func readsQwen2Fixture() throws {
        let d = try ModelDescription(file: GGUFFile(path: SharedData.path("models/fixtures/synth-qwen2-f32.gguf")))
        #expect(d.architecture == "qwen2" && d.rope.style == .halfSplit && d.rope.base == 1e6)
        #expect(d.tiedOutput && d.hasAttentionBias)
    }

    @Test func readsDefaultModel() throws {
        let d = try ModelDescription(file: GGUFFile(path: SharedData.defaultModel))
        #expect(d.embeddingLength == 576 && d.blockCount == 30 && d.headCount == 9 && d.kvHeadCount == 3)
        #expect(d.tiedOutput && d.vocabularySize == 49152 && d.rope.base == 100000)
        #expect(d.specialTokens.addBOS == false)
        #expect(d.specialTokens.endOfGenerationIDs == [2])
    }

    @Test func descriptionRoundTripsThroughCodable() throws {
        let d = try load(.llama())
        let data = try JSONEncoder().encode(d)
        #expect(try JSONDecoder().decode(ModelDescription.self, from: data) == d)
    }

    @Test func acceptsTinyModels() throws {
        let d = try load(.llama(blocks: 2))
        #expect(d.blockCount == 2 && d.headDimension == 4 && d.kvLength == 4)
        let q = try load(.llama(architecture: "qwen2", bias: true))
        #expect(q.hasAttentionBias && q.rope.style == .halfSplit)
    }

    @Test func rejectsUnsupportedArchitecture() throws {
        var g = TinyGGUF.llama()
        g["general.architecture"] = .string("mamba")
        try expectError(.unsupportedArchitecture("mamba"), g)
    }

    @Test func rejectsZeroHeads() throws {
        var g = TinyGGUF.llama()
        g["llama.attention.head_count"] = .u32(0)
        try expectError(.inconsistentHyperparameters("llama.attention.head_count is 0"), g)
    }

    @Test func rejectsKVHeadsThatDoNotDivideHeads() throws {
        var g = TinyGGUF.llama()
        g["llama.attention.head_count"] = .u32(4)
        g["llama.attention.head_count_kv"] = .u32(3)
        try expectError(.inconsistentHyperparameters("llama.attention.head_count_kv 3 does not divide head_count 4"), g)
    }

    @Test func rejectsEmbeddingLengthThatContradictsTensors() throws {
        var g = TinyGGUF.llama()
        g["llama.embedding_length"] = .u32(16)
        try expectError(.tensorShapeMismatch(tensor: "token_embd.weight", expected: [16, 4], found: [8, 4]), g)
    }

    @Test func rejectsMissingTensor() throws {
        var g = TinyGGUF.llama()
        g.removeTensor("blk.0.ffn_up.weight")
        try expectError(.missingTensor("blk.0.ffn_up.weight"), g)
        var q = TinyGGUF.llama(architecture: "qwen2", bias: true)
        q.removeTensor("blk.0.attn_k.bias")
        try expectError(.missingTensor("blk.0.attn_k.bias"), q)
    }

    @Test func rejectsBlockCountBeyondTensors() throws {
        var g = TinyGGUF.llama(blocks: 1)
        g["llama.block_count"] = .u32(3)
        try expectError(.missingBlocks(declared: 3, present: 1), g)
    }

    @Test func rejectsTensorShapeMismatch() throws {
        var g = TinyGGUF.llama()
        g.setShape("blk.0.attn_k.weight", [8, 8])
        try expectError(.tensorShapeMismatch(tensor: "blk.0.attn_k.weight", expected: [8, 4], found: [8, 8]), g)
    }

    @Test func rejectsSpecialTokenOutsideVocabulary() throws {
        var g = TinyGGUF.llama()
        g["tokenizer.ggml.eos_token_id"] = .u32(7)
        try expectError(.specialTokenOutOfRange(key: "tokenizer.ggml.eos_token_id", id: 7, vocabularySize: 4), g)
    }

    @Test func rejectsTokenizerVocabularyThatContradictsEmbeddings() throws {
        var g = TinyGGUF.llama()
        g["tokenizer.ggml.tokens"] = .strings(["a", "b"])
        try expectError(.inconsistentHyperparameters("tokenizer.ggml.tokens has 2 entries but token_embd.weight has 4 rows"), g)
    }

    @Test func rejectsUnsupportedRoPEScaling() throws {
        var g = TinyGGUF.llama()
        g["llama.rope.scaling.type"] = .string("yarn")
        try expectError(.unsupportedFeature("rope.scaling.type 'yarn'"), g)
    }

    @Test func readsLinearRoPEScalingAndTiedOutput() throws {
        var g = TinyGGUF.llama()
        g["llama.rope.scaling.type"] = .string("linear")
        g["llama.rope.scaling.factor"] = .f32(4)
        let d = try load(g)
        #expect(d.rope.linearScale == 4 && d.tiedOutput)
    }
}
