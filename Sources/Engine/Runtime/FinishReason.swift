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
