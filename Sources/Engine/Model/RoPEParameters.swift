/// How a model's rotary position embedding pairs and rotates the components of a head.
public enum RoPEStyle: String, Codable, Sendable {
    /// llama.cpp's NORM: rotates adjacent pairs `(x[2i], x[2i+1])` (llama; the converter
    /// permutes the Q/K weights to fit).
    case adjacentPairs
    /// llama.cpp's NEOX: rotates `(x[i], x[i + n_rot/2])` (qwen2, qwen3, phi3, gemma).
    case halfSplit
}

/// Rotary position embedding hyper-parameters.
///
/// Pair `i` of a head (for `i < dimensionCount / 2`) at position `p` rotates by the angle
/// `(p / linearScale) * base^(-2i / dimensionCount) / frequencyFactor[i]`; components past
/// `dimensionCount` are left unrotated.
public struct RoPEParameters: Codable, Sendable, Equatable {
    /// Which components are paired.
    public var style: RoPEStyle
    /// Rotated components per head (`rope.dimension_count`, default the head dimension).
    public var dimensionCount: Int
    /// `rope.freq_base` (default 10000).
    public var base: Double
    /// Linear position scaling (`rope.scaling.type = linear`): positions are divided by this
    /// factor. 1 when the file does not scale.
    public var linearScale: Double
    /// True when the file has a `rope_freqs.weight` tensor of per-pair frequency divisors
    /// (llama 3.1-style long-context scaling).
    public var hasFrequencyFactors: Bool
    /// `rope.scaling.attn_factor`: cos and sin are multiplied by it (1: none).
    public var attentionFactor: Double
    /// Set when the file has LongRoPE factor tensors (`rope_factors_long` / `_short`): the
    /// context (`rope.scaling.original_context_length`, default `context_length`) up to which
    /// the short factors apply; a transformer with a longer context uses the long ones, as
    /// llama.cpp chooses.
    public var originalContextLength: Int?

    /// Parameters as given (no validation; `ModelDescription` validates what it reads).
    public init(style: RoPEStyle, dimensionCount: Int, base: Double, linearScale: Double = 1, hasFrequencyFactors: Bool = false,
                attentionFactor: Double = 1, originalContextLength: Int? = nil) {
        self.style = style
        self.dimensionCount = dimensionCount
        self.base = base
        self.linearScale = linearScale
        self.hasFrequencyFactors = hasFrequencyFactors
        self.attentionFactor = attentionFactor
        self.originalContextLength = originalContextLength
    }
}
