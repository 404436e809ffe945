/// A profile with one setting applied around it. Settings nearer the `Profile` win, as a
/// modifier written inside another overrides the outer one.
public struct ModifiedProfile<Content: DynamicProfile>: DynamicProfile {
    let content: Content
    let apply: @Sendable (inout DynamicProfileResolution) -> Void

    /// Never called: a modified profile resolves its content.
    public var body: Never { fatalError("ModifiedProfile has no body") }

    /// Applies the setting, then the content's own (which win).
    public func _resolve(into resolution: inout DynamicProfileResolution) {
        apply(&resolution)
        content._resolve(into: &resolution)
    }
}

extension DynamicProfile {
    /// Runs requests on `model` while this profile is active. Switching to a profile with
    /// another model keeps the transcript: the new model renders it with its own chat template.
    public func model(_ model: any LanguageModel) -> some DynamicProfile {
        ModifiedProfile(content: self) { $0.model = model }
    }

    /// The tool-calling mode of requests whose `GenerationOptions` leave it unset.
    public func toolCallingMode(_ mode: GenerationOptions.ToolCallingMode?) -> some DynamicProfile {
        ModifiedProfile(content: self) { $0.toolCallingMode = mode }
    }

    /// What happens to the transcript when a request fails, unless the session's own
    /// `transcriptErrorHandlingPolicy` is set; nil behaves as `.revertTranscript`.
    public func transcriptErrorHandlingPolicy(_ policy: TranscriptErrorHandlingPolicy?) -> some DynamicProfile {
        ModifiedProfile(content: self) { $0.transcriptErrorHandlingPolicy = policy }
    }

    /// The reasoning level of requests, unless the session's own `reasoningLevel` is set
    /// (the model must declare `.reasoning`).
    public func reasoningLevel(_ level: ContextOptions.ReasoningLevel?) -> some DynamicProfile {
        ModifiedProfile(content: self) { $0.reasoningLevel = level }
    }
}
