/// Qwen3 (dense): Qwen 2 without Q/K/V biases, with an RMSNorm over each head of Q and K before
/// RoPE; the head dimension is `attention.key_length` (not necessarily width / heads).
/// Reference: llama.cpp `LLM_ARCH_QWEN3` (`src/models/qwen3.cpp`, NEOX RoPE) and
/// `../shared/tools/reference_forward.py`.
public enum Qwen3Architecture: ModelArchitecture {
    /// `general.architecture` value.
    public static let name = "qwen3"
    /// RoPE pairing (see `RoPEStyle`).
    public static let ropeStyle = RoPEStyle.halfSplit
    /// Whether blocks carry Q/K/V biases.
    public static let attentionBias = TensorPresence.absent
    /// `rope.freq_base` when absent.
    public static let defaultRoPEBase = 10000.0
    /// RMSNorm epsilon when absent.
    public static let defaultNormEpsilon = 1e-6
    /// `attn_q_norm` / `attn_k_norm`.
    public static let blockTensors: BlockTensors = [.headNorms]
}

extension Qwen3Architecture: TransformerFamily {
    static func block(_ p: BlockPass, _ l: Int) {
        let b = p.weights(l)
        // x += Wo · attention(rope(norm_q(Wq h)), rope(norm_k(Wk h)), Wv h), h = RMSNorm(x)
        p.normalize(b.attentionNorm)
        p.projectQKV(l)
        p.normalizeHeads(query: b.queryNorm!, key: b.keyNorm!)
        p.rotate(l)
        p.attend(l)
        p.addAttentionOutput(l)
        // x += Wdown · (silu(Wgate h) ⊙ Wup h), h = RMSNorm(x)
        p.normalize(b.ffnNorm)
        p.addFeedForward(l, .silu)
    }
}
