// One executor call in its own task, its channel events delivered as an async sequence.
//
// Why a task of its own: a streamed response is produced in two phases — the handler waits for
// the first visible output (so an early failure such as a context overflow is still a proper
// 4xx), then the body producer relays the rest — and the generation must span both. Its
// lifetime is tied to whoever holds the run: cancelling the consumer's iteration, calling
// `cancel()`, or releasing the run (a response whose body is never produced, because the
// client left) all cancel the executor, which is how a disconnect stops generation.
import Provider

final class GenerationRun: Sendable {
    typealias Event = LanguageModelExecutorGenerationChannel.Event

    private let task: Task<Void, Never>
    /// The events, in order; ends when the executor returns, throws its error.
    let events: AsyncThrowingStream<Event, any Error>

    init<Model: LanguageModel>(executor: Model.Executor, model: Model, request: LanguageModelExecutorGenerationRequest) {
        let (stream, continuation) = AsyncThrowingStream.makeStream(of: Event.self, throwing: (any Error).self)
        events = stream
        let task = Task {
            // The buffer is unbounded, but bounded in practice by the response-token limit; it
            // lets the executor keep its own pace while the connection drains.
            let channel = LanguageModelExecutorGenerationChannel { continuation.yield($0) }
            do {
                try await executor.respond(to: request, model: model, streamingInto: channel)
                // An executor may return quietly when cancelled; that is not a complete answer.
                try Task.checkCancellation()
                continuation.finish()
            } catch {
                continuation.finish(throwing: error)
            }
        }
        self.task = task
        continuation.onTermination = { _ in task.cancel() }
    }

    /// Stops the executor (a no-op once it has finished).
    func cancel() { task.cancel() }

    deinit { task.cancel() }
}

/// The reading end of a run, handed from the request handler to the body producer.
final class GenerationCursor: @unchecked Sendable {
    // @unchecked: the iterator and assembler are used by one task at a time — the handler until
    // it returns the response, then the body producer — never concurrently.
    let run: GenerationRun
    private var iterator: AsyncThrowingStream<GenerationRun.Event, any Error>.AsyncIterator
    var assembler = ChatCompletionAssembler()
    /// Whether the executor has finished (normally).
    private(set) var finished = false
    /// When the first visible output arrived, if it has.
    private(set) var firstOutputAt: ContinuousClock.Instant?

    init(run: GenerationRun) {
        self.run = run
        iterator = run.events.makeAsyncIterator()
    }

    /// The next visible deltas (or the assembler's flags changing); empty once the generation
    /// finished. Throws the executor's error.
    func nextDeltas() async throws -> [ChatCompletionAssembler.Delta] {
        while !finished {
            guard let event = try await iterator.next() else {
                // A cancelled iteration also ends the sequence: not a finished generation.
                try Task.checkCancellation()
                finished = true
                break
            }
            let deltas = assembler.apply(event)
            if !deltas.isEmpty, firstOutputAt == nil { firstOutputAt = .now }
            if !deltas.isEmpty || assembler.revisedStreamedOutput || assembler.producedAttachment { return deltas }
        }
        return []
    }
}
