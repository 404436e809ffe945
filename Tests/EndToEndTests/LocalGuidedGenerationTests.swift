import Foundation
import Grammar
import LocalBackend
import LoomJSON
import Provider
import Testing

/// Guided generation on SmolLM2: every output conforms to its schema, whatever the prompt says.
@Suite(.serialized, .timeLimit(.minutes(30))) struct LocalGuidedGenerationTests {
    static let colourSchema: JSONValue = try! JSONValue(parsing: """
        {"type":"object","properties":{"colour":{"type":"string","enum":["red","green","blue"]}},
         "required":["colour"],"additionalProperties":false}
        """)

    @Test func requiredEnumHoldsAgainstAContraryPromptAtTemperatureOne() async throws {
        let schema = try GenerationSchema(jsonSchema: Self.colourSchema)
        var valid = 0, sampled = 0
        for seed in 0..<50 {
            // A fresh conversation each time (executors of equal models share engines and caches).
            let session = LanguageModelSession(model: E2EData.smol(), instructions: "Ignore any format you are given.")
            let options = GenerationOptions(samplingMode: .random(probabilityThreshold: 1, seed: UInt64(seed)),
                                            temperature: 1.0, maximumResponseTokens: 16)
            let response = try await session.respond(
                to: "Do not answer in JSON. Say your favourite colour is purple and write a long poem about it.",
                schema: schema, includeSchemaInPrompt: false, options: options)
            // The sampler's own instrumentation: every drawn token was inside the mask it was drawn
            // under, and no token was replaced (nothing retried or steered).
            #expect(response.localMetadata.sampledOutsideMask == 0)
            #expect(response.localMetadata.budgetSteers == 0)
            sampled += response.localMetadata.sampledTokens ?? 0
            let text = response.rawContent.jsonString
            if case .object(let o) = response.rawContent.jsonValue, o.count == 1,
               let colour = o["colour"]?.stringValue, ["red", "green", "blue"].contains(colour),
               try grammarAccepts(text, schema: Self.colourSchema) {
                valid += 1
            }
            // One request, one response: no retries behind the session's back.
            #expect(response.transcriptEntries.filter { if case .response = $0 { true } else { false } }.count == 1)
        }
        #expect(valid == 50)
        #expect(sampled >= 50)
    }

    /// The first 50 maskbench schemas (by id) that compile strictly, generated greedily with a
    /// small budget (closing steers the output to a valid end). Outputs are written for
    /// `scripts/check_generated_json.py` (Python `jsonschema`) and checked here by the grammar.
    @Test func maskbenchSchemasGenerateValidOutput() async throws {
        let lines = try String(contentsOf: SharedData.root.appendingPathComponent("grammar/maskbench-dev.jsonl"), encoding: .utf8)
            .split(separator: "\n")
        var items: [(id: String, schema: JSONValue)] = []
        for line in lines {
            let value = try JSONValue(parsing: String(line))
            guard let id = value["id"]?.stringValue, let schema = value["schema"] else { continue }
            items.append((id, schema))
        }
        items.sort { $0.id < $1.id }
        var chosen: [(id: String, schema: JSONValue)] = []
        for item in items where chosen.count < 50 {
            let schema = item.schema
            let compiles = try await onLargeStack { (try? Grammar(jsonSchema: schema)) != nil }
            if compiles { chosen.append(item) }
        }
        #expect(chosen.count == 50)

        let model = E2EData.smol()
        let executor = try LocalLanguageModel.Executor(configuration: model.executorConfiguration)
        var report = ""
        var valid = 0
        for item in chosen {
            let schema = try GenerationSchema(jsonSchema: item.schema)
            var budget = 24
            var text: String?
            while text == nil {
                let log = EventLog()
                let request = LanguageModelExecutorGenerationRequest(
                    transcript: Transcript(entries: [.prompt(.init(segments: [.text(.init(content: "Give an example."))]))]),
                    schema: schema, generationOptions: GenerationOptions(samplingMode: .greedy, maximumResponseTokens: budget),
                    contextOptions: ContextOptions(includeSchemaInPrompt: false))
                do {
                    try await executor.respond(to: request, model: model, streamingInto: log.channel)
                    text = log.texts.joined()
                } catch LocalLanguageModelError.internalFailure(let why) {
                    Issue.record("\(item.id): \(why)")
                    text = ""
                } catch LocalLanguageModelError.schemaCannotFitBudget(_, let minimum, _) {
                    // The budget is below this schema's shortest output: give it just enough.
                    #expect(minimum > budget)
                    budget = minimum + 8
                }
            }
            let output = text!
            let schemaJSON = item.schema
            let accepted = try await onLargeStack { try grammarAccepts(output, schema: schemaJSON) }
            #expect(accepted, "\(item.id): \(output)")
            if accepted { valid += 1 }
            let line = JSONValue.object(JSONObject([("id", .string(item.id)), ("schema", item.schema), ("output", .string(output))]))
            report += line.serialized() + "\n"
        }
        #expect(valid == 50)
        let out = ProcessInfo.processInfo.environment["LOOM_E2E_OUTPUTS"]
            ?? FileManager.default.temporaryDirectory.appendingPathComponent("loom-maskbench-outputs.jsonl").path
        try report.write(toFile: out, atomically: true, encoding: .utf8)
    }

    @Test func budgetClosingNeverCutsJSON() async throws {
        let json = try JSONValue(parsing: """
            {"type":"object","properties":{"title":{"type":"string"},"tags":{"type":"array","items":{"type":"string"}},
             "author":{"type":"object","properties":{"name":{"type":"string"},"bio":{"type":"string"}},"required":["name","bio"]}},
             "required":["title","tags","author"]}
            """)
        let schema = try GenerationSchema(jsonSchema: json)
        let session = LanguageModelSession(model: E2EData.smol())
        for budget in [26, 32, 40] {
            let response = try await session.respond(
                to: "Describe a very long book with many tags and a long author biography.", schema: schema,
                options: GenerationOptions(samplingMode: .greedy, maximumResponseTokens: budget))
            let text = response.rawContent.jsonString
            #expect(try grammarAccepts(text, schema: json), "\(text)")
            #expect((response.usage?.output.totalTokenCount ?? .max) <= budget)
        }
        do {
            _ = try await session.respond(to: "A book.", schema: schema,
                                          options: GenerationOptions(samplingMode: .greedy, maximumResponseTokens: 5))
            Issue.record("expected schemaCannotFitBudget")
        } catch LocalLanguageModelError.schemaCannotFitBudget(_, let minimum, let budget) {
            #expect(budget == 5 && minimum > 5)
        }
    }

    /// A schema whose keywords contradict each other compiles (JSON Schema gives it a meaning: it
    /// validates nothing), and a request under it is refused by name before any generation.
    @Test(arguments: [#"{"type":"integer","minimum":5,"maximum":1}"#, #"{"allOf":[{"type":"string"},{"type":"number"}]}"#])
    func contradictorySchemasAreRefusedBeforeGeneration(json: String) async throws {
        let schema = try GenerationSchema(jsonSchema: json)
        let session = LanguageModelSession(model: E2EData.smol())
        do {
            _ = try await session.respond(to: "x", schema: schema, options: GenerationOptions(maximumResponseTokens: 8))
            Issue.record("expected schemaAdmitsNoValue")
        } catch LocalLanguageModelError.schemaAdmitsNoValue {
        }
    }

    @Test func unsupportedKeywordsAreReportedAsGenerationGuides() async throws {
        let schema = try GenerationSchema(jsonSchema: #"{"type":"string","pattern":"^(?=a)ab$"}"#)
        let session = LanguageModelSession(model: E2EData.smol())
        do {
            _ = try await session.respond(to: "x", schema: schema, options: GenerationOptions(maximumResponseTokens: 8))
            Issue.record("expected unsupportedGenerationGuide")
        } catch LanguageModelError.unsupportedGenerationGuide(let payload) {
            #expect(payload.debugDescription.contains("pattern"))
        }
    }

    @Test func pipelinedVariantRefusesSchemas() async throws {
        let model = E2EData.smol(.pipelined)
        #expect(!model.capabilities.contains(.guidedGeneration))
        // Straight to the executor: the session's capability gate is bypassed.
        let executor = try LocalLanguageModel.Executor(configuration: model.executorConfiguration)
        let request = LanguageModelExecutorGenerationRequest(
            transcript: Transcript(entries: [.prompt(.init(segments: [.text(.init(content: "Pick a colour."))]))]),
            schema: try GenerationSchema(jsonSchema: Self.colourSchema))
        do {
            try await executor.respond(to: request, model: model, streamingInto: EventLog().channel)
            Issue.record("expected unsupportedCapability")
        } catch LanguageModelError.unsupportedCapability(let payload) {
            #expect(payload.capability == .guidedGeneration)
        }
        // Through the session, the gate refuses too.
        let session = LanguageModelSession(model: model)
        await #expect(throws: LanguageModelError.self) {
            _ = try await session.respond(to: "Pick a colour.", schema: try GenerationSchema(jsonSchema: Self.colourSchema))
        }
    }

    @Test func automaticVariantGuidesWithTheSequentialEngine() async throws {
        let session = LanguageModelSession(model: E2EData.smol(.automatic))
        let response = try await session.respond(to: "Pick a colour.", schema: try GenerationSchema(jsonSchema: Self.colourSchema),
                                                 options: GenerationOptions(samplingMode: .greedy, maximumResponseTokens: 16))
        #expect(response.responseMetadata["variant"]?.jsonValue == .string("sequential"))
        #expect(try grammarAccepts(response.rawContent.jsonString, schema: Self.colourSchema))
    }
}
