import Engine
import Foundation
import Grammar
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
    /// KV cache positions per engine (prompt plus response).
    public var contextSize: Int
    /// Kernel threads per engine.
    public var threads: Int
    /// KV cache element type.
    public var kvCacheType: KVCacheType
    /// Sampling used when a request leaves a field unset; nil uses Loom's defaults.
    public var sampling: SamplingDefaults?
    /// How JSON Schemas are compiled into grammars.
    public var grammar: JSONSchemaOptions
    /// The longest a single `respond` may run before it throws `LanguageModelError.timeout`;
    /// nil never times out. The time a request spends waiting for an engine counts.
    public var timeout: Duration?
    /// Total bytes the KV caches of this model's engines may reserve at once, across every
    /// session with an equal configuration; nil means `defaultKVCacheEngines` engines' worth.
    ///
    /// Each concurrent request needs an engine, and each engine reserves a KV cache of
    /// 2 × layers × `contextSize` × KV width × element size bytes (SmolLM2-135M at 2048
    /// positions in F16: 45 MiB; a 7B model with 8 KV heads: 256 MiB). Idle engines count
    /// against the budget. A request that finds no idle engine and no room for a new one waits —
    /// without blocking a thread, in arrival order, cancellably, within `timeout` — until another
    /// request gives an engine back. A budget smaller than one engine makes every request throw
    /// `LocalLanguageModelError.kvCacheBudgetTooSmall` before any compute. The prefix cache
    /// (64 MiB) and the weights are outside this budget.
    public var kvCacheBudget: Int?

    /// Engines the default KV budget admits (`kvCacheBudget == nil`): enough to overlap a few
    /// requests; more concurrent requests than cores gain no throughput.
    public static let defaultKVCacheEngines = 4

    /// Describes a model in the GGUF file at `url`. Nothing is read until a session uses it.
    public init(url: URL, variant: Variant = .automatic, contextSize: Int = 2048, threads: Int = 2,
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
    }

    /// Describes a model in the GGUF file at `path`.
    public init(path: String, variant: Variant = .automatic, contextSize: Int = 2048, threads: Int = 2,
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

    /// The KV-cache bytes one engine of this model reserves (keys and values, every layer, every
    /// position of `contextSize`, at `kvCacheType`): the unit of `kvCacheBudget`. Reads the
    /// file's header (mapping the weights once, shared with later executors).
    /// - Throws: `LocalLanguageModelError.modelLoadFailed` for an unreadable or malformed file,
    ///   `.invalidConfiguration` when the size overflows.
    public func kvCacheBytesPerEngine() throws -> Int {
        let weights: Engine.Model
        do {
            weights = try ModelStore.shared.model(path: url.path)
        } catch {
            throw LocalLanguageModelError.modelLoadFailed(path: url.path, reason: error)
        }
        return try LocalRuntime.kvCacheBytes(config: weights.config, configuration: executorConfiguration)
    }
}
