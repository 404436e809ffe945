import Foundation
import LoomSupport

extension LanguageModelSession {
    /// The result of a request.
    public struct Response<Content: Sendable>: Sendable {
        /// The response as the requested type (`String` for text).
        public let content: Content
        /// The response as generated content (a JSON string value for text).
        public let rawContent: GeneratedContent
        /// The entries this request added to the transcript, from its prompt on.
        public let transcriptEntries: ArraySlice<Transcript.Entry>
        /// Every tool call the model made during the request, in order.
        public let toolCalls: [Transcript.ToolCall]
        /// Usage of the final response entry, if the executor reported or credited any.
        public let usage: Transcript.Usage?

        init(content: Content, rawContent: GeneratedContent, transcriptEntries: ArraySlice<Transcript.Entry>,
             toolCalls: [Transcript.ToolCall] = [], usage: Transcript.Usage? = nil) {
            self.content = content
            self.rawContent = rawContent
            self.transcriptEntries = transcriptEntries
            self.toolCalls = toolCalls
            self.usage = usage
        }
    }

    /// A response delivered as snapshots while the executor produces it.
    ///
    /// Iterating starts the request; each snapshot is yielded as soon as the executor's event
    /// arrives (nothing is buffered until the end). Cancelling the iterating task cancels the
    /// request and its executor call; an iteration abandoned without cancellation lets the
    /// request run to completion. A stream runs its request once: iterate it from one task,
    /// then `collect()` returns the same outcome.
    public struct ResponseStream<Content: Generable>: AsyncSequence, Sendable {
        /// The response so far.
        public struct Snapshot: Sendable {
            /// The content so far: text for `String`, otherwise the type's partial form
            /// (`GeneratedContent` unless the type says otherwise).
            public var content: Content.PartiallyGenerated
            /// The content so far as generated content (`isComplete` false until the end).
            public var rawContent: GeneratedContent
        }

        /// The element type.
        public typealias Element = Snapshot

        let core: StreamCore<Content>

        init(run: @escaping @Sendable (_ yield: @escaping @Sendable (Snapshot) -> Void) async throws -> Response<Content>) {
            core = StreamCore(run: run)
        }

        init(fixed text: String) where Content == String {
            self.init(run: { yield in
                let raw = GeneratedContent(jsonValue: .string(text))
                yield(Snapshot(content: text, rawContent: raw))
                return Response(content: text, rawContent: raw, transcriptEntries: [])
            })
        }

        /// Iterates the snapshots.
        public struct AsyncIterator: AsyncIteratorProtocol {
            var base: AsyncThrowingStream<Snapshot, any Swift.Error>.AsyncIterator

            /// The next snapshot, nil at the end; throws the request's error.
            public mutating func next() async throws -> Snapshot? { try await base.next() }
        }

        /// Starts the request and iterates its snapshots.
        public func makeAsyncIterator() -> AsyncIterator {
            AsyncIterator(base: core.start().makeAsyncIterator())
        }

        /// Waits for the whole response (starting the request if iteration has not).
        public func collect() async throws -> Response<Content> {
            let stream = core.start()
            let consume = Task { for try await _ in stream {} }
            try await withTaskCancellationHandler {
                try await consume.value
            } onCancel: {
                consume.cancel()
            }
            return try core.finalResponse()
        }
    }
}

/// Runs a stream's request once and remembers its outcome for `collect()`.
final class StreamCore<Content: Generable>: Sendable {
    typealias Snapshot = LanguageModelSession.ResponseStream<Content>.Snapshot
    typealias Run = @Sendable (_ yield: @escaping @Sendable (Snapshot) -> Void) async throws
        -> LanguageModelSession.Response<Content>

    private let run: Run
    private let started = Locked<AsyncThrowingStream<Snapshot, any Error>?>(nil)
    private let outcome = Locked<Result<LanguageModelSession.Response<Content>, any Error>?>(nil)

    init(run: @escaping Run) { self.run = run }

    func start() -> AsyncThrowingStream<Snapshot, any Error> {
        started.withLock { existing in
            if let existing { return existing }
            let (stream, continuation) = AsyncThrowingStream<Snapshot, any Error>.makeStream()
            let run = self.run
            let task = Task { [self] in
                do {
                    let response = try await run { continuation.yield($0) }
                    outcome.withLock { $0 = .success(response) }
                    continuation.finish()
                } catch {
                    outcome.withLock { $0 = .failure(error) }
                    continuation.finish(throwing: error)
                }
            }
            continuation.onTermination = { termination in
                if case .cancelled = termination { task.cancel() }
            }
            existing = stream
            return stream
        }
    }

    func finalResponse() throws -> LanguageModelSession.Response<Content> {
        guard let result = outcome.withLock({ $0 }) else { throw CancellationError() }
        return try result.get()
    }
}
