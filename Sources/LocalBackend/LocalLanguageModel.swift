import Engine
import Foundation
import Grammar
import LoomMetrics
import Provider

/// A `LanguageModel` backed by a GGUF file run on this machine by Loom's engine.
///
/// The value is a cheap description: nothing is read until the session makes its executor.
/// Guided generation is exact: on the sequential engine every sampled token is drawn from the
/// grammar's mask, so structured output always conforms to its schema.
///
/// ```swift
/// let model = LocalLanguageModel(url: URL(fileURLWithPath: "models/default.gguf"))
/// let session = LanguageModelSession(model: model, instructions: "You are terse.")
/// let answer = try await session.respond(to: "Name three primes.")
/// ```
public struct LocalLanguageModel: LanguageModel {
    /// Which engine runs generation.
    public enum Variant: String, Sendable, Hashable, CaseIterable {
        /// Token-at-a-time engine with logits: guided generation and grammar-guaranteed tool calls.
        case sequential
        /// Producer-thread engine without logits: fastest free text, no guided generation.
        case pipelined
        /// Pipelined for free text, sequential whenever a request needs a grammar.
        case automatic
    }

    /// The model file.
    public var url: URL
    /// The engine variant.
    public var variant: Variant
    /// KV positions of one sequence (prompt plus response): the most tokens a request's rendered
    /// transcript and its response may take together (Apple's `SystemLanguageModel.contextSize`).
    /// Measure requests against it with the session's `tokenCount(for:)`.
    public var contextSize: Int
    /// Kernel threads of the model's forward passes.
    public var threads: Int
    /// KV cache element type: `.f16` (the default), `.f32` (exact) or `.q8_0` (0.53 of F16; needs
    /// a head dimension that is a multiple of 32, else the first request fails with
    /// `LocalLanguageModelError.invalidConfiguration`).
    public var kvCacheType: KVCacheType
    /// Sampling used when a request leaves a field unset; nil uses Loom's defaults.
    public var sampling: SamplingDefaults?
    /// How JSON Schemas are compiled into grammars.
    public var grammar: JSONSchemaOptions
    /// The longest a single `respond` may run before it throws `LanguageModelError.timeout`;
    /// nil never times out. The time a request spends waiting for admission counts.
    public var timeout: Duration?
    /// Bytes of the KV block pool that every sequence of this model shares (one pool per
    /// configuration, across every session with an equal configuration); nil means
    /// `defaultConcurrentSequences` full contexts.
    ///
    /// One scheduler runs every request of the model: the sequences it admits decode together in
    /// shared forward passes, and it admits as many as the pool holds full contexts of
    /// `contextSize` positions (2 × layers × `contextSize` × KV width × element size bytes each:
    /// SmolLM2-135M at 2048 positions in F16 is 45 MiB; a 7B model with 8 KV heads, 256 MiB).
    /// Blocks a sequence does not fill stay free for others, and blocks holding a finished
    /// prompt stay cached for the next request that starts the same way until the pool needs
    /// them. A request past the admitted number waits — without blocking a thread, in arrival
    /// order, cancellably, within `timeout` — for a running one to end. A budget smaller than one
    /// full context makes every request throw `LocalLanguageModelError.kvCacheBudgetTooSmall`
    /// before any compute. The weights are outside this budget.
    public var kvCacheBudget: Int?
    /// The most tokens prompt-lookup speculation proposes at once; 0 turns it off.
    ///
    /// After each chosen token, the continuation of the latest earlier occurrence of the last
    /// few tokens (in the prompt or the output) is proposed and evaluated together with the
    /// token in one forward pass; the model's own choices confirm a prefix of it, and the rest is
    /// rolled back. Output is unchanged — the same tokens for greedy and seeded sampling, every
    /// guided token under its mask — while input-grounded outputs (extraction, rewriting,
    /// quoting) take several tokens per pass. The run length adapts to acceptance, and
    /// proposing pauses after rejections, so text that does not copy its input pays little.
    /// Applies to requests served by the sequential generation path (guided generation, tool
    /// calling, and the `.sequential` variant).
    public var speculationLimit: Int = 8

    /// Where the model's runtime records its metrics (request latencies and outcomes, tokens,
    /// grammar times, scheduler and KV gauges — see docs/embedding.md); nil records nothing.
    /// Export `metrics.snapshot()` yourself, or as Prometheus text with `prometheusText()`.
    /// Part of the configuration by identity: models given different registries get separate
    /// runtimes (and KV pools); models sharing one registry add up in it.
    public var metrics: MetricsRegistry?

    /// A prompt cache that outlives the process; nil keeps cached prefixes in memory only.
    ///
    /// Every full KV block of an evaluated prompt (a shared system prompt, the earlier turns of
    /// a conversation) is written to `promptCache.directory` in the background shortly after its
    /// evaluation, and a later process with the same model file and KV type loads those blocks
    /// instead of evaluating their tokens again (they count as cached prompt tokens). The
    /// directory stays within `promptCache.budgetBytes` (least recently used files removed
    /// first), may be shared by several processes, and ignores damaged or foreign files with a
    /// warning (`docs/embedding.md` describes the format and guarantees). Call
    /// `flushPromptCache()` before exiting to wait for pending writes. Models with sliding-window
    /// layers (Gemma 3) persist nothing.
    public var promptCache: PromptCacheOptions?

    /// The context size a model gets when none is given (2048 positions).
    public static let defaultContextSize = 2048

    /// Sequences the default KV budget admits at once (`kvCacheBudget == nil`).
    public static let defaultConcurrentSequences = 4

    /// The former name of `defaultConcurrentSequences`.
    @available(*, deprecated, renamed: "defaultConcurrentSequences")
    public static var defaultKVCacheEngines: Int { defaultConcurrentSequences }

    /// Describes a model in the GGUF file at `url`. Nothing is read until a session uses it.
    public init(url: URL, variant: Variant = .automatic, contextSize: Int = defaultContextSize, threads: Int = 2,
                kvCacheType: KVCacheType = .f16, sampling: SamplingDefaults? = nil,
                grammar: JSONSchemaOptions = .init(), kvCacheBudget: Int? = nil) {
        self.url = url
        self.variant = variant
        self.contextSize = contextSize
        self.threads = threads
        self.kvCacheType = kvCacheType
        self.sampling = sampling
        self.grammar = grammar
        self.timeout = nil
        self.kvCacheBudget = kvCacheBudget
        self.metrics = nil
        self.promptCache = nil
    }

    /// Describes a model in the GGUF file at `path`.
    public init(path: String, variant: Variant = .automatic, contextSize: Int = defaultContextSize, threads: Int = 2,
                kvCacheType: KVCacheType = .f16, sampling: SamplingDefaults? = nil,
                grammar: JSONSchemaOptions = .init(), kvCacheBudget: Int? = nil) {
        self.init(url: URL(fileURLWithPath: path), variant: variant, contextSize: contextSize, threads: threads,
                  kvCacheType: kvCacheType, sampling: sampling, grammar: grammar, kvCacheBudget: kvCacheBudget)
    }

    /// What this model supports, detected from the file (its metadata is read once per file and
    /// cached; the weights are not loaded): `.guidedGeneration` and `.toolCalling` on the
    /// sequential and automatic variants (the grammar guarantees well-formed output from any
    /// model); on the pipelined variant `.toolCalling` only when the chat template renders tools
    /// itself; `.reasoning` when the vocabulary has reasoning markers (`<think>` …); never `.vision`.
    public var capabilities: LanguageModelCapabilities {
        LocalModelInspection.capabilities(path: url.path, variant: variant)
    }

    /// The executor cache key: file identity and every behaviour-affecting setting.
    public var executorConfiguration: Executor.Configuration {
        Executor.Configuration(model: self)
    }

    /// The KV bytes one full-context sequence of this model takes (keys and values, every
    /// layer, every position of `contextSize`, at `kvCacheType`): the unit of `kvCacheBudget`.
    /// Reads the file's header (mapping the weights once, shared with later executors).
    /// - Throws: `LocalLanguageModelError.modelLoadFailed` for an unreadable or malformed file,
    ///   `.invalidConfiguration` when the size overflows.
    public func kvCacheBytesPerSequence() throws -> Int {
        let weights: Engine.Model
        do {
            weights = try ModelStore.shared.model(path: url.path)
        } catch {
            throw LocalLanguageModelError.modelLoadFailed(path: url.path, reason: error)
        }
        return try LocalRuntime.kvCacheBytes(config: weights.config, configuration: executorConfiguration)
    }

    /// The former name of `kvCacheBytesPerSequence()`.
    @available(*, deprecated, renamed: "kvCacheBytesPerSequence")
    public func kvCacheBytesPerEngine() throws -> Int { try kvCacheBytesPerSequence() }
}
