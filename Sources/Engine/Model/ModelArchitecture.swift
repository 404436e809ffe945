/// What distinguishes one decoder-only architecture from another, for the parts Loom shares
/// between them (RMSNorm → attention → RMSNorm → SwiGLU blocks).
///
/// Adding an architecture (qwen3, phi3, gemma, …) means one file with a conforming type and an
/// entry in `ModelArchitectures.all`; differences the shared blocks cannot express yet (QK-norm,
/// fused QKV, GeGLU) add a requirement here and a branch in the transformer.
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
    public static let all: [any ModelArchitecture.Type] = [LlamaArchitecture.self, Qwen2Architecture.self]

    /// The architecture named `name`, or nil.
    public static func named(_ name: String) -> (any ModelArchitecture.Type)? {
        all.first { $0.name == name }
    }
}
