import Foundation
import LocalBackend
import LoomJSON
import Provider
import Testing

/// Guided and free requests of one model run on one scheduler: the guided ones (caller-driven,
/// a grammar mask on their rows only) share forward passes with free ones (sampled inside the
/// scheduler), and neither notices the other.
@Suite(.serialized, .timeLimit(.minutes(10))) struct MixedBatchTests {
    static let schema: JSONValue = try! JSONValue(parsing: """
        {"type":"object","properties":{"name":{"type":"string","maxLength":12},"age":{"type":"integer","minimum":0,"maximum":120},
         "pets":{"type":"array","items":{"enum":["cat","dog","fish"]},"maxItems":3}},
         "required":["name","age","pets"],"additionalProperties":false}
        """)
    static let freePrompts = ["Name three rivers of Europe.", "Describe the sea in one long sentence."]
    static let guidedPrompts = ["Invent a person who has pets.", "Describe a pet owner as JSON."]
    /// Instructions that differ in their first words, so no two prompts share a KV block: a
    /// prompt evaluated after a shared prefix is chunked differently, and so rounds differently.
    static let instructions = ["Alpha: you are a geographer.", "Bravo: you are a poet.",
                               "Charlie: you invent people.", "Delta: you describe people."]
    static let options = GenerationOptions(samplingMode: .greedy, maximumResponseTokens: 32)

    @Test("Guided requests beside free ones: every guided output conforms, every free one equals its solo run")
    func guidedBesideFree() async throws {
        // Different context sizes make different runtimes, so the solo runs leave no blocks for
        // the mixed ones to reuse: both evaluate their prompts the same way.
        let soloModel = E2EData.smol(.automatic, context: 576)
        var solo: [String] = []
        for (i, prompt) in Self.freePrompts.enumerated() {
            let session = LanguageModelSession(model: soloModel, instructions: Self.instructions[i])
            solo.append(try await session.respond(to: prompt, options: Self.options).content)
        }

        let model = E2EData.smol(.automatic, context: 640)
        let executor = try await LocalLanguageModel.Executor.load(configuration: model.executorConfiguration)
        #expect(executor.maxConcurrentSequences >= 4)
        let schema = try GenerationSchema(jsonSchema: Self.schema)
        async let free0 = LanguageModelSession(model: model, instructions: Self.instructions[0]).respond(to: Self.freePrompts[0], options: Self.options)
        async let guided0 = LanguageModelSession(model: model, instructions: Self.instructions[2]).respond(to: Self.guidedPrompts[0], schema: schema,
                                                                      includeSchemaInPrompt: true, options: Self.options)
        async let free1 = LanguageModelSession(model: model, instructions: Self.instructions[1]).respond(to: Self.freePrompts[1], options: Self.options)
        async let guided1 = LanguageModelSession(model: model, instructions: Self.instructions[3]).respond(to: Self.guidedPrompts[1], schema: schema,
                                                                      includeSchemaInPrompt: true, options: Self.options)
        let (f0, g0, f1, g1) = try await (free0, guided0, free1, guided1)

        #expect([f0.content, f1.content] == solo)
        for g in [g0, g1] {
            #expect(try grammarAccepts(g.rawContent.jsonString, schema: Self.schema), "\(g.rawContent.jsonString)")
            #expect(g.localMetadata.sampledOutsideMask == 0)
        }
        // They did share steps (not one after another).
        #expect(executor.schedulerStatistics.maxSequencesInStep >= 2)
    }
}
