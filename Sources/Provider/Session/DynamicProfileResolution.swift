/// The settings a `DynamicProfile` resolves to; built by the session before each request.
/// Fields a profile leaves unset keep the session's own settings.
public struct DynamicProfileResolution: Sendable {
    /// The model requests run on; nil keeps the session's default model.
    var model: (any LanguageModel)?
    /// The instructions that lead the transcript; nil keeps the transcript's own.
    var instructions: Instructions?
    /// The tool-calling mode of requests whose options leave it unset.
    var toolCallingMode: GenerationOptions.ToolCallingMode?
    /// The transcript policy when the session's own `transcriptErrorHandlingPolicy` is nil.
    var transcriptErrorHandlingPolicy: TranscriptErrorHandlingPolicy?
    /// The reasoning level when the session's own `reasoningLevel` is nil.
    var reasoningLevel: ContextOptions.ReasoningLevel?
    /// Rewrites of the history before each request, outermost first.
    var historyTransforms: [HistoryTransform] = []
    /// Summarisation of old history when the transcript grows too long.
    var summarization: HistorySummarization?

    init() {}
}
