/// Why the engine could not evaluate or generate.
public enum EngineError: Error, Sendable, Equatable, CustomStringConvertible {
    /// A token id outside the model's vocabulary.
    case tokenOutOfRange(id: Int, vocabularySize: Int)
    /// The KV cache has no room for the tokens to evaluate.
    case contextFull(needed: Int, capacity: Int)
    /// More tokens in one forward batch than the transformer was built for.
    case batchTooLarge(count: Int, maximum: Int)
    /// Nothing to evaluate.
    case emptyBatch
    /// A KV cache whose shape (layers, heads, capacity) does not fit the transformer.
    case cacheMismatch(String)
    /// A configuration value that cannot work (thread count, context length, …).
    case invalidConfiguration(String)
    /// The thread pool could not be started.
    case threadPoolUnavailable
    /// A prompt longer than the context window, refused before any compute.
    case contextLimitExceeded(contextSize: Int, tokenCount: Int)
    /// The caller's `CancellationFlag` was raised; work stopped at the next micro-batch or token.
    case cancelled
    /// The request's deadline passed before it finished; its sequence was ended at the next step.
    case deadlineExceeded

    public var description: String {
        switch self {
        case .tokenOutOfRange(let id, let n): return "token id \(id) is outside the vocabulary of \(n) tokens"
        case .contextFull(let needed, let capacity): return "context full: \(needed) positions needed, capacity \(capacity)"
        case .batchTooLarge(let count, let maximum): return "batch of \(count) tokens exceeds the maximum \(maximum)"
        case .emptyBatch: return "no tokens to evaluate"
        case .cacheMismatch(let why): return "KV cache does not fit this transformer: \(why)"
        case .invalidConfiguration(let why): return "invalid configuration: \(why)"
        case .threadPoolUnavailable: return "could not start the thread pool"
        case .contextLimitExceeded(let size, let count):
            return "prompt of \(count) tokens does not fit the context window of \(size) tokens"
        case .cancelled: return "cancelled"
        case .deadlineExceeded: return "deadline exceeded"
        }
    }
}
