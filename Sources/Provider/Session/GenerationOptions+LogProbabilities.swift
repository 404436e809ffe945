extension GenerationOptions {
    /// A Loom extension: asks the model to report, for every token it generates, the token's
    /// log-probability and those of the most likely alternatives at that position.
    ///
    /// The values are the natural logarithm of the model's probabilities before sampling shapes
    /// them: a log-softmax of the raw logits, unaffected by temperature, top-k, top-p and
    /// penalties. For guided generation they are normalised over the tokens the grammar allows
    /// at that position: disallowed tokens never appear among the alternatives, and the allowed
    /// tokens' probabilities sum to one. Read them from the response with
    /// `LanguageModelSession.Response.logProbabilities`.
    ///
    /// ```swift
    /// let options = GenerationOptions(logProbabilities: .init(alternatives: 5))
    /// let response = try await session.respond(to: "Pick a colour.", options: options)
    /// for token in response.logProbabilities ?? [] { print(token.token, token.logProbability) }
    /// ```
    ///
    /// Backends refuse an `alternatives` outside `0...maximumAlternatives` before any compute
    /// (`LocalLanguageModel` throws `LocalLanguageModelError.invalidGenerationOptions`).
    public struct LogProbabilities: Sendable, Equatable, Hashable, Codable {
        /// The most alternatives a request may ask for (OpenAI's limit).
        public static let maximumAlternatives = 20

        /// How many of the most likely tokens to report at each position, `0...maximumAlternatives`
        /// (0: only the generated token's own log-probability). Fewer are reported where fewer
        /// tokens are possible (a grammar allowing only some).
        public var alternatives: Int

        /// Reports `alternatives` alternatives per generated token.
        public init(alternatives: Int = 0) {
            self.alternatives = alternatives
        }

        /// Whether `alternatives` is within `0...maximumAlternatives`.
        public var isValid: Bool { (0...Self.maximumAlternatives).contains(alternatives) }
    }
}
