/// What distinguishes one decoder-only architecture from another: the facts `ModelDescription`
/// needs to read and validate a file of it. The block itself (the forward pass of one layer)
/// is stated in the same file by conforming to `TransformerFamily`.
///
/// Adding an architecture means one file with a conforming type and an entry in
/// `ModelArchitectures.all`.
public protocol ModelArchitecture: Sendable {
    /// The `general.architecture` value, which is also the metadata key prefix.
    static var name: String { get }
    /// How RoPE pairs head components.
    static var ropeStyle: RoPEStyle { get }
    /// Whether blocks carry Q/K/V biases.
    static var attentionBias: TensorPresence { get }
    /// `rope.freq_base` when the file omits it.
    static var defaultRoPEBase: Double { get }
    /// `attention.layer_norm_rms_epsilon` when the file omits it.
    static var defaultNormEpsilon: Double { get }
    /// Which optional per-block tensors the architecture has, and which it stores fused.
    static var blockTensors: BlockTensors { get }
    /// What the architecture does with `attention.sliding_window`.
    static var slidingWindow: SlidingWindowUse { get }
    /// Factor the token embeddings are multiplied by (1: none), given the residual width.
    static func embeddingScale(width: Int) -> Double
    /// Multiplier on q·k, given the validated head geometry.
    static func attentionScale(headDimension: Int, embeddingLength: Int, headCount: Int, blockCount: Int) -> Double
}

extension ModelArchitecture {
    /// Separate Q/K/V and gate/up matrices, no extra norms.
    public static var blockTensors: BlockTensors { [] }
    /// The window is not part of the architecture: a file that declares one is refused.
    public static var slidingWindow: SlidingWindowUse { .refused }
    /// Embeddings enter the residual stream unscaled.
    public static func embeddingScale(width: Int) -> Double { 1 }
    /// 1/√head_dim.
    public static func attentionScale(headDimension: Int, embeddingLength: Int, headCount: Int, blockCount: Int) -> Double {
        inverseSquareRoot(headDimension)
    }

    /// 1/√n as the float the attention kernel multiplies by (computed in float, so the scale is
    /// the same bits whichever architecture asks).
    public static func inverseSquareRoot(_ n: Int) -> Double { Double(1 / Float(n).squareRoot()) }
}

/// Optional and fused per-block tensors of an architecture.
public struct BlockTensors: OptionSet, Codable, Sendable, Hashable {
    /// The raw bits.
    public let rawValue: Int
    /// Creates a set from its bits.
    public init(rawValue: Int) { self.rawValue = rawValue }

    /// One `attn_qkv` matrix whose rows are Q, then K, then V (phi3).
    public static let fusedQKV = BlockTensors(rawValue: 1 << 0)
    /// One `ffn_up` matrix whose rows are gate, then up, and no `ffn_gate` (phi3).
    public static let fusedGateUp = BlockTensors(rawValue: 1 << 1)
    /// Per-head RMSNorm gains on Q and K, `attn_q_norm` / `attn_k_norm` (qwen3, gemma3).
    public static let headNorms = BlockTensors(rawValue: 1 << 2)
    /// RMSNorm gains on each branch's output before its residual add, `post_attention_norm` /
    /// `post_ffw_norm` (gemma3).
    public static let postNorms = BlockTensors(rawValue: 1 << 3)
}

/// What an architecture does with a declared `attention.sliding_window`.
public enum SlidingWindowUse: String, Codable, Sendable {
    /// Local layers (by `attention.sliding_window_pattern`) attend to the last W positions only.
    case applied
    /// The key is read and not applied, as llama.cpp does for the architecture.
    case ignored
    /// A file that declares a window is refused: Loom would not run it as its authors meant.
    case refused
}

/// Whether an architecture's optional tensor family must, may or must not be present.
public enum TensorPresence: String, Codable, Sendable {
    /// Every block must have the tensors.
    case required
    /// Used when block 0 has them (then every block must).
    case optional
    /// Never read.
    case absent
}

/// The architectures Loom can run, by `general.architecture` name.
public enum ModelArchitectures {
    /// Every supported architecture.
    public static let all: [any ModelArchitecture.Type] = [
        LlamaArchitecture.self, Qwen2Architecture.self, Qwen3Architecture.self, Phi3Architecture.self,
        Gemma3Architecture.self,
    ]

    /// The architecture named `name`, or nil.
    public static func named(_ name: String) -> (any ModelArchitecture.Type)? {
        all.first { $0.name == name }
    }
}
