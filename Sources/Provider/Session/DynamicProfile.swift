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

extension Never: DynamicProfile {
    /// Never called: primitive profiles have no body.
    public var body: Never { fatalError("Never has no body") }

    /// Never called.
    public func _resolve(into resolution: inout DynamicProfileResolution) {}
}
