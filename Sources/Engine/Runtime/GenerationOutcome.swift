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
