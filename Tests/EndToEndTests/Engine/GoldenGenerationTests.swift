import Engine
import Testing

/// Greedy generations that must match exactly (ids from `../shared/reference`).
@Suite(.serialized, .timeLimit(.minutes(30))) struct GoldenGenerationTests {
    /// llama2.c's own golden story for stories260K: BOS, then 200 greedy tokens.
    @Test func stories260KGoldenStory() throws {
        let ref = try ReferenceVectors("stories260K")
        let transformer = try Transformer(model: Model(path: ref.modelPath),
                                          configuration: TransformerConfiguration(contextLength: 256))
        let ids = try greedyDecode(transformer, prompt: ref.promptIDs, steps: ref.generatedIDs.count)
        #expect(ids == ref.generatedIDs)
    }

    /// SmolLM2-135M-Instruct Q4_1 answers the ChatML Paris prompt with
    /// "The capital of France is Paris." then `<|im_end|>`.
    @Test func smolLM2AnswersParis() throws {
        let ref = try ReferenceVectors("smollm2-135m-q4_1-paris")
        let model = try Model(path: ref.modelPath)
        let transformer = try Transformer(model: model, configuration: TransformerConfiguration(contextLength: 64))
        let ids = try greedyDecode(transformer, prompt: ref.promptIDs, steps: 16,
                                   stop: Set(model.config.specialTokens.endOfGenerationIDs))
        #expect(ids == [504, 3575, 282, 4649, 314, 7042, 30, 2])
    }
}
