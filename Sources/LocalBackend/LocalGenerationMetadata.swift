import LoomJSON
import Provider

/// What a local generation reports in its entry's metadata, read back typed.
///
/// `LocalLanguageModel` writes these keys (`Key`) into the metadata of the entry a step
/// produces (the response entry, or the tool-calls entry of a step that only called tools):
/// the identity keys when the entry opens, the figures with the final usage at the end.
///
/// ```swift
/// let response = try await session.respond(to: "Name three primes.")
/// if let speed = response.localMetadata.tokensPerSecond { print("\(speed) tok/s") }
/// ```
public struct LocalGenerationMetadata: Sendable, Equatable {
    /// The metadata keys the local backend writes.
    public enum Key: String, Sendable, CaseIterable {
        /// The model's name from its GGUF metadata (text).
        case modelID
        /// The request's id (`LanguageModelExecutorGenerationRequest.id`, text).
        case requestID
        /// The engine that ran the step: `sequential` or `pipelined` (text).
        case variant
        /// Decode speed after the first token, tokens per second (number; 0 when fewer than two
        /// tokens were generated).
        case tokensPerSecond
        /// Seconds from the request's start to its first generated token (number).
        case timeToFirstToken
        /// Prompt tokens served from the KV cache instead of evaluated (integer).
        case cachedTokenCount
        /// Why generation stopped: `endOfGeneration`, `maximumTokens`, `stopSequence` or
        /// `grammarComplete` (text).
        case stopReason
        /// Tokens sampled under a grammar (integer; guided steps only).
        case sampledTokens
        /// Of those, tokens the sampler drew outside the grammar's mask and the grammar replaced
        /// (integer; guided steps only).
        case sampledOutsideMask
        /// Tokens the grammar forced because only one was valid, without sampling (integer;
        /// guided steps only).
        case forcedTokens
        /// Times the grammar steered the output toward closing to fit the response budget
        /// (integer; guided steps only).
        case budgetSteers
        /// Tokens prompt-lookup speculation proposed and verified (integer; 0 with speculation
        /// off).
        case proposedTokens
        /// Of those, tokens the model's own choices confirmed (integer).
        case acceptedTokens
        /// Verified runs the proposals came in, each one forward pass (integer).
        case speculativeRuns
    }

    /// `Key.modelID`.
    public var modelID: String?
    /// `Key.requestID`.
    public var requestID: String?
    /// `Key.variant`.
    public var variant: LocalLanguageModel.Variant?
    /// `Key.tokensPerSecond`.
    public var tokensPerSecond: Double?
    /// `Key.timeToFirstToken`, in seconds.
    public var timeToFirstToken: Double?
    /// `Key.cachedTokenCount`.
    public var cachedTokenCount: Int?
    /// `Key.stopReason`.
    public var stopReason: String?
    /// `Key.sampledTokens`.
    public var sampledTokens: Int?
    /// `Key.sampledOutsideMask`.
    public var sampledOutsideMask: Int?
    /// `Key.forcedTokens`.
    public var forcedTokens: Int?
    /// `Key.budgetSteers`.
    public var budgetSteers: Int?
    /// `Key.proposedTokens`.
    public var proposedTokens: Int?
    /// `Key.acceptedTokens`.
    public var acceptedTokens: Int?
    /// `Key.speculativeRuns`.
    public var speculativeRuns: Int?

    /// Reads the keys out of an entry's metadata; absent or mistyped keys stay nil.
    public init(_ metadata: [String: GeneratedContent]) {
        func text(_ key: Key) -> String? { metadata[key.rawValue]?.jsonValue.stringValue }
        func number(_ key: Key) -> Double? {
            guard case .number(let n)? = metadata[key.rawValue]?.jsonValue else { return nil }
            return Double(n.description)
        }
        func integer(_ key: Key) -> Int? {
            guard case .number(let n)? = metadata[key.rawValue]?.jsonValue else { return nil }
            return Int(n.description)
        }
        modelID = text(.modelID)
        requestID = text(.requestID)
        variant = text(.variant).flatMap(LocalLanguageModel.Variant.init(rawValue:))
        tokensPerSecond = number(.tokensPerSecond)
        timeToFirstToken = number(.timeToFirstToken)
        cachedTokenCount = integer(.cachedTokenCount)
        stopReason = text(.stopReason)
        sampledTokens = integer(.sampledTokens)
        sampledOutsideMask = integer(.sampledOutsideMask)
        forcedTokens = integer(.forcedTokens)
        budgetSteers = integer(.budgetSteers)
        proposedTokens = integer(.proposedTokens)
        acceptedTokens = integer(.acceptedTokens)
        speculativeRuns = integer(.speculativeRuns)
    }

    /// Reads the metadata of the last response entry among `entries` (a response's
    /// `transcriptEntries`, or a session's transcript).
    public init(entries: some BidirectionalCollection<Transcript.Entry>) {
        let last = entries.last { if case .response = $0 { return true }; return false }
        guard case .response(let response)? = last else {
            self.init([:])
            return
        }
        self.init(response.metadata)
    }
}

extension LanguageModelSession.Response {
    /// The local backend's figures for this response (empty for other models).
    public var localMetadata: LocalGenerationMetadata {
        LocalGenerationMetadata(entries: transcriptEntries)
    }
}
