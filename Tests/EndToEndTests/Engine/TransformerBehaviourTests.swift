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
    /// are bit-identical; a prompt batch goes through sgemm, whose blocking follows the row
    /// split, so it agrees to float rounding. (Decoding after such a prompt may then differ by
    /// ~1e-4: A16 activation rounding turns a 1-ulp input difference into one quantization step.)
    @Test(arguments: [1, 3])
    func threadCountDoesNotChangeLogits(threads: Int) throws {
        let q = try Model(path: SharedData.path("models/fixtures/synth-llama-q4_k_m.gguf"))
        let ids: [Int32] = (0..<40).map { Int32(($0 * 37 + 11) % 512) }
        func run(_ threads: Int) throws -> (prompt: [Float], decode: [Float]) {
            let t = try Transformer(model: q, configuration: TransformerConfiguration(threads: threads, contextLength: 64))
            let cache = try t.makeCache()
            let prompt = try ids.withUnsafeBufferPointer { try Array(t.forward($0, cache: cache, logits: .all)) }
            cache.reset()
            var decode: [Float] = []
            for id in ids.prefix(12) { decode += try Array(t.decode(id, cache: cache)) }
            return (prompt, decode)
        }
        let reference = try run(2), other = try run(threads)
        let delta = zip(reference.prompt, other.prompt).map { abs($0 - $1) }.max()!
        #expect(delta <= 1e-5, "threads \(threads): prompt logits differ by \(delta)")
        #expect(reference.decode == other.decode, "threads \(threads): decode logits differ")
    }
}
