/// A description of a language model that a `LanguageModelSession` can drive.
///
/// A model value is cheap: apps may build one per view update. The work happens in its
/// `Executor`, which the session creates from `executorConfiguration` and caches per
/// configuration (same configuration → same executor instance, for the life of the session).
///
/// Conformers declare what they support in `capabilities`; the session refuses requests
/// that need an undeclared capability with `LanguageModelError.unsupportedCapability`
/// before the executor is called.
public protocol LanguageModel: Sendable {
    /// The type that performs generation for this model.
    associatedtype Executor: LanguageModelExecutor where Executor.Model == Self

    /// The features this model fully supports.
    var capabilities: LanguageModelCapabilities { get }

    /// A snapshot of everything the executor needs; the session's executor cache key.
    ///
    /// Put every behaviour-affecting field here (endpoint, model id, credential identity,
    /// timeouts), and nothing per-request: two configurations that compare equal must be
    /// interchangeable.
    var executorConfiguration: Executor.Configuration { get }
}
