import Engine
import Foundation
import Testing

/// The hyper-parameters beyond llama/qwen2 (head norms, fused tensors, sliding windows, LongRoPE,
/// soft-capping) as `ModelDescription` reads them, with llama.cpp's defaults, and the files it
/// refuses because the forward pass could only approximate them.
@Suite struct ArchitectureMetadataTests {
    private func load(_ g: TinyGGUF) throws -> ModelDescription {
        try ModelDescription(file: GGUFFile(path: g.write()))
    }

    private func fixture(_ name: String) throws -> ModelDescription {
        try ModelDescription(file: GGUFFile(path: SharedData.path("models/fixtures/\(name).gguf")))
    }

    private func expectError(_ expected: ModelLoadError, _ g: TinyGGUF) throws {
        let file = try GGUFFile(path: g.write())
        #expect(throws: expected) { try ModelDescription(file: file) }
    }

    @Test func readsTheFixturesAsTheReferencesConfigureThem() throws {
        let q = try fixture("synth-qwen3-f32")
        #expect(q.headDimension == 128 && q.queryLength == 512 && q.blockTensors == [.headNorms] && !q.hasAttentionBias)
        #expect(Float(q.attentionScale) == 1 / Float(128).squareRoot() && q.localLayers.isEmpty && q.tiedOutput)

        let p = try fixture("synth-phi3-f32")
        #expect(p.blockTensors == [.fusedQKV, .fusedGateUp] && p.rope.dimensionCount == 48 && p.headDimension == 64)
        #expect(p.rope.attentionFactor == 1.125 && p.rope.originalContextLength == 256)
        // The declared 2047-position window is not applied, as llama.cpp does for phi3.
        #expect(p.slidingWindow == 0 && p.localLayers.isEmpty)

        let g = try fixture("synth-gemma3-f32")
        #expect(g.slidingWindow == 16 && g.localLayers == [true, true, true, true, true, false])
        #expect(g.localRoPEBase == 10000 && g.rope.base == 1e6 && g.embeddingScale == 16)
        #expect(Float(g.attentionScale) == 1 / Float(32).squareRoot() && g.finalLogitSoftcap == 0 && g.tiedOutput)
    }

    @Test func slidingWindowPatternAsPeriodOrPerLayerList() throws {
        #expect(try load(.gemma3()).localLayers == [true, true, true, true, true, false])
        var g = TinyGGUF.gemma3()
        g["gemma3.attention.sliding_window_pattern"] = .u32(3)
        #expect(try load(g).localLayers == [true, true, false, true, true, false])
        g["gemma3.attention.sliding_window_pattern"] = .u32(0)
        #expect(try load(g).localLayers == Array(repeating: true, count: 6))
        g["gemma3.attention.sliding_window_pattern"] = .bools([false, true, false, true, true, true, false])
        #expect(try load(g).localLayers == [false, true, false, true, true, true])
        g["gemma3.rope.freq_base_swa"] = .f32(5000)
        g["gemma3.final_logit_softcapping"] = .f32(30)
        let d = try load(g)
        #expect(d.localRoPEBase == 5000 && d.finalLogitSoftcap == 30)
    }

    @Test func refusesWhatTheForwardPassCannotHonour() throws {
        var llama = TinyGGUF.llama()
        llama["llama.attention.sliding_window"] = .u32(4096)
        try expectError(.unsupportedMetadata(key: "llama.attention.sliding_window",
                                             reason: "llama blocks have no sliding-window attention"), llama)

        var longrope = TinyGGUF.llama()
        longrope["llama.rope.scaling.type"] = .string("longrope")
        try expectError(.unsupportedMetadata(key: "llama.rope.scaling.type",
                                             reason: "longrope without rope_factors_long/short tensors"), longrope)

        var short = TinyGGUF.gemma3()
        short["gemma3.attention.sliding_window_pattern"] = .bools([true, false])
        try expectError(.inconsistentHyperparameters("gemma3.attention.sliding_window_pattern lists 2 layers, block_count is 6"),
                        short)

        var text = TinyGGUF.gemma3()
        text["gemma3.attention.sliding_window_pattern"] = .string("local")
        try expectError(.wrongValueType(key: "gemma3.attention.sliding_window_pattern", expected: "integer", found: "string"),
                        text)

        var onlyLong = TinyGGUF.llama(architecture: "phi3")
        onlyLong.tensors.append(("rope_factors_long.weight", [2]))
        try expectError(.missingTensor("rope_factors_short.weight"), onlyLong)

        var noNorm = TinyGGUF.gemma3()
        noNorm.removeTensor("blk.3.post_ffw_norm.weight")
        try expectError(.missingTensor("blk.3.post_ffw_norm.weight"), noNorm)

        var badCap = TinyGGUF.gemma3()
        badCap["gemma3.final_logit_softcapping"] = .f32(-1)
        try expectError(.inconsistentHyperparameters("gemma3.final_logit_softcapping -1.0"), badCap)
    }
}
