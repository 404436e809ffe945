import Engine
import Foundation
import LocalBackend
import LoomJSON
import Provider
import Testing

/// Gemma 3 270M (`models/fetch gemma3-270m`) as a user runs it: greedy decoding follows the exact
/// reference, and guided generation through `LocalLanguageModel(path:)` always gives
/// schema-valid JSON. Work is kept small: 2 threads, a 512-token context, short outputs.
@Suite(.serialized, .timeLimit(.minutes(20))) struct Gemma3AcceptanceTests {
    /// Greedy tokens after the reference prompt equal the reference's up to the first position
    /// whose reference top-2 margin is below 0.05 (where a rounding difference may pick the
    /// other token, and from which the continuations may part): through the transformer alone
    /// and through the scheduler, whose local layers keep keys and values in a pool of their own.
    @Test func greedyTokensFollowTheReferenceUpToTheFirstNarrowMargin() throws {
        let ref = try ReferenceVectors("gemma3-270m-q4_k_m")
        let first = ref.promptIDs.count - 1
        let narrow = (0..<ref.generatedIDs.count).first {
            let top = ref.positions[first + $0].topLogits
            return top[0] - top[1] < 0.05
        } ?? ref.generatedIDs.count
        #expect(narrow >= 4, "the reference's first narrow margin is at generated token \(narrow)")
        let expected = Array(ref.generatedIDs.prefix(narrow))

        let model = try ModelStore.shared.model(path: ref.modelPath)
        let transformer = try Transformer(model: model, configuration: TransformerConfiguration(threads: 2, contextLength: 512))
        #expect(try greedyDecode(transformer, prompt: ref.promptIDs, steps: narrow) == expected)

        let engine = try SequentialEngine(model: model, configuration: TransformerConfiguration(threads: 2, contextLength: 512))
        try engine.prefill(ref.promptIDs.map { Int32($0) })
        var tokens: [Int] = []
        while tokens.count < narrow {
            let next = argmax(engine.logits)
            tokens.append(next)
            if tokens.count < narrow { _ = try engine.step(Int32(next)) }
        }
        #expect(tokens == expected)
    }

    /// A conversation of three turns outgrowing the 512-position window: each turn evaluates only
    /// its new tokens, and the scheduler holds global-layer keys and values for every position
    /// but local-layer ones for the window and the rollback margin only (bytes printed against
    /// every layer keeping every position).
    @Test func longConversationHoldsLocalKeysForTheWindowOnly() throws {
        let model = try ModelStore.shared.model(path: SharedData.gemma3Model)
        let c = model.config
        let policy = SchedulerPolicy(maxSequences: 1)
        let scheduler = try Scheduler(model: model,
                                      configuration: TransformerConfiguration(threads: 2, contextLength: 2048, kvCacheType: .f16),
                                      policy: policy)
        let engine = SequentialEngine(scheduler: scheduler)
        var conversation: [Int32] = []
        for (turn, count) in [700, 500, 500].enumerated() {
            let before = conversation.count
            conversation += (0..<count).map { Int32(1000 + ($0 * 7919 + turn * 104_729) % 200_000) }
            let result = try engine.prefill(conversation)
            #expect(result.cachedTokenCount == before && result.evaluatedTokenCount == count, "turn \(turn + 1): \(result)")
        }
        let stats = scheduler.statistics
        let local = try #require(stats.localPool)
        let localBlockBytes = try #require(scheduler.localKVBlockBytes)
        let held = stats.pool.blocksInUse * scheduler.kvBlockBytes + local.blocksInUse * localBlockBytes
        let footprint = KVFootprint(c, type: .f16)
        let full = footprint.bytes(positions: conversation.count).full
        print("gemma3 KV held after \(conversation.count) positions: global \(stats.pool.blocksInUse) blocks, local \(local.blocksInUse) blocks, \(held) bytes; every layer at every position: \(full) bytes")
        let bs = policy.blockSize
        #expect(stats.pool.blocksInUse == (conversation.count + bs - 1) / bs)
        // The window, the margin (one 64-token chunk) and one step's rows, in blocks.
        #expect(local.blocksInUse * bs <= c.slidingWindow + 2 * policy.prefillChunk + 2 * bs)
        #expect(held < full / 2)
    }

    static let personSchema: JSONValue = try! JSONValue(parsing: """
        {"type":"object","properties":{"name":{"type":"string","maxLength":12},
         "age":{"type":"integer","minimum":0,"maximum":120}},
         "required":["name","age"],"additionalProperties":false}
        """)

    /// 20 samples at temperature 1 from the base model, each a fresh conversation: every one is
    /// a complete instance of the schema, and no drawn token was outside its mask.
    @Test func guidedGenerationIsSchemaValidTwentyTimesOutOfTwenty() async throws {
        let schema = try GenerationSchema(jsonSchema: Self.personSchema)
        let model = LocalLanguageModel(path: SharedData.gemma3Model, variant: .sequential, contextSize: 512, threads: 2)
        var valid = 0
        for seed in 0..<20 {
            let session = LanguageModelSession(model: model)
            let options = GenerationOptions(samplingMode: .random(probabilityThreshold: 1, seed: UInt64(seed)),
                                            temperature: 1.0, maximumResponseTokens: 40)
            let response = try await session.respond(to: "Describe a person.", schema: schema, includeSchemaInPrompt: false,
                                                     options: options)
            #expect(response.localMetadata.sampledOutsideMask == 0)
            let text = response.rawContent.jsonString
            if try grammarAccepts(text, schema: Self.personSchema) {
                valid += 1
            } else {
                Issue.record("seed \(seed): \(text)")
            }
        }
        #expect(valid == 20)
    }
}
