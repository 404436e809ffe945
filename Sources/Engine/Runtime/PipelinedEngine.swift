import LoomSupport

/// The engine that samples inside the scheduler's loop: tokens flow into a bounded ring that the
/// caller drains as a `PipelinedStream`, so detokenizing and emitting events overlap with
/// computing the next step.
///
/// It exposes no logits (`supportsLogits == false`), so it cannot apply a grammar mask: guided
/// generation uses `SequentialEngine` (available as `engine`, on the same scheduler). For the same
/// prompt, parameters and seed it produces the same tokens as `SequentialEngine.generate`.
///
/// One generation at a time per engine: `start` while a previous stream is still producing
/// cancels that stream (it ends with `.cancelled`). Engines made from one scheduler run their
/// streams in shared steps.
public final class PipelinedEngine {
    /// Whether callers can read logits: never, the sampler runs inside the scheduler.
    public static let supportsLogits = false
    /// Instance form of `PipelinedEngine.supportsLogits`.
    public var supportsLogits: Bool { Self.supportsLogits }

    /// A caller-driven engine on the same scheduler (for guided requests).
    public let engine: SequentialEngine
    /// Tokens the ring holds before the scheduler leaves this sequence out of its steps.
    public let bufferCapacity: Int
    private var active: (ring: TokenRing, cancellation: CancellationFlag)?

    /// An engine with a scheduler of its own for `model`; `bufferCapacity` bounds how far
    /// decoding may run ahead of the consumer.
    public init(model: Model, configuration: TransformerConfiguration = TransformerConfiguration(),
                bufferCapacity: Int = 64) throws(EngineError) {
        guard bufferCapacity > 0 else { throw .invalidConfiguration("bufferCapacity \(bufferCapacity) must be positive") }
        engine = try SequentialEngine(model: model, configuration: configuration)
        self.bufferCapacity = bufferCapacity
    }

    /// An engine whose streams run in `scheduler`'s shared steps.
    public init(scheduler: Scheduler, bufferCapacity: Int = 64) throws(EngineError) {
        guard bufferCapacity > 0 else { throw .invalidConfiguration("bufferCapacity \(bufferCapacity) must be positive") }
        engine = SequentialEngine(scheduler: scheduler)
        self.bufferCapacity = bufferCapacity
    }

    deinit { active?.cancellation.cancel() }

    /// The scheduler the streams run on.
    public var scheduler: Scheduler { engine.scheduler }

    /// The model being run.
    public var model: Model { engine.model }

    /// Positions the sequence can hold.
    public var contextSize: Int { engine.contextSize }

    /// Starts generating after `prompt` and returns the stream of token ids.
    ///
    /// The prompt reuses the longest prefix the scheduler's KV pool holds, unless `reusePrefix`
    /// is false. Sampling, stop tokens and the token budget behave as in
    /// `SequentialEngine.generate`. Once `cancellation` is raised the stream ends with
    /// `finishReason == .cancelled` at the next step. `speculation` caps prompt-lookup proposals
    /// (0: none; the stream is the same either way, see `Scheduler.generate`).
    /// - Throws: before any compute: `.contextLimitExceeded` when the prompt cannot fit,
    ///   `.tokenOutOfRange`, `.emptyBatch`, or `.invalidConfiguration` for bad parameters.
    public func start(prompt: [Int32], sampling: SamplingParameters, stopTokens: Set<Int32>, maxTokens: Int,
                      reusePrefix: Bool = true, cancellation: CancellationFlag,
                      speculation: Int = 0) throws(EngineError) -> PipelinedStream {
        if let previous = active {
            previous.cancellation.cancel()
            previous.ring.waitForProducer()
            active = nil
        }
        let stream = try scheduler.generate(prompt: prompt, sampling: sampling, stopTokens: stopTokens,
                                            maxTokens: maxTokens, cancellation: cancellation, reusePrefix: reusePrefix,
                                            bufferCapacity: bufferCapacity, speculation: speculation)
        active = (stream.ring, cancellation)
        return stream
    }

    /// Blocks until the current generation has ended in the scheduler (after its stream ended or
    /// was cancelled).
    public func waitUntilIdle() {
        active?.ring.waitForProducer()
    }
}
