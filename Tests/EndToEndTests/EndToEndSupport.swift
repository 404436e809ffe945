import Foundation
import Grammar
import LocalBackend
import LoomJSON
import LoomSupport
import Provider

/// The models as the end-to-end suites use them (files located by `SharedData`).
enum E2EData {
    /// The default model as the suites use it: small context, sequential unless told.
    static func smol(_ variant: LocalLanguageModel.Variant = .sequential, context: Int = 1024) -> LocalLanguageModel {
        LocalLanguageModel(path: SharedData.defaultModel, variant: variant, contextSize: context)
    }

    /// The parameters of a weather tool: a required city and an optional unit.
    static let weatherSchema = try! GenerationSchema(jsonSchema: #"""
        {"type": "object", "properties": {"city": {"type": "string"}, "unit": {"enum": ["celsius", "fahrenheit"]}},
         "required": ["city"], "additionalProperties": false}
        """#)
}

/// Records executor events for tests that drive an executor directly.
final class EventLog: Sendable {
    private let events = Locked<[LanguageModelExecutorGenerationChannel.Event]>([])
    /// Called after each event is recorded, on the thread that sent it (outside the log's lock).
    private let onRecord: @Sendable (EventLog) -> Void

    init(onRecord: @escaping @Sendable (EventLog) -> Void = { _ in }) {
        self.onRecord = onRecord
    }

    var channel: LanguageModelExecutorGenerationChannel {
        LanguageModelExecutorGenerationChannel { [self] event in record(event) }
    }

    private func record(_ event: LanguageModelExecutorGenerationChannel.Event) {
        events.withLock { $0.append(event) }
        onRecord(self)
    }

    var all: [LanguageModelExecutorGenerationChannel.Event] {
        events.withLock { $0 }
    }

    /// Response text appended, in order.
    var texts: [String] {
        all.compactMap {
            if case .response(let r) = $0.kind.storage, case .appendText(let t, _, _) = r.action { return t }
            return nil
        }
    }

    /// Token counts credited by response appends.
    var textTokenCounts: [Int] {
        all.compactMap {
            if case .response(let r) = $0.kind.storage, case .appendText(_, _, let n) = r.action { return n }
            return nil
        }
    }

    /// The last usage update of the response entry.
    var usage: (LanguageModelExecutorGenerationChannel.Usage.Input, LanguageModelExecutorGenerationChannel.Usage.Output)? {
        for e in all.reversed() {
            if case .response(let r) = e.kind.storage, case .updateUsage(let i, let o, _) = r.action { return (i, o) }
        }
        return nil
    }
}

extension LanguageModelSession.Response {
    /// The response entry's metadata.
    var responseMetadata: [String: GeneratedContent] {
        for entry in transcriptEntries.reversed() {
            if case .response(let r) = entry { return r.metadata }
        }
        return [:]
    }
}

/// Whether `text` is accepted, completely, by the grammar of `schema` compiled for recognition
/// (any whitespace, any property order): an independent check of generated output.
func grammarAccepts(_ text: String, schema: JSONValue) throws -> Bool {
    let grammar = try Grammar(jsonSchema: schema, options: .recognition)
    let vocabulary = GrammarVocabulary(tokens: (0..<256).map { [UInt8($0)] }, endOfGeneration: [])
    let matcher = GrammarMatcher(grammar: grammar, vocabulary: vocabulary)
    return matcher.accept(bytes: Array(text.utf8)) && matcher.isComplete
}

/// Runs `body` on a thread with a large stack (schema compilation recurses; test tasks run on
/// small cooperative-pool stacks).
func onLargeStack<T: Sendable>(_ body: @escaping @Sendable () throws -> T) async throws -> T {
    try await DedicatedThread.run(stackSize: 256 << 20, body)
}

extension LanguageModelSession {
    /// One answer for the speculation suites: its text (the JSON, under a schema included in the
    /// prompt) and the tokens speculation proposed and had accepted (-1 when unreported).
    func speculativeAnswer(to prompt: String, schema: GenerationSchema?, options: GenerationOptions)
        async throws -> (text: String, proposed: Int, accepted: Int)
    {
        if let schema {
            let response = try await respond(to: prompt, schema: schema, includeSchemaInPrompt: true, options: options)
            return (response.rawContent.jsonString, response.localMetadata.proposedTokens ?? -1,
                    response.localMetadata.acceptedTokens ?? -1)
        }
        let response = try await respond(to: prompt, options: options)
        return (response.content, response.localMetadata.proposedTokens ?? -1, response.localMetadata.acceptedTokens ?? -1)
    }
}

/// Cancels a task from inside its executor's stream once `texts` response appends have arrived,
/// so the cancellation lands at a known token on the generating side, not whenever a poller
/// on another thread notices. `tokensAtCancel` is what had been streamed when `cancel()` ran.
final class CancelAfterTexts: Sendable {
    private struct State {
        var task: Task<Void, any Error>?
        var due = false
        var tokensAtCancel: Int?
    }
    private let state: Locked<State>
    let log: EventLog

    init(texts: Int) {
        let state = Locked(State())
        self.state = state
        log = EventLog { log in
            guard log.texts.count >= texts else { return }
            let armed = state.withLock { s -> Bool in
                s.due = true
                return s.task != nil
            }
            if armed { Self.cancel(state, log) }
        }
    }

    /// The task to cancel; if the appends already arrived it is cancelled now.
    func arm(_ task: Task<Void, any Error>) {
        let due = state.withLock { s -> Bool in
            s.task = task
            return s.due
        }
        if due { Self.cancel(state, log) }
    }

    var tokensAtCancel: Int? { state.withLock { $0.tokensAtCancel } }

    /// Counts what was streamed, then cancels (once): tokens appended while the cancellation
    /// travels count against the bound the test asserts. `cancel()` runs outside the lock, as
    /// it may run cancellation handlers.
    private static func cancel(_ state: Locked<State>, _ log: EventLog) {
        let streamed = log.textTokenCounts.reduce(0, +)
        let task = state.withLock { s -> Task<Void, any Error>? in
            guard s.tokensAtCancel == nil else { return nil }
            s.tokensAtCancel = streamed
            return s.task
        }
        task?.cancel()
    }
}
