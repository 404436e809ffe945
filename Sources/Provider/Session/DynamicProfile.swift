/// A description of how a session runs — which model, which instructions, which tool-calling
/// mode, what happens to the transcript on errors — that the session reads before every request.
///
/// A profile is written like a view: a `body` built from `Profile { … }` and modifiers, with
/// conditionals choosing between alternatives. It resolves to one active `Profile` at a time;
/// when the choice changes (the session's `profile` is replaced, or the body reads state that
/// changed), the next request runs with the new settings and the transcript carries over,
/// re-rendered by the new model.
///
/// ```swift
/// struct ResearchProfile: DynamicProfile {
///     var needsStructure: Bool
///     var localModel: any LanguageModel
///     var capableModel: any LanguageModel
///
///     var body: some DynamicProfile {
///         if needsStructure {
///             Profile { Instructions { "Answer strictly in the requested schema." } }
///                 .model(capableModel)
///         } else {
///             Profile { Instructions { "Answer conversationally and briefly." } }
///                 .model(localModel)
///         }
///     }
/// }
/// ```
public protocol DynamicProfile: Sendable {
    /// The profile this one is made of.
    associatedtype Body: DynamicProfile

    /// The profile's content: a `Profile`, a modified one, or a choice between them.
    @DynamicProfileBuilder var body: Body { get }

    /// Writes this profile's settings into `resolution`. Composite profiles take the default
    /// (resolve `body`); `Profile`, the modifiers and the builder's choices write their own. Not
    /// for app code: implement `body` instead.
    func _resolve(into resolution: inout DynamicProfileResolution)
}

extension DynamicProfile {
    /// Resolves `body`.
    public func _resolve(into resolution: inout DynamicProfileResolution) {
        body._resolve(into: &resolution)
    }

    /// The settings this profile resolves to now.
    var resolved: DynamicProfileResolution {
        var resolution = DynamicProfileResolution()
        _resolve(into: &resolution)
        return resolution
    }
}

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

extension Never: DynamicProfile {
    /// Never called: primitive profiles have no body.
    public var body: Never { fatalError("Never has no body") }

    /// Never called.
    public func _resolve(into resolution: inout DynamicProfileResolution) {}
}

/// Builds a profile's `body`: one profile, or a choice between profiles with `if`/`else`.
@resultBuilder
public enum DynamicProfileBuilder {
    /// The body's one profile.
    public static func buildBlock<Content: DynamicProfile>(_ content: Content) -> Content { content }

    /// The `if` branch of a choice.
    public static func buildEither<TrueContent: DynamicProfile, FalseContent: DynamicProfile>(
        first content: TrueContent
    ) -> ConditionalProfile<TrueContent, FalseContent> {
        ConditionalProfile(choice: .first(content))
    }

    /// The `else` branch of a choice.
    public static func buildEither<TrueContent: DynamicProfile, FalseContent: DynamicProfile>(
        second content: FalseContent
    ) -> ConditionalProfile<TrueContent, FalseContent> {
        ConditionalProfile(choice: .second(content))
    }

    /// An `if` without `else`: when false, the profile sets nothing.
    public static func buildOptional<Content: DynamicProfile>(_ content: Content?) -> ConditionalProfile<Content, Profile> {
        content.map { ConditionalProfile(choice: .first($0)) } ?? ConditionalProfile(choice: .second(Profile()))
    }

    /// A profile used under `if #available`.
    public static func buildLimitedAvailability<Content: DynamicProfile>(_ content: Content) -> Content { content }
}

/// One of two profiles, as chosen by an `if`/`else` in a profile's body.
public struct ConditionalProfile<TrueContent: DynamicProfile, FalseContent: DynamicProfile>: DynamicProfile {
    enum Choice: Sendable {
        case first(TrueContent)
        case second(FalseContent)
    }
    let choice: Choice

    /// Never called: a choice resolves to its active branch.
    public var body: Never { fatalError("ConditionalProfile has no body") }

    /// Resolves the active branch.
    public func _resolve(into resolution: inout DynamicProfileResolution) {
        switch choice {
        case .first(let content): content._resolve(into: &resolution)
        case .second(let content): content._resolve(into: &resolution)
        }
    }
}
