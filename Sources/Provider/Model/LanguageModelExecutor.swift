import LoomSupport

/// Performs generation for a `LanguageModel`.
///
/// Call order, as driven by `LanguageModelSession`:
/// 1. `load(configuration:)` — once per distinct `Configuration` per session (then cached);
///    by default it runs `init(configuration:)` on a dedicated thread;
/// 2. `prewarm(model:transcript:)` — optionally, when the app calls `session.prewarm()`;
/// 3. `respond(to:model:streamingInto:)` — once per generation step (a tool-calling turn
///    calls it again after each round of tool outputs);
/// 4. `tokenCount(for:model:)` — whenever the app asks the session for a token count.
///
/// `respond` runs in a cancellable task: check `Task.checkCancellation()` between tokens and
/// return or throw `CancellationError` when cancelled. Executors must tolerate concurrent
/// calls from different sessions.
public protocol LanguageModelExecutor: Sendable {
    /// The hashable snapshot an executor is built from and cached by.
    associatedtype Configuration: Hashable & Sendable
    /// The model type this executor serves.
    associatedtype Model: LanguageModel

    /// Builds an executor; throw on invalid configuration. May block (loading a model): callers
    /// on Swift's cooperative pool use `load(configuration:)`.
    init(configuration: Configuration) throws

    /// Builds an executor without blocking the calling task; the session calls this. The default
    /// runs `init(configuration:)` on a dedicated thread (and throws `DedicatedThreadError` when
    /// none can be created). An executor whose loads can be shared overrides it so concurrent
    /// loads of one configuration wait for a single load.
    static func load(configuration: Configuration) async throws -> Self

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

    /// The tokens `request`'s item takes when this model renders it (see
    /// `LanguageModelExecutorTokenCountRequest` for what each item counts). The session calls it
    /// for `tokenCount(for:)`. The default implementation estimates from the item's text
    /// (`estimatedTokenCount`), so executors written before this requirement keep compiling;
    /// an executor with a tokenizer counts exactly.
    func tokenCount(for request: LanguageModelExecutorTokenCountRequest, model: Model) async throws -> Int
}

extension LanguageModelExecutor {
    /// Runs `init(configuration:)` on a dedicated thread, so a model load never occupies the
    /// cooperative pool.
    public static func load(configuration: Configuration) async throws -> Self {
        try await DedicatedThread.run { try Self(configuration: configuration) }
    }

    /// Does nothing: prewarming is optional.
    public func prewarm(model: Model, transcript: Transcript) {}

    /// Estimates from the item's text: about four UTF-8 bytes per token.
    public func tokenCount(for request: LanguageModelExecutorTokenCountRequest, model: Model) async throws -> Int {
        request.estimatedTokenCount
    }
}
