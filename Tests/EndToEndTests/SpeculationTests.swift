import Foundation
import LocalBackend
import LoomJSON
import Provider
import Testing

/// Prompt-lookup speculation on SmolLM2 leaves output unchanged: the same text with and without
/// it — greedy, seeded sampling and guided — while proposals are made and accepted on prompts
/// whose answers copy their input (so a speculation silently switched off fails these tests).
@Suite(.serialized, .timeLimit(.minutes(20))) struct SpeculationTests {
    static let passage = """
        The Lindqvist Observatory was founded in 1911 by Astrid Lindqvist on the northern ridge above \
        the town of Varberg. Its first instrument was a 40-centimetre refractor built by the Zeiss \
        works in Jena, and its first director was Henrik Sand, who catalogued 312 double stars \
        before the observatory closed in 1968.
        """

    private func model(speculation: Int, variant: LocalLanguageModel.Variant) -> LocalLanguageModel {
        // A context no other suite uses gives these tests a runtime (and scheduler) of their own:
        // sequences of suites running in parallel on a shared one would make speculation step
        // aside (`SchedulerPolicy.speculationMaxSequences`).
        var model = E2EData.smol(variant, context: 1040)
        model.speculationLimit = speculation
        return model
    }

    private func respond(_ speculation: Int, _ variant: LocalLanguageModel.Variant = .sequential, prompt: String,
                         options: GenerationOptions, schema: GenerationSchema? = nil)
        async throws -> (text: String, proposed: Int, accepted: Int)
    {
        let session = LanguageModelSession(model: model(speculation: speculation, variant: variant),
                                           instructions: "Answer using the words of the text.")
        return try await session.speculativeAnswer(to: prompt, schema: schema, options: options)
    }

    /// Both generation paths: the caller-driven loop (sequential) and sampling inside the
    /// scheduler (pipelined).
    @Test(arguments: [LocalLanguageModel.Variant.sequential, .pipelined])
    func greedyOutputIsIdenticalAndProposalsAreAccepted(variant: LocalLanguageModel.Variant) async throws {
        let prompt = "Repeat this text word for word:\n\n" + Self.passage
        let options = GenerationOptions(samplingMode: .greedy, maximumResponseTokens: 80)
        let plain = try await respond(0, variant, prompt: prompt, options: options)
        let fast = try await respond(8, variant, prompt: prompt, options: options)
        #expect(fast.0 == plain.0)
        #expect(plain.proposed == 0 && plain.accepted == 0)
        #expect(fast.proposed > 0)
        #expect(fast.accepted > 0)
    }

    @Test(arguments: [LocalLanguageModel.Variant.sequential, .pipelined], [UInt64(1), 7])
    func seededSamplingIsIdentical(variant: LocalLanguageModel.Variant, seed: UInt64) async throws {
        let prompt = "Summarise, reusing its phrases:\n\n" + Self.passage
        let options = GenerationOptions(samplingMode: .random(top: 40, seed: seed), temperature: 0.8,
                                        maximumResponseTokens: 60)
        let plain = try await respond(0, variant, prompt: prompt, options: options)
        let fast = try await respond(6, variant, prompt: prompt, options: options)
        #expect(fast.0 == plain.0)
    }

    @Test func guidedExtractionIsIdenticalAndSpeculates() async throws {
        let json = try JSONValue(parsing: """
            {"type":"object","properties":{
              "founder":{"type":"string"},"town":{"type":"string"},"instrument":{"type":"string"},
              "director":{"type":"string"},"closed":{"type":"integer"}},
             "required":["founder","town","instrument","director","closed"],"additionalProperties":false}
            """)
        let schema = try GenerationSchema(jsonSchema: json)
        let prompt = "Extract the fields from this text:\n\n" + Self.passage
        let options = GenerationOptions(samplingMode: .greedy, maximumResponseTokens: 120)
        let plain = try await respond(0, prompt: prompt, options: options, schema: schema)
        let fast = try await respond(8, prompt: prompt, options: options, schema: schema)
        #expect(fast.0 == plain.0)
        #expect(try grammarAccepts(fast.0, schema: json))
        #expect(fast.proposed > 0)
        #expect(fast.accepted > 0)
    }
}
