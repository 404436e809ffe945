import Engine
import Testing

/// The forward pass against exact float64 logits (`../shared/reference`).
@Suite(.serialized) struct TransformerReferenceTests {
    /// F32 weights with an F32 KV cache: only float32 rounding separates Loom from float64.
    @Test(arguments: ["stories260K", "synth-llama-f32", "synth-qwen2-f32"])
    func exactOnF32Models(name: String) throws {
        let ref = try ReferenceVectors(name)
        let d = try ref.measure(configuration: TransformerConfiguration(kvCacheType: .f32))
        print("deviation \(name): \(d)")
        #expect(d.maxAbs <= 1e-3, "\(name): \(d)")
        #expect(d.maxLogsumexp <= 1e-3, "\(name): \(d)")
        #expect(d.agreeing == d.confident, "\(name): \(d)")
    }
}
