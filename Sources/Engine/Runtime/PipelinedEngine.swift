#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import LoomSupport

/// The engine that samples inside its own loop: a producer thread evaluates the prompt, then
/// decodes back to back (sample → evaluate → sample …) and pushes token ids into a bounded ring
/// that the caller drains as a `PipelinedStream`, so detokenizing and emitting events overlap
/// with computing the next token.
///
/// It exposes no logits (`supportsLogits == false`), so it cannot apply a grammar mask: guided
/// generation uses `SequentialEngine`. For the same prompt, parameters and seed it produces the
/// same tokens as `SequentialEngine.generate` (both run the same loop).
///
/// One generation at a time: `start` while a previous stream is still producing cancels that
/// stream (it ends with `.cancelled`) and waits for its producer, at most one forward pass.
/// Not thread-safe otherwise: callers pool engines, one user at a time.
public final class PipelinedEngine {
    /// Whether callers can read logits: never, the sampler runs inside the engine.
    public static let supportsLogits = false
    /// Instance form of `PipelinedEngine.supportsLogits`.
    public var supportsLogits: Bool { Self.supportsLogits }

    /// The engine the producer thread drives (its cache, transformer and prefix cache).
    /// Touch it only while no stream is producing.
    public let engine: SequentialEngine
    /// Tokens the ring holds before the producer waits for the consumer.
    public let bufferCapacity: Int
    private var active: TokenRing?

    /// An engine for `model` whose prompts consult `prefixCache` (when given); `bufferCapacity`
    /// bounds how far decoding may run ahead of the consumer.
    public init(model: Model, configuration: TransformerConfiguration = TransformerConfiguration(),
                prefixCache: PrefixCache? = nil, bufferCapacity: Int = 64) throws(EngineError) {
        guard bufferCapacity > 0 else { throw .invalidConfiguration("bufferCapacity \(bufferCapacity) must be positive") }
        engine = try SequentialEngine(model: model, configuration: configuration, prefixCache: prefixCache)
        self.bufferCapacity = bufferCapacity
    }

    deinit {
        if let active {
            active.abandon()
            active.waitForProducer()
        }
    }

    /// The model being run.
    public var model: Model { engine.model }

    /// Positions the cache can hold.
    public var contextSize: Int { engine.contextSize }

    /// Starts generating after `prompt` on the producer thread and returns the stream of token ids.
    ///
    /// The prompt reuses the longest prefix the engine's sequence (or the prefix cache) holds,
    /// unless `reusePrefix` is false. Sampling, stop tokens and the token budget behave as in
    /// `SequentialEngine.generate`. `cancellation` is checked before every micro-batch and
    /// token; once raised, at most one more forward pass runs and the stream ends with
    /// `finishReason == .cancelled`.
    /// - Throws: before any compute: `.contextLimitExceeded` when the prompt cannot fit,
    ///   `.tokenOutOfRange`, `.emptyBatch`, or `.invalidConfiguration` for bad parameters.
    public func start(prompt: [Int32], sampling: SamplingParameters, stopTokens: Set<Int32>, maxTokens: Int,
                      reusePrefix: Bool = true, storePrefixLength: Int? = nil,
                      cancellation: CancellationFlag) throws(EngineError) -> PipelinedStream {
        let loop = DecodeLoop(prompt: prompt, sampling: sampling, stopTokens: stopTokens, maxTokens: maxTokens,
                              reusePrefix: reusePrefix, storePrefixLength: storePrefixLength)
        if let previous = active {
            previous.abandon()
            previous.waitForProducer()
            active = nil
        }
        try loop.validate(for: engine)
        let ring = TokenRing(capacity: bufferCapacity)
        active = ring
        let job = ProducerJob(engine: engine, loop: loop, ring: ring, cancellation: cancellation)
        guard ProducerJob.spawn(job) else {
            active = nil
            throw .threadPoolUnavailable
        }
        return PipelinedStream(ring: ring, cancellation: cancellation)
    }

    /// Stores the sequence's first `count` positions in the prefix cache (see
    /// `SequentialEngine.storePrefix`). Only between generations.
    @discardableResult
    public func storePrefix(count: Int) -> Bool {
        if let active { active.waitForProducer() }
        return engine.storePrefix(count: count)
    }

    /// Blocks until the current generation's producer has stopped (after its stream ended or
    /// was cancelled), so the engine's sequence can be inspected.
    public func waitUntilIdle() {
        active?.waitForProducer()
    }
}

/// One generation's work on its own thread. `@unchecked Sendable`: the engine is handed to the
/// producer thread and not touched by its owner until the ring reports the producer done.
private final class ProducerJob: @unchecked Sendable {
    let engine: SequentialEngine
    let loop: DecodeLoop
    let ring: TokenRing
    let cancellation: CancellationFlag

    init(engine: SequentialEngine, loop: DecodeLoop, ring: TokenRing, cancellation: CancellationFlag) {
        self.engine = engine
        self.loop = loop
        self.ring = ring
        self.cancellation = cancellation
    }

    func run() {
        let ring = self.ring
        do {
            let outcome = try loop.run(on: engine, cancellation: cancellation,
                                       prefilled: { ring.setPrefill($0) },
                                       emit: { [cancellation] in ring.push($0, cancellation: cancellation) })
            ring.finish(outcome.finishReason, error: nil)
        } catch {
            ring.finish(nil, error: error)
        }
    }

    /// Starts a detached thread running `job.run()`.
    static func spawn(_ job: ProducerJob) -> Bool {
        let context = Unmanaged.passRetained(job).toOpaque()
        var thread = pthread_t()
        let rc = pthread_create(&thread, nil, { raw in
            let job = Unmanaged<ProducerJob>.fromOpaque(raw!).takeRetainedValue()
            job.run()
            return nil
        }, context)
        guard rc == 0 else {
            Unmanaged<ProducerJob>.fromOpaque(context).release()
            return false
        }
        pthread_detach(thread)
        return true
    }
}
