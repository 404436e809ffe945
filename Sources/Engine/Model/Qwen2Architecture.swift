/// Qwen2 / Qwen2.5: the llama block with Q/K/V biases and half-split (NEOX) RoPE.
/// Reference: llama.cpp `LLM_ARCH_QWEN2` (`llama_model_rope_type` → NEOX) and
/// `../shared/tools/reference_forward.py`.
public enum Qwen2Architecture: ModelArchitecture {
    public static let name = "qwen2"
    public static let ropeStyle = RoPEStyle.halfSplit
    public static let attentionBias = TensorPresence.required
    public static let defaultRoPEBase = 10000.0
    public static let defaultNormEpsilon = 1e-6
}
