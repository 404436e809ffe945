import CTensor
import Engine
import Testing

/// Properties of the forward pass that do not need a reference: batching, cache reuse, errors.
@Suite(.serialized, .timeLimit(.minutes(30))) struct TransformerBehaviourTests {
    let model: Model
    init() throws { model = try Model(path: SharedData.path("models/stories260K.gguf")) }

    private let prompt: [Int32] = [1, 403, 407, 261, 378, 429, 450, 271, 300, 362, 300, 384]

    /// Token-by-token decoding and one batched pass compute the same logits.
    @Test func batchedAndSequentialAgree() throws {
        let t = try Transformer(model: model, configuration: TransformerConfiguration(maxBatch: 16, contextLength: 64))
        let batched = try t.makeCache()
        let all = try prompt.withUnsafeBufferPointer { try Array(t.forward($0, cache: batched, logits: .all)) }
        let single = try t.makeCache()
        let vocab = model.config.vocabularySize
        for (i, id) in prompt.enumerated() {
            let row = try Array(t.evaluate([id], cache: single))
            let expected = all[i * vocab ..< (i + 1) * vocab]
            let delta = zip(row, expected).map { abs($0 - $1) }.max()!
            #expect(delta < 1e-4, "position \(i): \(delta)")
        }
        #expect(batched.count == prompt.count && single.count == prompt.count)
    }

    /// Truncating the cache and re-evaluating reproduces the logits exactly.
    @Test func truncateAndReevaluate() throws {
        let t = try Transformer(model: model, configuration: TransformerConfiguration(contextLength: 64))
        let cache = try t.makeCache()
        let first = try Array(t.evaluate(prompt, cache: cache))
        cache.truncate(to: 5)
        #expect(cache.count == 5)
        let again = try Array(t.evaluate(Array(prompt[5...]), cache: cache))
        #expect(first == again)
    }

    /// An F16 cache stays within llama.cpp's deviation on stories260K (llama.cpp uses F16 KV).
    @Test func f16CacheWithinLlamaCppBar() throws {
        let ref = try ReferenceVectors("stories260K")
        let d = try ref.measure(configuration: TransformerConfiguration(kvCacheType: .f16))
        #expect(d.maxAbs <= ref.llamaMaxAbs, "\(d)")
        #expect(d.meanAbs <= ref.llamaMeanAbs, "\(d)")
        #expect(d.agreeing == d.confident, "\(d)")
    }

    @Test func rejectsTokensOutsideVocabulary() throws {
        let t = try Transformer(model: model, configuration: TransformerConfiguration(contextLength: 16))
        let cache = try t.makeCache()
        #expect(throws: EngineError.tokenOutOfRange(id: 512, vocabularySize: 512)) { try t.evaluate([1, 512], cache: cache) }
        #expect(throws: EngineError.tokenOutOfRange(id: -1, vocabularySize: 512)) { try t.evaluate([-1], cache: cache) }
        #expect(cache.count == 0)
    }

    @Test func rejectsOverflowingContext() throws {
        let t = try Transformer(model: model, configuration: TransformerConfiguration(contextLength: 8))
        let cache = try t.makeCache()
        _ = try t.evaluate([1, 2, 3, 4, 5, 6], cache: cache)
        #expect(throws: EngineError.contextFull(needed: 9, capacity: 8)) { try t.evaluate([1, 2, 3], cache: cache) }
        #expect(cache.count == 6)
    }

    @Test func rejectsOversizedBatchEmptyInputAndForeignCache() throws {
        let t = try Transformer(model: model, configuration: TransformerConfiguration(maxBatch: 4, contextLength: 16))
        let cache = try t.makeCache()
        let five: [Int32] = [1, 2, 3, 4, 5]
        #expect(throws: EngineError.batchTooLarge(count: 5, maximum: 4)) {
            try five.withUnsafeBufferPointer { try t.forward($0, cache: cache) }
        }
        #expect(throws: EngineError.emptyBatch) { try t.evaluate([], cache: cache) }
        let foreign = try KVCache(type: .f32, layers: 2, kvLength: 32, capacity: 16)
        #expect(throws: EngineError.cacheMismatch("cache has 2 layers × 32, model 5 × 32")) {
            try t.evaluate([1], cache: foreign)
        }
        // Longer inputs than maxBatch are split by evaluate.
        _ = try t.evaluate([1, 2, 3, 4, 5, 6, 7, 8, 9], cache: cache)
        #expect(cache.count == 9)
    }

    /// Splitting the work across threads changes nothing but speed (guards against races in
    /// the parallel kernels and their scratch buffers). Decode steps (matvec, per-head attention)
    /// are bit-identical; a prompt batch's products through sgemm follow the row split in their
    /// blocking, so they agree to float rounding. Where the file mixes those with integer prompt
    /// products (its interleaved Q4_K matrices on a tier where `loom_matmul_beats_sgemm`), the
    /// integer product rounds its input to A16, which turns a last-bit difference into one
    /// quantization step: ~1e-4 on these logits. (Decoding after such a prompt may differ as much,
    /// for the same reason.)
    @Test(arguments: [1, 3])
    func threadCountDoesNotChangeLogits(threads: Int) throws {
        let q = try Model(path: SharedData.path("models/fixtures/synth-llama-q4_k_m.gguf"))
        let reference = try Self.logits(q, threads: 2), other = try Self.logits(q, threads: threads)
        let mixed = loom_matmul_beats_sgemm(Int32(LOOM_TYPE_Q4_K_X8.rawValue))
        let bound: Float = mixed ? 5e-4 : 1e-5
        let delta = zip(reference.prompt, other.prompt).map { abs($0 - $1) }.max()!
        #expect(delta <= bound, "threads \(threads): prompt logits differ by \(delta)")
        #expect(reference.decode == other.decode, "threads \(threads): decode logits differ")
    }

    /// Where every product of a prompt is an integer one (an all-Q8_0 file on a tier where the
    /// interleaved products beat sgemm), prompt logits are the same bits at every thread count too.
    @Test(.enabled(if: loom_matmul_beats_sgemm(Int32(LOOM_TYPE_Q8_0_X8.rawValue))), arguments: [1, 3])
    func integerPromptsDoNotDependOnTheThreadCount(threads: Int) throws {
        let q = try Model(path: SharedData.path("models/fixtures/synth-llama-q8_0.gguf"))
        let reference = try Self.logits(q, threads: 2), other = try Self.logits(q, threads: threads)
        #expect(reference.prompt == other.prompt, "threads \(threads): prompt logits differ")
        #expect(reference.decode == other.decode, "threads \(threads): decode logits differ")
    }

    /// A 40-token prompt's logits (one batch), then 12 decode steps' from an empty cache.
    private static func logits(_ model: Model, threads: Int) throws -> (prompt: [Float], decode: [Float]) {
        let ids: [Int32] = (0..<40).map { Int32(($0 * 37 + 11) % 512) }
        let t = try Transformer(model: model, configuration: TransformerConfiguration(threads: threads, contextLength: 64))
        let cache = try t.makeCache()
        let prompt = try ids.withUnsafeBufferPointer { try Array(t.forward($0, cache: cache, logits: .all)) }
        cache.reset()
        var decode: [Float] = []
        for id in ids.prefix(12) { decode += try Array(t.decode(id, cache: cache)) }
        return (prompt, decode)
    }
}
