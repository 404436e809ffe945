/// Controls how a model samples its response.
///
/// Every field is optional: nil means "use the model's default".
public struct GenerationOptions: Sendable, Equatable, Codable {
    /// How tokens are chosen. Enum-like: read it through `kind`.
    public struct SamplingMode: Sendable, Equatable, Codable {
        /// What a sampling mode is, for executors that translate it. Non-frozen.
        public enum Kind: Sendable, Equatable, Codable {
            /// Always the most likely token.
            case greedy
            /// Sample among the `k` most likely tokens, with an optional seed.
            case randomTopK(Int, seed: UInt64?)
            /// Sample among the smallest set of tokens whose probability reaches `p`.
            case randomProbabilityThreshold(Double, seed: UInt64?)
        }

        /// The mode, for executors to switch on.
        public var kind: Kind

        /// Builds a mode from its kind.
        public init(kind: Kind) { self.kind = kind }

        /// Deterministic: always the most likely token.
        public static var greedy: SamplingMode { SamplingMode(kind: .greedy) }

        /// Random sampling among the `top` most likely tokens.
        public static func random(top k: Int, seed: UInt64? = nil) -> SamplingMode {
            SamplingMode(kind: .randomTopK(k, seed: seed))
        }

        /// Random sampling among the tokens whose cumulative probability reaches `probabilityThreshold`.
        public static func random(probabilityThreshold: Double, seed: UInt64? = nil) -> SamplingMode {
            SamplingMode(kind: .randomProbabilityThreshold(probabilityThreshold, seed: seed))
        }
    }

    /// Whether the model may, must, or must not call tools.
    public struct ToolCallingMode: Sendable, Equatable, Hashable, Codable {
        /// What a tool-calling mode is, for executors that translate it. Non-frozen.
        public enum Kind: String, Sendable, Equatable, Hashable, Codable {
            /// The model decides (the default when nil).
            case allowed
            /// The model must call at least one tool. The session applies this to the first
            /// step of a turn only, so a tool loop can end with a response.
            case required
            /// The model must not call tools.
            case disallowed
        }

        /// The mode, for executors to switch on.
        public var kind: Kind

        /// Builds a mode from its kind.
        public init(kind: Kind) { self.kind = kind }

        /// The model decides whether to call tools.
        public static var allowed: ToolCallingMode { ToolCallingMode(kind: .allowed) }
        /// The model must call a tool on the first step of the turn.
        public static var required: ToolCallingMode { ToolCallingMode(kind: .required) }
        /// The model must not call tools.
        public static var disallowed: ToolCallingMode { ToolCallingMode(kind: .disallowed) }
    }

    /// The sampling strategy; nil = model default.
    public var samplingMode: SamplingMode?
    /// Sampling temperature; nil = model default.
    public var temperature: Double?
    /// Upper bound on generated tokens per response; nil = model default.
    public var maximumResponseTokens: Int?
    /// Tool-calling policy; nil behaves as `.allowed`.
    public var toolCallingMode: ToolCallingMode?
    /// Per-token log-probabilities to report (a Loom extension); nil reports none.
    public var logProbabilities: LogProbabilities?

    /// Builds options; every argument defaults to nil (model default).
    public init(
        samplingMode: SamplingMode? = nil,
        temperature: Double? = nil,
        maximumResponseTokens: Int? = nil,
        toolCallingMode: ToolCallingMode? = nil,
        logProbabilities: LogProbabilities? = nil
    ) {
        self.samplingMode = samplingMode
        self.temperature = temperature
        self.maximumResponseTokens = maximumResponseTokens
        self.toolCallingMode = toolCallingMode
        self.logProbabilities = logProbabilities
    }
}
