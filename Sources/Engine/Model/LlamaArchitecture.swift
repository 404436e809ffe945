/// Llama (1/2/3, SmolLM, TinyLlama, Mistral-style dense models): RMSNorm, GQA attention with
/// adjacent-pair RoPE, SwiGLU FFN. Reference: llama.cpp `LLM_ARCH_LLAMA`
/// (`llama_model_rope_type` → NORM) and `../shared/tools/reference_forward.py`.
/// Q/K/V biases are optional: a few llama-architecture conversions carry them.
public enum LlamaArchitecture: ModelArchitecture {
    /// `general.architecture` value.
    public static let name = "llama"
    /// RoPE pairing (see `RoPEStyle`).
    public static let ropeStyle = RoPEStyle.adjacentPairs
    /// Whether blocks carry Q/K/V biases.
    public static let attentionBias = TensorPresence.optional
    /// `rope.freq_base` when absent.
    public static let defaultRoPEBase = 10000.0
    /// RMSNorm epsilon when absent.
    public static let defaultNormEpsilon = 1e-5
}

extension LlamaArchitecture: TransformerFamily {
    static func block(_ p: BlockPass, _ l: Int) {
        let b = p.weights(l)
        // x += Wo · attention(rope(Wq h), rope(Wk h), Wv h), h = RMSNorm(x)
        p.normalize(b.attentionNorm)
        p.projectQKV(l)
        p.rotate(l)
        p.attend(l)
        p.addAttentionOutput(l)
        // x += Wdown · (silu(Wgate h) ⊙ Wup h), h = RMSNorm(x)
        p.normalize(b.ffnNorm)
        p.addFeedForward(l, .silu)
    }
}
