/// Gemma 3 (text): embeddings scaled by √width; per-head RMSNorm of Q and K before RoPE; an
/// RMSNorm on each branch's output before its residual add; GeGLU (tanh GELU) feed-forward;
/// interleaved local layers (sliding window, their own RoPE base) and global ones; head
/// dimension `attention.key_length`; tied LM head. GGUF norm gains already include Gemma's +1.
/// Reference: llama.cpp `LLM_ARCH_GEMMA3` (`src/models/gemma3.cpp`) and
/// `../shared/tools/reference_forward.py`.
public enum Gemma3Architecture: ModelArchitecture {
    /// `general.architecture` value.
    public static let name = "gemma3"
    /// RoPE pairing (see `RoPEStyle`).
    public static let ropeStyle = RoPEStyle.halfSplit
    /// Whether blocks carry Q/K/V biases.
    public static let attentionBias = TensorPresence.absent
    /// `rope.freq_base` when absent.
    public static let defaultRoPEBase = 10000.0
    /// RMSNorm epsilon when absent.
    public static let defaultNormEpsilon = 1e-6
    /// Q/K head norms and post-branch norms.
    public static let blockTensors: BlockTensors = [.headNorms, .postNorms]
    /// Local layers attend to the last `attention.sliding_window` positions.
    public static let slidingWindow = SlidingWindowUse.applied

    /// √width, as llama.cpp scales `inp_embd`.
    public static func embeddingScale(width: Int) -> Double { Double(width).squareRoot() }

    /// 1/√key_length, except the 62-layer 27B, whose `query_pre_attn_scalar` is width / heads
    /// (llama.cpp keys the exception on that model size).
    public static func attentionScale(headDimension: Int, embeddingLength: Int, headCount: Int, blockCount: Int) -> Double {
        inverseSquareRoot(blockCount == 62 ? embeddingLength / headCount : headDimension)
    }
}

extension Gemma3Architecture: TransformerFamily {
    static func block(_ p: BlockPass, _ l: Int) {
        let b = p.weights(l)
        // x += RMSNorm_post(Wo · attention(rope(norm_q(Wq h)), rope(norm_k(Wk h)), Wv h)),
        // h = RMSNorm(x); local layers: RoPE base freq_base_swa, keys of the last W positions.
        p.normalize(b.attentionNorm)
        p.projectQKV(l)
        p.normalizeHeads(query: b.queryNorm!, key: b.keyNorm!)
        p.rotate(l)
        p.attend(l)
        p.addAttentionOutput(l, postNorm: b.postAttentionNorm!)
        // x += RMSNorm_post(Wdown · (gelu(Wgate h) ⊙ Wup h)), h = RMSNorm(x)
        p.normalize(b.ffnNorm)
        p.addFeedForward(l, .gelu, postNorm: b.postFFNNorm!)
    }
}
