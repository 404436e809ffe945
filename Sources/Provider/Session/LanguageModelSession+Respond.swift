import Foundation

// The public request surface. Every overload funnels into `respond(prompt:format:…)` or
// `stream(prompt:format:…)`; `respond(to:)` is the stream collected, never a separate path.

extension LanguageModelSession {
    // MARK: Text

    /// Responds to `prompt` with text.
    @discardableResult
    public func respond(to prompt: some PromptRepresentable, options: GenerationOptions = GenerationOptions())
        async throws -> Response<String>
    {
        try await respond(prompt: prompt.promptRepresentation, format: .text(), includeSchemaInPrompt: false, options: options)
    }

    /// Responds with text to a prompt built from several pieces.
    @discardableResult
    public func respond(options: GenerationOptions = GenerationOptions(), @PromptBuilder prompt: () throws -> Prompt)
        async throws -> Response<String>
    {
        try await respond(to: try prompt(), options: options)
    }

    /// Streams a text response to `prompt`; each snapshot holds the text so far.
    public func streamResponse(to prompt: some PromptRepresentable, options: GenerationOptions = GenerationOptions())
        -> ResponseStream<String>
    {
        stream(prompt: prompt.promptRepresentation, format: .text(), includeSchemaInPrompt: false, options: options)
    }

    /// Streams a text response to a prompt built from several pieces.
    public func streamResponse(options: GenerationOptions = GenerationOptions(), @PromptBuilder prompt: () throws -> Prompt)
        rethrows -> ResponseStream<String>
    {
        streamResponse(to: try prompt(), options: options)
    }

    // MARK: Generable

    /// Responds with a value of a `Generable` type (structured output constrained by its schema).
    @discardableResult
    public func respond<Content: Generable>(
        to prompt: some PromptRepresentable, generating type: Content.Type, includeSchemaInPrompt: Bool = true,
        options: GenerationOptions = GenerationOptions()
    ) async throws -> Response<Content> {
        try await respond(prompt: prompt.promptRepresentation, format: .generable(Content.self),
                          includeSchemaInPrompt: includeSchemaInPrompt, options: options)
    }

    /// Responds with a value of a type that is both `Generable` and `Decodable`: `Generable` wins.
    @discardableResult
    public func respond<Content: Generable & Decodable>(
        to prompt: some PromptRepresentable, generating type: Content.Type, includeSchemaInPrompt: Bool = true,
        options: GenerationOptions = GenerationOptions()
    ) async throws -> Response<Content> {
        try await respond(prompt: prompt.promptRepresentation, format: .generable(Content.self),
                          includeSchemaInPrompt: includeSchemaInPrompt, options: options)
    }

    /// Responds with a value of a plain `Decodable` type; its schema is derived with
    /// `GenerationSchema(deriving:)` (throws `GenerationSchema.DerivationError` for types
    /// that cannot be described, before anything is generated).
    @discardableResult
    public func respond<Content: Decodable & Sendable>(
        to prompt: some PromptRepresentable, generating type: Content.Type, includeSchemaInPrompt: Bool = true,
        options: GenerationOptions = GenerationOptions()
    ) async throws -> Response<Content> {
        let schema = try GenerationSchema(deriving: Content.self)
        let format = OutputFormat<Content>.structured(schema: schema) { content in
            try JSONDecoder().decode(Content.self, from: Data(content.jsonString.utf8))
        }
        return try await respond(prompt: prompt.promptRepresentation, format: format,
                                 includeSchemaInPrompt: includeSchemaInPrompt, options: options)
    }

    /// Responds with a `Generable` value to a prompt built from several pieces.
    @discardableResult
    public func respond<Content: Generable>(
        generating type: Content.Type, includeSchemaInPrompt: Bool = true, options: GenerationOptions = GenerationOptions(),
        @PromptBuilder prompt: () throws -> Prompt
    ) async throws -> Response<Content> {
        try await respond(to: try prompt(), generating: type, includeSchemaInPrompt: includeSchemaInPrompt, options: options)
    }

    /// Streams a `Generable` value; snapshots hold its partial form as generated so far.
    public func streamResponse<Content: Generable>(
        to prompt: some PromptRepresentable, generating type: Content.Type, includeSchemaInPrompt: Bool = true,
        options: GenerationOptions = GenerationOptions()
    ) -> ResponseStream<Content> {
        stream(prompt: prompt.promptRepresentation, format: .generable(Content.self),
               includeSchemaInPrompt: includeSchemaInPrompt, options: options)
    }

    /// Streams a `Generable` value for a prompt built from several pieces.
    public func streamResponse<Content: Generable>(
        generating type: Content.Type, includeSchemaInPrompt: Bool = true, options: GenerationOptions = GenerationOptions(),
        @PromptBuilder prompt: () throws -> Prompt
    ) rethrows -> ResponseStream<Content> {
        streamResponse(to: try prompt(), generating: type, includeSchemaInPrompt: includeSchemaInPrompt, options: options)
    }

    // MARK: Schema

    /// Responds with content matching `schema` (for example one built from raw JSON Schema).
    @discardableResult
    public func respond(
        to prompt: some PromptRepresentable, schema: GenerationSchema, includeSchemaInPrompt: Bool = true,
        options: GenerationOptions = GenerationOptions()
    ) async throws -> Response<GeneratedContent> {
        try await respond(prompt: prompt.promptRepresentation, format: .structured(schema: schema) { $0 },
                          includeSchemaInPrompt: includeSchemaInPrompt, options: options)
    }

    /// Responds with content matching `schema` to a prompt built from several pieces.
    @discardableResult
    public func respond(
        schema: GenerationSchema, includeSchemaInPrompt: Bool = true, options: GenerationOptions = GenerationOptions(),
        @PromptBuilder prompt: () throws -> Prompt
    ) async throws -> Response<GeneratedContent> {
        try await respond(to: try prompt(), schema: schema, includeSchemaInPrompt: includeSchemaInPrompt, options: options)
    }

    /// Streams content matching `schema`; snapshots hold the partial JSON value so far.
    public func streamResponse(
        to prompt: some PromptRepresentable, schema: GenerationSchema, includeSchemaInPrompt: Bool = true,
        options: GenerationOptions = GenerationOptions()
    ) -> ResponseStream<GeneratedContent> {
        stream(prompt: prompt.promptRepresentation, format: .structured(schema: schema) { $0 },
               includeSchemaInPrompt: includeSchemaInPrompt, options: options)
    }

    /// Streams content matching `schema` for a prompt built from several pieces.
    public func streamResponse(
        schema: GenerationSchema, includeSchemaInPrompt: Bool = true, options: GenerationOptions = GenerationOptions(),
        @PromptBuilder prompt: () throws -> Prompt
    ) rethrows -> ResponseStream<GeneratedContent> {
        streamResponse(to: try prompt(), schema: schema, includeSchemaInPrompt: includeSchemaInPrompt, options: options)
    }
}
