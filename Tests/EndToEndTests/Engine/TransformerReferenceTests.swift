import Engine
import Testing

/// The forward pass against exact float64 logits (`../shared/reference`).
@Suite(.serialized, .timeLimit(.minutes(30))) struct TransformerReferenceTests {
    /// F32 weights with an F32 KV cache: only float32 rounding separates Loom from float64.
    @Test(arguments: ["stories260K", "synth-llama-f32", "synth-qwen2-f32", "synth-qwen3-f32", "synth-phi3-f32",
                      "synth-gemma3-f32"])
    func exactOnF32Models(name: String) throws {
        let ref = try ReferenceVectors(name)
        let d = try ref.measure(configuration: TransformerConfiguration(kvCacheType: .f32))
        #expect(d.maxAbs <= 1e-3, "\(name): \(d)")
        #expect(d.maxLogsumexp <= 1e-3, "\(name): \(d)")
        #expect(d.agreeing == d.confident, "\(name): \(d)")
    }

    /// Every weight type, in the default configuration, at least as close to the exact logits
    /// as llama.cpp is (README table in `../shared/reference`). The max/mean here cover each
    /// position's reference top-8 and the whole last row; the top-4 figure is llama.cpp's
    /// like-for-like `llamacpp_max_abs_diff_top4`.
    @Test(arguments: [
        "synth-llama-bf16", "synth-llama-f16", "synth-llama-q2_k", "synth-llama-q3_k_m", "synth-llama-q4_0",
        "synth-llama-q4_1", "synth-llama-q4_k_m", "synth-llama-q4_k_s", "synth-llama-q5_0", "synth-llama-q5_1",
        "synth-llama-q5_k_m", "synth-llama-q6_k", "synth-llama-q8_0", "synth-qwen2-q8_0", "smollm2-135m-q4_1-paris",
        "synth-qwen3-q8_0", "synth-phi3-q8_0", "synth-gemma3-q8_0", "synth-gemma3-q4_k_m", "gemma3-270m-q4_k_m",
    ])
    func atLeastAsAccurateAsLlamaCpp(name: String) throws {
        let ref = try ReferenceVectors(name)
        let d = try ref.measure()
        print("deviation \(name): \(d) | llama.cpp max \(ref.llamaMaxAbs) mean \(ref.llamaMeanAbs) top4 \(ref.llamaMaxAbsTop4)")
        #expect(d.maxAbs <= ref.llamaMaxAbs, "\(name): \(d)")
        #expect(d.meanAbs <= ref.llamaMeanAbs, "\(name): \(d)")
        #expect(d.maxAbsTop4 <= ref.llamaMaxAbsTop4, "\(name): \(d)")
        #expect(d.top1Agreement >= ref.llamaTop1Agreement, "\(name): \(d)")
    }

    /// The decode path (one token per pass: matvec over A16 activations) and small batches
    /// (quantized matmul, below the sgemm threshold) hold the same bar as the batched prompt path.
    @Test(arguments: [
        ("synth-llama-q4_k_m", 1), ("synth-llama-q6_k", 1), ("synth-llama-q5_0", 1), ("synth-qwen2-q8_0", 1),
        ("synth-llama-q4_1", 8), ("synth-llama-q3_k_m", 8), ("smollm2-135m-q4_1-paris", 1), ("smollm2-135m-q4_1-paris", 8),
        ("synth-qwen3-q8_0", 1), ("synth-phi3-q8_0", 1), ("synth-gemma3-q4_k_m", 1), ("synth-gemma3-q8_0", 8),
    ])
    func smallBatchesAtLeastAsAccurateAsLlamaCpp(name: String, batch: Int) throws {
        let ref = try ReferenceVectors(name)
        let d = try ref.measure(configuration: TransformerConfiguration(maxBatch: batch))
        print("deviation \(name) batch \(batch): \(d)")
        #expect(d.maxAbs <= ref.llamaMaxAbs, "\(name): \(d)")
        #expect(d.meanAbs <= ref.llamaMeanAbs, "\(name): \(d)")
        #expect(d.maxAbsTop4 <= ref.llamaMaxAbsTop4, "\(name): \(d)")
        #expect(d.top1Agreement >= ref.llamaTop1Agreement, "\(name): \(d)")
    }
}
