// Apple's five `tokenCount(for:)` overloads (26.4). Each asks the session's model to count one
// item alone, as it would render it, so an app can budget a request against the context size
// before sending it: the counts of a transcript and of the next prompt (plus tools and schema,
// when the request has them) add up to what the model evaluates.

extension LanguageModelSession {
    /// The tokens `prompt` takes as the user turn of a request (with the assistant header the
    /// model answers after), counted by the session's model.
    public func tokenCount(for prompt: some PromptRepresentable) async throws -> Int {
        try await countTokens(.prompt(Transcript.Prompt(segments: prompt.promptRepresentation.segments)))
    }

    /// The tokens `instructions` take as the first entry of a conversation.
    public func tokenCount(for instructions: Instructions) async throws -> Int {
        try await countTokens(.instructions(Transcript.Instructions(segments: instructions.segments, toolDefinitions: [])))
    }

    /// The tokens describing `tools` adds to every request that offers them.
    public func tokenCount(for tools: [any Tool]) async throws -> Int {
        try await countTokens(.tools(tools.map { Transcript.ToolDefinition(tool: $0) }))
    }

    /// The tokens `schema` adds to a prompt that inlines it (`includeSchemaInPrompt`).
    public func tokenCount(for schema: GenerationSchema) async throws -> Int {
        try await countTokens(.schema(schema))
    }

    /// The tokens `transcriptEntries` take rendered together as a conversation (pass
    /// `session.transcript` for what the next request starts from).
    public func tokenCount(for transcriptEntries: some Collection<Transcript.Entry>) async throws -> Int {
        try await countTokens(.transcriptEntries(Array(transcriptEntries)))
    }

    private func countTokens(_ request: LanguageModelExecutorTokenCountRequest) async throws -> Int {
        try await activeDriver().tokenCount(for: request, store: executors)
    }
}
