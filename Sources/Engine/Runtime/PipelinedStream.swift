import LoomSupport

/// The token ids a `PipelinedEngine` generates, in order, as an `AsyncSequence` that throws
/// `EngineError`. The producer thread fills a bounded ring while the consumer drains it.
///
/// A stop token ends the sequence without being yielded. Cancellation (the `CancellationFlag`
/// given to `start`, or cancelling the consuming task) ends it normally with `finishReason ==
/// .cancelled`. Releasing the stream (and its iterators) abandons the generation: the producer
/// stops at its next token. Iterate it once.
public final class PipelinedStream: AsyncSequence, Sendable {
    public typealias Element = Int32
    public typealias Failure = EngineError

    let ring: TokenRing
    private let cancellation: CancellationFlag

    init(ring: TokenRing, cancellation: CancellationFlag) {
        self.ring = ring
        self.cancellation = cancellation
    }

    deinit { ring.abandon() }

    /// The prompt evaluation: valid once the first token arrived or the stream ended (zeros
    /// before, and when cancellation stopped it before it finished).
    public var prefill: PrefillResult { ring.prefill }

    /// Why generation ended: nil while it runs, or when it ended with an error.
    public var finishReason: FinishReason? { ring.finishReason }

    /// Tokens prompt-lookup speculation proposed, how many sampling confirmed, and the verified
    /// runs they came in, once the stream ended (zeros without speculation).
    public var speculation: (proposed: Int, accepted: Int, runs: Int) { ring.speculation }

    /// Reads the tokens in order.
    public struct AsyncIterator: AsyncIteratorProtocol {
        public typealias Element = Int32
        public typealias Failure = EngineError

        // Holding the stream keeps the generation alive while iterating.
        let stream: PipelinedStream
        var done = false

        /// The next token id, or nil at the end.
        public mutating func next() async throws(EngineError) -> Int32? {
            guard !done else { return nil }
            return try Self.handle(await Self.receive(stream.ring, stream.cancellation), done: &done)
        }

        /// The next token id, or nil at the end (the isolation-aware form).
        public mutating func next(isolation actor: isolated (any Actor)?) async throws(EngineError) -> Int32? {
            guard !done else { return nil }
            return try Self.handle(await Self.receive(stream.ring, stream.cancellation), done: &done)
        }

        private static func receive(_ ring: TokenRing, _ cancellation: CancellationFlag) async -> TokenRing.Event {
            await withTaskCancellationHandler {
                await ring.next()
            } onCancel: {
                ring.abandon()
                cancellation.cancel()
            }
        }

        private static func handle(_ event: TokenRing.Event, done: inout Bool) throws(EngineError) -> Int32? {
            switch event {
            case .token(let t):
                return t
            case .end:
                done = true
                return nil
            case .failure(let e):
                done = true
                throw e
            }
        }
    }

    /// An iterator over the tokens.
    public func makeAsyncIterator() -> AsyncIterator { AsyncIterator(stream: self) }
}
