/// Qwen2 / Qwen2.5: the llama block with Q/K/V biases and half-split (NEOX) RoPE.
/// Reference: llama.cpp `LLM_ARCH_QWEN2` (`llama_model_rope_type` → NEOX) and
/// `../shared/tools/reference_forward.py`.
public enum Qwen2Architecture: ModelArchitecture {
    /// `general.architecture` value.
    public static let name = "qwen2"
    /// RoPE pairing (see `RoPEStyle`).
    public static let ropeStyle = RoPEStyle.halfSplit
    /// Whether blocks carry Q/K/V biases.
    public static let attentionBias = TensorPresence.required
    /// `rope.freq_base` when absent.
    public static let defaultRoPEBase = 10000.0
    /// RMSNorm epsilon when absent.
    public static let defaultNormEpsilon = 1e-6
}

extension Qwen2Architecture: TransformerFamily {
    /// The llama block: the Q/K/V biases are added by `projectQKV`, the pairing is the RoPE table's.
    static func block(_ p: BlockPass, _ l: Int) { LlamaArchitecture.block(p, l) }
}
