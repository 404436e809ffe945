import Foundation
import LocalBackend
import LoomJSON
import Provider
import Testing

/// Speculation never changes greedy output: twenty prompts over two models (SmolLM2 and Gemma 3
/// 270M, ten each) — half of them copy their input, so runs are proposed and accepted, half ask
/// for new text, so most proposals are rejected and rolled back — and twenty schemas under guided
/// generation, each output equal to the plain one and valid. Each model's prompts alternate
/// between the caller-driven loop (sequential) and sampling inside the scheduler (pipelined).
@Suite(.serialized, .timeLimit(.minutes(20))) struct SpeculationIdentityTests {
    /// Passages the prompts quote from.
    static let passages = [
        """
        The ferry leaves Harwick pier at seven each morning and reaches the island of Moll after \
        forty minutes. Tickets cost four pounds for adults and two for children under twelve.
        """,
        """
        Mira Castell repaired clocks in a narrow shop on Bridge Street for thirty-one years. Her \
        apprentice, Tomas Reyes, took over the shop in 2019 and added a small cafe at the back.
        """,
        """
        To reset the router, hold the recessed button for ten seconds until the amber light \
        blinks twice, then wait two minutes before reconnecting the cable to port three.
        """,
        """
        The committee approved a budget of 2.4 million for the new library wing, which will hold \
        a reading room, twelve study cells and an archive for the town's maritime records.
        """,
        """
        Blue herons nest in tall trees near water and feed mostly on fish, frogs and insects. A \
        pair usually raises three to five chicks, which leave the nest after about two months.
        """,
    ]

    /// Ten prompts whose answers copy their input and ten that ask for new text.
    static let prompts: [String] = {
        var prompts: [String] = []
        for passage in passages {
            prompts.append("Repeat this text exactly:\n\n" + passage)
            prompts.append("Rewrite this text, changing only the first sentence:\n\n" + passage)
        }
        prompts += [
            "Write a short story about a lighthouse keeper who finds a map.",
            "List five unusual uses for a paperclip.",
            "Explain why the sky is blue to a ten-year-old.",
            "Write a haiku about autumn rain.",
            "What are three tips for learning a new language?",
            "Describe the taste of a lemon without using the word sour.",
            "Invent a name and a motto for a bakery on the moon.",
            "Give two arguments for and two against homework.",
            "Write a limerick about a forgetful robot.",
            "Summarise the plot of a heist film you make up.",
        ]
        return prompts
    }()

    /// A runtime of this suite's own (a context no other suite uses), so parallel suites never
    /// make speculation step aside.
    private static func model(_ path: String, _ variant: LocalLanguageModel.Variant, speculation: Int)
        -> LocalLanguageModel
    {
        var model = LocalLanguageModel(path: path, variant: variant, contextSize: 1056)
        model.speculationLimit = speculation
        return model
    }

    private func respond(_ path: String, _ variant: LocalLanguageModel.Variant, speculation: Int, prompt: String,
                         schema: GenerationSchema? = nil, tokens: Int = 32)
        async throws -> (text: String, proposed: Int, accepted: Int)
    {
        let session = LanguageModelSession(model: Self.model(path, variant, speculation: speculation))
        let options = GenerationOptions(samplingMode: .greedy, maximumResponseTokens: tokens)
        return try await session.speculativeAnswer(to: prompt, schema: schema, options: options)
    }

    /// SmolLM2 takes the even prompts (the verbatim copies and half the free ones), Gemma 3 the
    /// odd ones (the rewrites and the other free half).
    @Test(arguments: [(SharedData.defaultModel, 0), (SharedData.gemma3Model, 1)])
    func greedyOutputIsIdenticalOnTwentyPrompts(path: String, half: Int) async throws {
        var copied = (proposed: 0, accepted: 0), free = (proposed: 0, accepted: 0)
        for (i, prompt) in Self.prompts.enumerated() where i % 2 == half {
            let variant: LocalLanguageModel.Variant = (i / 2) % 2 == 0 ? .sequential : .pipelined
            let plain = try await respond(path, variant, speculation: 0, prompt: prompt)
            let fast = try await respond(path, variant, speculation: 8, prompt: prompt)
            #expect(fast.text == plain.text, "prompt \(i) (\(variant))")
            #expect(plain.proposed == 0 && plain.accepted == 0, "prompt \(i)")
            if i < 10 {
                copied.proposed += fast.proposed
                copied.accepted += fast.accepted
            } else {
                free.proposed += fast.proposed
                free.accepted += fast.accepted
            }
        }
        // Copying prompts exercise accepted runs; rejected proposals are rolled back on both
        // kinds (every proposal not accepted was evaluated and then removed).
        #expect(copied.accepted > 0)
        #expect(copied.proposed + free.proposed > copied.accepted + free.accepted)
    }

    /// Twenty object schemas over the passages: field names the passages answer, of every JSON
    /// type the grammar forces differently (strings, integers, numbers, booleans, enums, arrays).
    static let schemas: [String] = {
        let fields = [
            #""from":{"type":"string"},"minutes":{"type":"integer"},"adult_price":{"type":"number"}"#,
            #""name":{"type":"string"},"street":{"type":"string"},"years":{"type":"integer"}"#,
            #""seconds":{"type":"integer"},"light":{"enum":["amber","green","red"]},"port":{"type":"integer"}"#,
            #""budget_millions":{"type":"number"},"rooms":{"type":"array","items":{"type":"string"},"maxItems":4}"#,
            #""bird":{"type":"string"},"foods":{"type":"array","items":{"type":"string"},"maxItems":4}"#,
        ]
        let extras = [
            "", #","summary":{"type":"string","maxLength":60}"#, #","certain":{"type":"boolean"}"#,
            #","keywords":{"type":"array","items":{"type":"string"},"maxItems":3}"#,
        ]
        var schemas: [String] = []
        for extra in extras {
            for f in fields { schemas.append(#"{"type":"object","properties":{"# + f + extra + "}}") }
        }
        return schemas
    }()

    @Test func guidedOutputsAreIdenticalAndValidUnderTwentySchemas() async throws {
        var accepted = 0
        for (i, text) in Self.schemas.enumerated() {
            var json = try JSONValue(parsing: text)
            // Every declared field is required, in declaration order.
            if case .object(let object) = json, case .object(let properties)? = object["properties"] {
                var required = object
                required["required"] = .array(properties.keys.map { .string($0) })
                required["additionalProperties"] = .bool(false)
                json = .object(required)
            }
            let schema = try GenerationSchema(jsonSchema: json)
            let prompt = "Extract the fields from this text as JSON:\n\n" + Self.passages[i % Self.passages.count]
            // Guided generation runs on the caller-driven loop (the pipelined variant refuses it).
            let plain = try await respond(SharedData.defaultModel, .sequential, speculation: 0, prompt: prompt,
                                          schema: schema, tokens: 96)
            let fast = try await respond(SharedData.defaultModel, .sequential, speculation: 8, prompt: prompt,
                                         schema: schema, tokens: 96)
            #expect(fast.text == plain.text, "schema \(i)")
            #expect(try grammarAccepts(fast.text, schema: json), "schema \(i): \(fast.text)")
            accepted += fast.accepted
        }
        #expect(accepted > 0)
    }
}
