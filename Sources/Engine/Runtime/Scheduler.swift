#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import LoomSupport

/// Runs every sequence of one model in shared forward passes: continuous batching.
///
/// One thread steps all running sequences together: each decoding sequence contributes one row,
/// sequences reading a prompt contribute chunks (`SchedulerPolicy`), and every weight matrix is
/// read once per step for all of them. Keys and values live in one `KVBlockPool`; prompts that
/// start like an earlier one reuse its blocks. Sequences arrive and leave between steps.
///
/// Two ways to run a sequence:
/// - `generate(prompt:…)` samples inside the scheduler and streams tokens (`PipelinedStream`):
///   no logits leave the loop;
/// - `open(prompt:…)` hands each step's logits to the caller, who chooses the tokens
///   (`SequenceSession`: guided generation, custom executors).
/// Both produce, for the same prompt, parameters and seed, the tokens a sequence produces alone:
/// a row's arithmetic never depends on the other rows of its step.
///
/// Pressure: a sequence whose prompt does not fit the free blocks waits in a queue; when the pool
/// runs out mid-generation the youngest sequence is preempted (its blocks freed, its tokens
/// recomputed later), and sequences are admitted and spared oldest first, so none waits forever.
/// The thread sleeps when nothing can run.
public final class Scheduler: @unchecked Sendable {
    // @unchecked: all mutable state lives in `core`, owned by the scheduler thread, or behind
    // its lock.
    let core: SchedulerCore

    /// A scheduler for `model` with `configuration`'s threads, context and KV type, sharing steps
    /// as `policy` says. Starts its thread.
    ///
    /// With `promptCache`, full blocks of evaluated prompts are also written to that directory in
    /// the background, and prompts whose prefix has files there load them instead of evaluating
    /// those tokens (`PromptCacheStore`). Models with sliding-window layers persist nothing.
    public init(model: Model, configuration: TransformerConfiguration = TransformerConfiguration(),
                policy: SchedulerPolicy = SchedulerPolicy(), promptCache: PromptCacheOptions? = nil) throws(EngineError) {
        core = try SchedulerCore(model: model, configuration: configuration, policy: policy, promptCache: promptCache)
        guard core.start() else {
            core.promptCache?.close()
            throw .threadPoolUnavailable
        }
    }

    deinit { core.stop() }

    /// The model being run.
    public var model: Model { core.transformer.model }
    /// How steps are shared.
    public var policy: SchedulerPolicy { core.policy }
    /// Positions one sequence may hold.
    public var contextSize: Int { core.transformer.contextLength }
    /// Bytes of the KV pool (keys and values of every sequence), with the local layers' pool
    /// when sliding-window layers have one of their own.
    public var kvCacheBytes: Int { core.pool.byteCount + (core.localPool?.byteCount ?? 0) }
    /// Element type of the KV pool.
    public var kvCacheType: KVCacheType { core.pool.type }
    /// Bytes of keys and values one block of the KV pool holds across every layer (every
    /// global layer when local layers have a pool of their own).
    public var kvBlockBytes: Int { core.pool.bytesPerBlock }
    /// The persistent prompt cache, nil when none was asked for or the model cannot use one.
    public var promptCache: PromptCacheStore? { core.promptCache }

    /// Blocks the calling thread until every prompt block evaluated so far is written to the
    /// persistent prompt cache (at once without one). Never call it from a Swift concurrency thread.
    public func flushPromptCache() { core.promptCache?.flush() }

    /// Bytes of keys and values one block of the local layers' pool holds across those layers;
    /// nil when every layer keeps its keys and values in the one pool.
    public var localKVBlockBytes: Int? { core.localPool?.bytesPerBlock }

    /// Generates up to `maxTokens` tokens after `prompt`, sampling inside the scheduler, and
    /// returns the stream of token ids. `reusePrefix: false` evaluates the whole prompt even
    /// when cached blocks hold a prefix of it (cold timings). A stop token ends generation without being emitted.
    /// Cancellation (the flag, or the stream's consumer going away) ends the stream with
    /// `.cancelled` at the next step; a passed `timeout` ends it with `.deadlineExceeded`.
    /// - Throws: before any compute: `.contextLimitExceeded` when the prompt cannot fit,
    ///   `.tokenOutOfRange`, `.emptyBatch`, `.invalidConfiguration` for bad parameters.
    ///
    /// With `speculation` above 0, prompt lookup proposes up to that many tokens after each
    /// sampled one (see `PromptLookup`), evaluated with it in one step; sampling then reads the
    /// rows in order and keeps proposals only while they equal its own draws, so the stream is
    /// the one plain decoding gives.
    public func generate(prompt: [Int32], sampling: SamplingParameters, stopTokens: Set<Int32> = [], maxTokens: Int,
                         cancellation: CancellationFlag = CancellationFlag(), timeout: Duration? = nil,
                         reusePrefix: Bool = true, bufferCapacity: Int = 64,
                         speculation: Int = 0) throws(EngineError) -> PipelinedStream {
        guard maxTokens >= 0 else { throw .invalidConfiguration("maxTokens \(maxTokens) must not be negative") }
        guard speculation >= 0 else { throw .invalidConfiguration("speculation \(speculation) must not be negative") }
        guard bufferCapacity > 0 else { throw .invalidConfiguration("bufferCapacity \(bufferCapacity) must be positive") }
        try core.validate(prompt)
        let sampler = try Sampler(vocabularySize: model.config.vocabularySize, parameters: sampling)
        for t in prompt.suffix(sampling.penaltyWindow) { sampler.accept(t) }
        let ring = TokenRing(capacity: bufferCapacity)
        let run = min(speculation, core.policy.prefillChunk - 1)
        let driver = SamplingDriver(sampler: sampler, stopTokens: stopTokens.sorted(), maxTokens: maxTokens, ring: ring,
                                    lookup: run > 0 ? PromptLookup(prompt: prompt, maxRun: run) : nil)
        let core = self.core
        ring.setRoomHandler { core.poke() }
        core.submit(prompt: prompt, cancellation: cancellation, timeout: timeout, reusePrefix: reusePrefix,
                    driver: .sampling(driver))
        return PipelinedStream(ring: ring, cancellation: cancellation)
    }

    /// Starts a caller-driven sequence reading `prompt`: the session's `logits()` returns the
    /// prediction after it, and each `step` evaluates one more token in the next shared step.
    /// - Throws: before any compute, as `generate` does.
    public func open(prompt: [Int32], cancellation: CancellationFlag = CancellationFlag(), timeout: Duration? = nil,
                     reusePrefix: Bool = true) throws(EngineError) -> SequenceSession
    {
        try core.validate(prompt)
        let channel = CallerChannel(vocabularySize: model.config.vocabularySize)
        core.submit(prompt: prompt, cancellation: cancellation, timeout: timeout, reusePrefix: reusePrefix,
                    driver: .caller(channel))
        return SequenceSession(channel: channel, core: core)
    }

    /// Called on the scheduler's thread after each step's forward pass (before its tokens are
    /// chosen) with the number of steps run so far: progress reporting, and the hook tests use to
    /// act after a given unit of work.
    public var stepObserver: (@Sendable (Int) -> Void)? {
        get { core.shared.withLock { $0.stepObserver } }
        set { core.shared.withLockSignalling { $0.stepObserver = newValue; $0.events &+= 1 } }
    }

    /// Counters since the scheduler started.
    public var statistics: SchedulerStatistics { core.shared.withLock { $0.statistics } }
}

/// What a scheduler has done since it started.
public struct SchedulerStatistics: Sendable, Equatable {
    /// Forward passes run.
    public var steps = 0
    /// Rows evaluated over all steps.
    public var rows = 0
    /// Rows of prompt chunks.
    public var promptRows = 0
    /// Rows of prompt chunks long enough to be evaluated on their own (products and tiled
    /// attention of their own); the rest of `promptRows` shared the step's fused products.
    public var promptPathRows = 0
    /// Most sequences that shared one step.
    public var maxSequencesInStep = 0
    /// Sequences admitted (first admissions and re-admissions after preemption).
    public var admissions = 0
    /// Sequences preempted (blocks freed, recomputed later).
    public var preemptions = 0
    /// Sequences that ended (any reason).
    public var completed = 0
    /// Times the thread woke from its housekeeping timer rather than an event while sequences
    /// were in flight. Callers' tokens, new prompts and closes always wake it at once, so these
    /// count only the idle checks for flags and deadlines raised without an event.
    public var timerWakeups = 0
    /// Sequences running now.
    public var running = 0
    /// Sequences waiting for admission now.
    public var waiting = 0
    /// The KV pool's counters (the global layers' pool when local layers have one of their own).
    public var pool = KVBlockPool.Statistics()
    /// The counters of the pool that holds local (sliding-window) layers for the last window of
    /// positions of each sequence; nil when the model has no such layers.
    public var localPool: KVBlockPool.Statistics?

    /// All zero.
    public init() {}
}
