import Engine
import Testing

/// RoPE variants the shared fixtures do not cover (frequency factors, linear scaling), checked
/// through their defining identities on tiny generated models.
@Suite(.serialized, .timeLimit(.minutes(30))) struct RoPEConfigurationTests {
    private func logits(_ g: TinyGGUF, _ ids: [Int32]) throws -> [Float] {
        let model = try Model(path: g.write())
        let t = try Transformer(model: model, configuration: TransformerConfiguration(contextLength: 32))
        let cache = try t.makeCache()
        return try ids.withUnsafeBufferPointer { try Array(t.forward($0, cache: cache, logits: .all)) }
    }

    /// `rope_freqs` of all ones divides every frequency by 1: the logits cannot change.
    @Test func unitFrequencyFactorsChangeNothing() throws {
        let plain = TinyGGUF.llama(blocks: 2)
        var factors = plain
        factors.tensors.append(("rope_freqs.weight", [2]))
        factors.constants["rope_freqs.weight"] = 1
        #expect(try ModelDescription(file: GGUFFile(path: factors.write())).rope.hasFrequencyFactors)
        let ids: [Int32] = [1, 3, 2, 3, 0, 3]
        #expect(try logits(plain, ids) == logits(factors, ids))
    }

    /// Factors of 2 halve every angle, which is what linear scaling by 2 does: same logits.
    @Test func frequencyFactorsMatchLinearScaling() throws {
        var factors = TinyGGUF.llama(blocks: 2)
        factors.tensors.append(("rope_freqs.weight", [2]))
        factors.constants["rope_freqs.weight"] = 2
        var scaled = TinyGGUF.llama(blocks: 2)
        scaled["llama.rope.scaling.type"] = .string("linear")
        scaled["llama.rope.scaling.factor"] = .f32(2)
        let ids: [Int32] = [1, 3, 2, 3, 0, 3, 1, 2]
        let a = try logits(factors, ids), b = try logits(scaled, ids)
        #expect(zip(a, b).allSatisfy { abs($0 - $1) <= 1e-6 })
        #expect(a != (try logits(.llama(blocks: 2), ids)), "scaling must change positions > 0")
    }

    /// A rope_freqs tensor of the wrong length is a shape mismatch.
    @Test func rejectsWrongFrequencyFactorLength() throws {
        var g = TinyGGUF.llama()
        g.tensors.append(("rope_freqs.weight", [3]))
        let file = try GGUFFile(path: g.write())
        #expect(throws: ModelLoadError.tensorShapeMismatch(tensor: "rope_freqs.weight", expected: [2], found: [3])) {
            try ModelDescription(file: file)
        }
    }

    /// qwen2-style blocks (biases, half-split pairs) and a tied LM head run on tiny models.
    @Test func tinyQwen2Runs() throws {
        let out = try logits(.llama(blocks: 2, architecture: "qwen2", bias: true), [1, 2, 3])
        #expect(out.count == 3 * 4 && out.allSatisfy(\.isFinite))
    }
}
