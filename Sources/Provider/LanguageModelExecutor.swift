/// Performs generation for a `LanguageModel`.
///
/// Call order, as driven by `LanguageModelSession`:
/// 1. `init(configuration:)` — once per distinct `Configuration` per session (then cached);
/// 2. `prewarm(model:transcript:)` — optionally, when the app calls `session.prewarm()`;
/// 3. `respond(to:model:streamingInto:)` — once per generation step (a tool-calling turn
///    calls it again after each round of tool outputs).
///
/// `respond` runs in a cancellable task: check `Task.checkCancellation()` between tokens and
/// return or throw `CancellationError` when cancelled. Executors must tolerate concurrent
/// calls from different sessions.
public protocol LanguageModelExecutor: Sendable {
    /// The hashable snapshot an executor is built from and cached by.
    associatedtype Configuration: Hashable & Sendable
    /// The model type this executor serves.
    associatedtype Model: LanguageModel

    /// Builds an executor; throw on invalid configuration.
    init(configuration: Configuration) throws

    /// Generates a response for `request`, sending every delta to `channel` as it is produced.
    func respond(
        to request: LanguageModelExecutorGenerationRequest,
        model: Model,
        streamingInto channel: LanguageModelExecutorGenerationChannel
    ) async throws

    /// Prepares for a coming request (load weights, warm caches, prefill a prompt prefix).
    ///
    /// Synchronous and non-throwing: implementations that need async work start their own
    /// task and log failures. The default implementation does nothing.
    func prewarm(model: Model, transcript: Transcript)
}

extension LanguageModelExecutor {
    /// Does nothing: prewarming is optional.
    public func prewarm(model: Model, transcript: Transcript) {}
}
