/// Llama (1/2/3, SmolLM, TinyLlama, Mistral-style dense models): RMSNorm, GQA attention with
/// adjacent-pair RoPE, SwiGLU FFN. Reference: llama.cpp `LLM_ARCH_LLAMA`
/// (`llama_model_rope_type` → NORM) and `../shared/tools/reference_forward.py`.
/// Q/K/V biases are optional: a few llama-architecture conversions carry them.
public enum LlamaArchitecture: ModelArchitecture {
    public static let name = "llama"
    public static let ropeStyle = RoPEStyle.adjacentPairs
    public static let attentionBias = TensorPresence.optional
    public static let defaultRoPEBase = 10000.0
    public static let defaultNormEpsilon = 1e-5
}
