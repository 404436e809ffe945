/// Why a generation stopped.
public enum FinishReason: Sendable, Equatable, CustomStringConvertible {
    /// The sampler chose this stop token; it is not emitted and not added to the sequence.
    case stopToken(Int32)
    /// `maxTokens` were emitted, or the context window filled up.
    case maxTokens
    /// The cancellation flag was raised (or the consumer went away).
    case cancelled

    public var description: String {
        switch self {
        case .stopToken(let t): return "stop token \(t)"
        case .maxTokens: return "max tokens"
        case .cancelled: return "cancelled"
        }
    }
}

/// What a prompt evaluation did (`SequentialEngine.prefill`, `PipelinedStream.prefill`).
public typealias PrefillResult = SequentialEngine.PrefillResult

/// The end of a `SequentialEngine.generate` run.
public struct GenerationOutcome: Sendable, Equatable {
    /// The prompt evaluation (zero counts when it was cancelled before finishing).
    public var prefill: PrefillResult
    /// Tokens handed to the body.
    public var tokenCount: Int
    /// Why generation stopped.
    public var finishReason: FinishReason

    /// An outcome (for callers that report or mock generations).
    public init(prefill: PrefillResult, tokenCount: Int, finishReason: FinishReason) {
        self.prefill = prefill
        self.tokenCount = tokenCount
        self.finishReason = finishReason
    }
}
