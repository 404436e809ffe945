/// The set of features a `LanguageModel` declares it fully supports.
///
/// The session checks requests against this set before calling the executor, so a model
/// never sees a request it did not declare support for.
public struct LanguageModelCapabilities: Sendable, Hashable {
    /// One feature a model may support. Non-frozen: switch with `@unknown default`.
    public enum Capability: String, Sendable, Hashable, Codable, CaseIterable, CustomStringConvertible {
        /// The model can call developer-registered tools.
        case toolCalling
        /// Prompts may include images.
        case vision
        /// The model produces reasoning separately from its response.
        case reasoning
        /// The model's output strictly conforms to a JSON Schema.
        case guidedGeneration

        /// The capability's name, e.g. `toolCalling`.
        public var description: String { rawValue }
    }

    /// The declared capabilities.
    public private(set) var capabilities: Set<Capability>

    /// Declares `capabilities`.
    public init(_ capabilities: [Capability]) {
        self.capabilities = Set(capabilities)
    }

    /// Declares `capabilities` (the beta 1 labelled spelling; still accepted).
    public init(capabilities: [Capability]) {
        self.init(capabilities)
    }

    /// True when `capability` was declared.
    public func contains(_ capability: Capability) -> Bool {
        capabilities.contains(capability)
    }
}

extension LanguageModelCapabilities: ExpressibleByArrayLiteral {
    /// Declares the listed capabilities.
    public init(arrayLiteral elements: Capability...) {
        self.init(elements)
    }
}
