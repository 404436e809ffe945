import Foundation
import LoomSupport

/// A conversation with a language model: the Foundation Models session API, for any
/// `LanguageModel` (Loom's local models, HTTP backends, test mocks).
///
/// A session keeps the transcript, runs one request at a time (a second concurrent request
/// throws `Error.concurrentRequests`), executes tools the model calls, parses structured
/// output, and streams snapshots as the executor produces them. It owns an executor store:
/// one executor per distinct `executorConfiguration`, created on first use and released with
/// the session. A session made with a `DynamicProfile` reads the profile before every request,
/// so the model, instructions and tool-calling mode can change mid-conversation while the
/// transcript carries over.
public final class LanguageModelSession: @unchecked Sendable {
    // @unchecked: every mutable field lives in `state` (a lock); the other stored properties
    // are immutable and Sendable.

    /// The tools the model may call in this session.
    public let tools: [any Tool]

    /// The model of requests whose profile names none.
    let defaultDriver: any ModelDriver
    let executors = ExecutorStore()
    let state: Locked<State>

    struct State {
        var transcript: Transcript
        var isResponding = false
        var mutatedWhileResponding = false
        var policy: TranscriptErrorHandlingPolicy?
        var toolCallingStepLimit = 16
        var toolCallTimeout: Duration?
        var reasoningLevel: ContextOptions.ReasoningLevel?
        var requestMetadata: [String: any Sendable & Codable & Equatable] = [:]
        var profile: (any DynamicProfile)?
    }

    /// A session whose transcript starts with `instructions` (if any) and the tools' definitions.
    public init(model: some LanguageModel, tools: [any Tool] = [], instructions: Instructions? = nil) {
        defaultDriver = ConcreteModelDriver(model: model)
        self.tools = tools
        var entries: [Transcript.Entry] = []
        if instructions != nil || !tools.isEmpty {
            entries.append(.instructions(Transcript.Instructions(
                segments: instructions?.segments ?? [],
                toolDefinitions: tools.map { Transcript.ToolDefinition(tool: $0) })))
        }
        state = Locked(State(transcript: Transcript(entries: entries)))
    }

    /// A session with text instructions.
    public convenience init(model: some LanguageModel, tools: [any Tool] = [], instructions: String) {
        self.init(model: model, tools: tools, instructions: Instructions(instructions))
    }

    /// A session with instructions built from several pieces.
    public convenience init(model: some LanguageModel, tools: [any Tool] = [],
                            @InstructionsBuilder instructions: () throws -> Instructions) rethrows {
        self.init(model: model, tools: tools, instructions: try instructions())
    }

    /// A session that continues `transcript` (for example one restored from disk).
    public init(model: some LanguageModel, tools: [any Tool] = [], transcript: Transcript) {
        defaultDriver = ConcreteModelDriver(model: model)
        self.tools = tools
        state = Locked(State(transcript: transcript))
    }

    /// The conversation so far. Settable: apps may trim or rewrite history between requests.
    /// Mutating it while a request is in progress makes that request throw
    /// `Error.transcriptMutationWhileResponding` (the mutation is kept).
    public var transcript: Transcript {
        get { state.withLock { $0.transcript } }
        set {
            state.withLock {
                if $0.isResponding { $0.mutatedWhileResponding = true }
                $0.transcript = newValue
            }
        }
    }

    /// True while a request is in progress.
    public var isResponding: Bool { state.withLock { $0.isResponding } }

    /// What happens to the transcript when a request fails; nil behaves as `.revertTranscript`.
    public var transcriptErrorHandlingPolicy: TranscriptErrorHandlingPolicy? {
        get { state.withLock { $0.policy } }
        set { state.withLock { $0.policy = newValue } }
    }

    /// How many times one turn may call the executor while the model keeps calling tools
    /// before the turn fails with `ToolLoopError.stepLimitExceeded` (default 16). A Loom addition.
    public var toolCallingStepLimit: Int {
        get { state.withLock { $0.toolCallingStepLimit } }
        set { state.withLock { $0.toolCallingStepLimit = max(1, newValue) } }
    }

    /// The longest one tool call may run; nil (the default) waits for the tool however long it
    /// takes. Past it the turn fails with `ToolCallError` wrapping
    /// `ToolLoopError.toolCallTimedOut`, the tool's task is cancelled, and the turn does not wait
    /// for the tool to notice: a tool that ignores cancellation cannot hold the session. A Loom
    /// addition (Apple's framework bounds neither tools nor the loop).
    public var toolCallTimeout: Duration? {
        get { state.withLock { $0.toolCallTimeout } }
        set { state.withLock { $0.toolCallTimeout = newValue } }
    }

    /// The reasoning level sent with every request (needs `.reasoning`); nil leaves it to the
    /// profile's `reasoningLevel(_:)` modifier, if any. A Loom addition.
    public var reasoningLevel: ContextOptions.ReasoningLevel? {
        get { state.withLock { $0.reasoningLevel } }
        set { state.withLock { $0.reasoningLevel = newValue } }
    }

    /// Metadata forwarded to the executor with every request (`request.metadata`).
    public var requestMetadata: [String: any Sendable & Codable & Equatable] {
        get { state.withLock { $0.requestMetadata } }
        set { state.withLock { $0.requestMetadata = newValue } }
    }

    /// Asks the executor to prepare for a request whose prompt starts with `promptPrefix`
    /// (load weights, prefill the instructions). Returns immediately: building the executor
    /// (which may load a model) and its `prewarm` run in a background task, and a request
    /// made meanwhile waits for that same executor rather than building a second one.
    /// Failures are ignored, as prewarming is only a hint.
    public func prewarm(promptPrefix: Prompt? = nil) {
        var transcript = self.transcript
        if let promptPrefix { transcript.append(.prompt(Transcript.Prompt(segments: promptPrefix.segments))) }
        let driver = activeDriver()
        let executors = self.executors
        Task.detached(priority: .utility) { await driver.prewarm(transcript: transcript, store: executors) }
    }
}

/// Erases the session's model type so the session itself is not generic.
protocol ModelDriver: Sendable {
    var capabilities: LanguageModelCapabilities { get }
    func tokenCount(for request: LanguageModelExecutorTokenCountRequest, store: ExecutorStore) async throws -> Int
    func respond(to request: LanguageModelExecutorGenerationRequest, channel: LanguageModelExecutorGenerationChannel,
                 store: ExecutorStore) async throws
    func prewarm(transcript: Transcript, store: ExecutorStore) async
}

struct ConcreteModelDriver<Model: LanguageModel>: ModelDriver {
    let model: Model

    var capabilities: LanguageModelCapabilities { model.capabilities }

    func respond(to request: LanguageModelExecutorGenerationRequest, channel: LanguageModelExecutorGenerationChannel,
                 store: ExecutorStore) async throws {
        let executor = try await store.executor(for: model)
        try await executor.respond(to: request, model: model, streamingInto: channel)
    }

    func prewarm(transcript: Transcript, store: ExecutorStore) async {
        guard let executor = try? await store.executor(for: model) else { return }
        executor.prewarm(model: model, transcript: transcript)
    }

    func tokenCount(for request: LanguageModelExecutorTokenCountRequest, store: ExecutorStore) async throws -> Int {
        let executor = try await store.executor(for: model)
        return try await executor.tokenCount(for: request, model: model)
    }
}

/// A driver for a model known only as an existential (a profile's `.model(_:)`).
func makeDriver(_ model: some LanguageModel) -> any ModelDriver {
    ConcreteModelDriver(model: model)
}
