/// Controls what the model is shown besides the transcript.
public struct ContextOptions: Sendable, Equatable, Codable {
    /// How much the model should think before answering. Non-frozen.
    public enum ReasoningLevel: Sendable, Equatable, Hashable, Codable {
        /// A short thought.
        case light
        /// A balanced amount of thought.
        case moderate
        /// Extended thought.
        case deep
        /// A provider-specific level (for example `"no_think"` to switch thinking off).
        case custom(String)
    }

    /// Whether to inline the response schema into the prompt.
    ///
    /// Three-state: nil means the developer expressed no preference. Executors that constrain
    /// decoding may skip inlining; the session's `schema:`/`generating:` overloads pass true
    /// unless the caller says otherwise.
    public var includeSchemaInPrompt: Bool?
    /// Requested reasoning effort; nil = model default. Needs `.reasoning`.
    public var reasoningLevel: ReasoningLevel?

    /// Builds options; both default to nil.
    public init(includeSchemaInPrompt: Bool? = nil, reasoningLevel: ReasoningLevel? = nil) {
        self.includeSchemaInPrompt = includeSchemaInPrompt
        self.reasoningLevel = reasoningLevel
    }
}
