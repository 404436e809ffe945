import Engine
import Foundation
import LocalBackend
import Provider
import Testing

/// A Q8_0 KV cache end to end: refused (typed) where heads are not whole blocks, exact prefix
/// reuse, identical greedy output with and without speculation, and logits within llama.cpp's
/// own deviation from the exact references. Batch invariance and rollback with Q8_0 run in
/// `SpeculativeVerificationTests` (every KV type).
@Suite(.serialized, .timeLimit(.minutes(20))) struct QuantizedKVCacheTests {
    static let q8Fixture = SharedData.path("models/fixtures/synth-llama-q8_0.gguf")

    @Test func headsShorterThanABlockAreATypedError() throws {
        let model = try ModelStore.shared.model(path: RuntimeFixtures.stories)
        var reason = ""
        do {
            _ = try Transformer(model: model, configuration: TransformerConfiguration(kvCacheType: .q8_0))
            Issue.record("stories260K's 8-value heads were accepted for a Q8_0 cache")
        } catch {
            if case .invalidConfiguration(let r) = error { reason = r }
        }
        #expect(reason.contains("multiple of 32"), "\(reason)")
        let f32 = try Transformer(model: model, configuration: TransformerConfiguration(kvCacheType: .f32))
        #expect(throws: EngineError.self) { try f32.makeCache(type: .q8_0) }
    }

    /// As `SequentialEngineRuntimeTests.prefixReuseIsExact`, with Q8_0: micro-batches aligned to
    /// the shared prefix, so the reused and the cold logits are bitwise equal.
    @Test(arguments: [q8Fixture, SharedData.defaultModel])
    func prefixReuseIsExact(path: String) throws {
        let model = try ModelStore.shared.model(path: path)
        let vocab = model.config.vocabularySize
        let config = TransformerConfiguration(threads: 2, maxBatch: 8, contextLength: 128, kvCacheType: .q8_0)
        let shared = RuntimeFixtures.prompt(40, vocabulary: vocab)
        let first = shared + RuntimeFixtures.prompt(5, vocabulary: vocab, salt: 1)
        let second = shared + RuntimeFixtures.prompt(11, vocabulary: vocab, salt: 2)

        let warm = try SequentialEngine(model: model, configuration: config)
        try warm.prefill(first)
        let result = try warm.prefill(second)
        #expect(result.cachedTokenCount == 40 && result.evaluatedTokenCount == 11)
        let reused = Array(warm.logits)

        let cold = try SequentialEngine(model: model, configuration: config)
        #expect(try cold.prefill(second).cachedTokenCount == 0)
        #expect(reused == Array(cold.logits))
    }

    /// A prefix evaluated by one engine serves another through the shared Q8_0 pool (blocks
    /// shared, a divergent block copied), bit for bit as cold, and generation continues as cold.
    @Test func sharedPrefixServesAnotherEngine() throws {
        let model = try ModelStore.shared.model(path: Self.q8Fixture)
        let vocab = model.config.vocabularySize
        func scheduler() throws -> Scheduler {
            try Scheduler(model: model,
                          configuration: TransformerConfiguration(threads: 1, contextLength: 128, kvCacheType: .q8_0),
                          policy: SchedulerPolicy(maxSequences: 2, prefillChunk: 8, maxPrefillTokensPerStep: 8, blockSize: 16))
        }
        let shared = try scheduler()
        #expect(shared.kvBlockBytes == 2 * model.config.blockCount * 16 * model.config.kvLength / 32 * 34)
        let system = RuntimeFixtures.prompt(36, vocabulary: vocab)
        let a = SequentialEngine(scheduler: shared)
        try a.prefill(system + RuntimeFixtures.prompt(6, vocabulary: vocab, salt: 1))
        a.release()

        let question = system + RuntimeFixtures.prompt(9, vocabulary: vocab, salt: 2)
        let b = SequentialEngine(scheduler: shared)
        #expect(try b.prefill(question).cachedTokenCount == 36)
        #expect(shared.statistics.pool.copiedTokenCount == 4)  // positions 32..<36

        let cold = SequentialEngine(scheduler: try scheduler())
        try cold.prefill(question)
        #expect(Array(b.logits) == Array(cold.logits))
        var warmTokens: [Int32] = [], coldTokens: [Int32] = []
        try b.generate(prompt: question, sampling: RuntimeFixtures.seeded, maxTokens: 8) { warmTokens.append($0) }
        try cold.generate(prompt: question, sampling: RuntimeFixtures.seeded, maxTokens: 8) { coldTokens.append($0) }
        #expect(warmTokens == coldTokens)
    }

    /// Prompt-lookup speculation leaves greedy output unchanged with a Q8_0 cache, on both
    /// generation paths, and is not switched off by it (proposals are made and accepted).
    @Test(arguments: [LocalLanguageModel.Variant.sequential, .pipelined])
    func speculationLeavesGreedyOutputUnchanged(variant: LocalLanguageModel.Variant) async throws {
        func respond(_ speculation: Int) async throws -> (String, Int, Int) {
            // A context no other suite uses: a runtime of its own, so speculation is not stepped aside.
            var model = LocalLanguageModel(path: SharedData.defaultModel, variant: variant, contextSize: 1056,
                                           kvCacheType: .q8_0)
            model.speculationLimit = speculation
            let session = LanguageModelSession(model: model, instructions: "Answer using the words of the text.")
            let response = try await session.respond(
                to: "Repeat this text word for word:\n\n" + SpeculationTests.passage,
                options: GenerationOptions(samplingMode: .greedy, maximumResponseTokens: 80))
            return (response.content, response.localMetadata.proposedTokens ?? -1, response.localMetadata.acceptedTokens ?? -1)
        }
        let plain = try await respond(0)
        let fast = try await respond(8)
        #expect(fast.0 == plain.0)
        #expect(fast.1 > 0 && fast.2 > 0)
    }

    /// The reference files where a Q8_0 cache stays within llama.cpp's own deviation (llama.cpp
    /// keeps keys and values in F16) by the reference README's bar: max and mean |Δlogit| and
    /// top-1 agreement. Benchmarks/RESULTS.md ("KV cache types") has every file. Q8_0 is not
    /// within it on the files whose weights are exact (synth-llama-f32/-f16, -qwen2-f32,
    /// -qwen3-f32, -phi3-f32, -gemma3-f32): there llama.cpp's whole deviation is its F16 cache,
    /// which rounds 8 bits finer than Q8_0 (Q8_0 max |Δ| 0.014 against 0.0019 on synth-llama-f32,
    /// 0.17 against 0.032 on synth-gemma3-f32); nor on synth-gemma3-q8_0 and synth-qwen3-q8_0,
    /// whose max and mean are within but whose top-1 agrees on 44 of 45 and 43 of 44 confident
    /// positions (llama.cpp: all; synth-qwen3-q8_0's max 0.071 and mean 0.015 against 0.179 and
    /// 0.029, its one flip since prompts take the integer products on the AVX-512 tier).
    /// stories260K's 8-value heads cannot be Q8_0 at all.
    static let withinLlamaCpp = [
        "smollm2-135m-q4_1-paris", "gemma3-270m-q4_k_m", "synth-llama-bf16", "synth-llama-q2_k", "synth-llama-q3_k_m",
        "synth-llama-q4_0", "synth-llama-q4_1", "synth-llama-q4_k_m", "synth-llama-q4_k_s", "synth-llama-q5_0",
        "synth-llama-q5_1", "synth-llama-q5_k_m", "synth-llama-q6_k", "synth-llama-q8_0", "synth-qwen2-q8_0",
        "synth-phi3-q8_0", "synth-gemma3-q4_k_m",
    ]

    @Test(arguments: withinLlamaCpp)
    func q8_0WithinLlamaCppDeviation(name: String) throws {
        let ref = try ReferenceVectors(name)
        let d = try ref.measure(configuration: TransformerConfiguration(kvCacheType: .q8_0))
        print("deviation q8_0 \(name): \(d) | llama.cpp max \(ref.llamaMaxAbs) mean \(ref.llamaMeanAbs)")
        #expect(d.maxAbs <= ref.llamaMaxAbs, "\(name): \(d)")
        #expect(d.meanAbs <= ref.llamaMeanAbs, "\(name): \(d)")
        // Agreement rates are fractions of the same count of positions: compare them as counts
        // (41/43 written by the reference and computed here differ in the last bit).
        #expect(d.top1Agreement >= ref.llamaTop1Agreement - 1e-9, "\(name): \(d)")
    }
}
