import Engine

/// Models and prompts the runtime suites share.
enum RuntimeFixtures {
    /// The three models the engines are compared on: the default model (SmolLM2), stories260K
    /// and a K-quant synthetic fixture.
    static let modelPaths: [String] = [
        SharedData.defaultModel,
        SharedData.path("models/stories260K.gguf"),
        SharedData.path("models/fixtures/synth-llama-q4_k_m.gguf"),
    ]

    /// One fixture of each architecture beyond llama: qwen2, qwen3, phi3 and gemma3 (whose
    /// 16-position sliding window the engines' prompts outgrow).
    static let familyPaths: [String] = ["synth-qwen2-q8_0", "synth-qwen3-q8_0", "synth-phi3-q8_0", "synth-gemma3-q4_k_m"]
        .map { SharedData.path("models/fixtures/\($0).gguf") }

    static var stories: String { SharedData.path("models/stories260K.gguf") }

    /// A deterministic prompt of `count` in-vocabulary ids, varied by `salt`.
    static func prompt(_ count: Int, vocabulary: Int, salt: Int = 0) -> [Int32] {
        (0..<count).map { Int32(($0 * 7919 + 13 + salt * 104_729) % vocabulary) }
    }

    /// Every stage of the sampler switched on, seeded.
    static let seeded = SamplingParameters(temperature: 0.8, topK: 40, topP: 0.95, minP: 0.02, repeatPenalty: 1.1,
                                           presencePenalty: 0.1, frequencyPenalty: 0.05, penaltyWindow: 32, seed: 42)

    /// Collects a pipelined stream's tokens.
    static func collect(_ stream: PipelinedStream) async throws -> [Int32] {
        var out: [Int32] = []
        for try await t in stream { out.append(t) }
        return out
    }
}
