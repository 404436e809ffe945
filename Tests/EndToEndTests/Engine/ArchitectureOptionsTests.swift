import Engine
import Foundation
import Testing

/// Hyper-parameters the reference fixtures hold at one value, checked through their defining
/// identities: phi3's choice between LongRoPE factor sets, and final-logit soft-capping.
@Suite(.serialized, .timeLimit(.minutes(10))) struct ArchitectureOptionsTests {
    /// The short factors serve every context up to `rope.scaling.original_context_length` (256
    /// in the fixture) and the long ones any longer context, as llama.cpp picks them by n_ctx.
    @Test func phi3UsesLongFactorsOnlyBeyondTheOriginalContext() throws {
        let model = try Model(path: SharedData.path("models/fixtures/synth-phi3-f32.gguf"))
        #expect(model.config.rope.originalContextLength == 256)
        let ids: [Int32] = (1...12).map { Int32($0 * 37 % 512) }
        func lastLogits(context: Int) throws -> [Float] {
            let t = try Transformer(model: model, configuration: TransformerConfiguration(contextLength: context))
            return try Array(t.evaluate(ids, cache: t.makeCache()))
        }
        let short = try lastLogits(context: 64)
        #expect(try lastLogits(context: 256) == short)
        #expect(try lastLogits(context: 257) != short)
    }

    /// `final_logit_softcapping` maps every logit through cap·tanh(logit/cap), on the prompt
    /// and the decode path alike.
    @Test func softcappingBoundsTheLogits() throws {
        let ids: [Int32] = [1, 3, 2, 3]
        func logits(_ g: TinyGGUF) throws -> (prompt: [Float], decode: [Float]) {
            let t = try Transformer(model: Model(path: g.write()), configuration: TransformerConfiguration(contextLength: 16))
            let cache = try t.makeCache()
            let prompt = try ids.withUnsafeBufferPointer { try Array(t.forward($0, cache: cache, logits: .all)) }
            return (prompt, try Array(t.decode(0, cache: cache)))
        }
        let plain = TinyGGUF.gemma3()
        var capped = plain
        capped["gemma3.final_logit_softcapping"] = .f32(0.5)
        let free = try logits(plain), bounded = try logits(capped)
        for (a, b) in zip(free.prompt + free.decode, bounded.prompt + bounded.decode) {
            #expect(abs(Double(b) - 0.5 * tanh(Double(a) / 0.5)) < 1e-6, "\(a) → \(b)")
        }
    }
}
