import Foundation

/// Everything an executor needs for one generation step, built by the session.
public struct LanguageModelExecutorGenerationRequest: Sendable {
    /// A unique id for this request, for tracing (never an entry id).
    public var id: UUID
    /// The conversation to continue: instructions, prompts, prior responses, tool calls and outputs.
    public var transcript: Transcript
    /// The tools available on this step (empty if none).
    public var enabledToolDefinitions: [Transcript.ToolDefinition]
    /// The JSON Schema the response must conform to, if any.
    public var schema: GenerationSchema?
    /// Sampling controls; nil fields mean "model default".
    public var generationOptions: GenerationOptions
    /// Prompt-content controls (schema inlining, reasoning level).
    public var contextOptions: ContextOptions
    /// Call-site metadata for analytics or provider-specific escape hatches.
    public var metadata: [String: any Sendable & Codable & Equatable]

    /// Builds a request. Note the label `enabledTools:` for `enabledToolDefinitions`.
    public init(
        id: UUID = UUID(),
        transcript: Transcript,
        enabledTools: [Transcript.ToolDefinition] = [],
        schema: GenerationSchema? = nil,
        generationOptions: GenerationOptions = GenerationOptions(),
        contextOptions: ContextOptions = ContextOptions(),
        metadata: [String: any Sendable & Codable & Equatable] = [:]
    ) {
        self.id = id
        self.transcript = transcript
        self.enabledToolDefinitions = enabledTools
        self.schema = schema
        self.generationOptions = generationOptions
        self.contextOptions = contextOptions
        self.metadata = metadata
    }
}
