/// Phi-3 / Phi-3.5 / Phi-4-mini: the llama block with Q, K and V stored as one `attn_qkv`
/// matrix and gate and up as one `ffn_up` matrix (bound as row slices, so the block reads as
/// llama's), NEOX RoPE over `rope.dimension_count` of each head's components, LongRoPE factor
/// tensors and `rope.scaling.attn_factor`. The declared `attention.sliding_window` is not
/// applied, as llama.cpp does not apply it for phi3 (and the references follow llama.cpp).
/// Reference: llama.cpp `LLM_ARCH_PHI3` (`src/models/phi3.cpp`) and
/// `../shared/tools/reference_forward.py`.
public enum Phi3Architecture: ModelArchitecture {
    /// `general.architecture` value.
    public static let name = "phi3"
    /// RoPE pairing (see `RoPEStyle`).
    public static let ropeStyle = RoPEStyle.halfSplit
    /// Whether blocks carry Q/K/V biases.
    public static let attentionBias = TensorPresence.absent
    /// `rope.freq_base` when absent.
    public static let defaultRoPEBase = 10000.0
    /// RMSNorm epsilon when absent.
    public static let defaultNormEpsilon = 1e-5
    /// `attn_qkv`, and gate+up in `ffn_up`.
    public static let blockTensors: BlockTensors = [.fusedQKV, .fusedGateUp]
    /// Read and not applied, as llama.cpp does.
    public static let slidingWindow = SlidingWindowUse.ignored
}

extension Phi3Architecture: TransformerFamily {
    /// The llama block: `Weights` binds `attn_qkv` and `ffn_up` as their row slices, and the
    /// partial rotation, LongRoPE factors and attention factor are the RoPE table's.
    static func block(_ p: BlockPass, _ l: Int) { LlamaArchitecture.block(p, l) }
}
