import Engine
import Foundation
import Grammar
import LoomJSON
import LoomMetrics
import Provider

extension LocalLanguageModel.Executor {
    /// Everything that changes what an executor does, so that equal configurations are
    /// interchangeable: the file's identity (path, size, modification time — a file replaced on
    /// disk gets a new executor), the variant, context, KV type, threads, sampling defaults,
    /// grammar options, timeout, KV budget, speculation limit, metrics registry and prompt cache.
    public struct Configuration: Hashable, Sendable {
        /// The model file path.
        public var path: String
        /// File size in bytes when the configuration was made (-1 when unreadable).
        public var fileSize: Int64
        /// Modification time in nanoseconds when the configuration was made (-1 when unreadable).
        public var modificationTime: Int64
        /// The engine variant.
        public var variant: LocalLanguageModel.Variant
        /// KV positions per engine.
        public var contextSize: Int
        /// Kernel threads per engine.
        public var threads: Int
        /// KV cache element type.
        public var kvCacheType: KVCacheType
        /// Sampling defaults.
        public var sampling: SamplingDefaults
        /// Schema compilation options.
        public var grammar: JSONSchemaOptions
        /// Per-request deadline.
        public var timeout: Duration?
        /// Bytes of the shared KV block pool; nil for `LocalLanguageModel.defaultConcurrentSequences` full contexts.
        public var kvCacheBudget: Int?
        /// The most tokens one speculative proposal holds (0: off).
        public var speculationLimit: Int
        /// Where the runtime records its metrics (compared by identity); nil records nothing.
        public var metrics: MetricsRegistry?
        /// Where evaluated prompt blocks persist across processes; nil keeps them in memory only.
        public var promptCache: PromptCacheOptions?

        /// The configuration of `model`, reading the file's size and modification time now.
        public init(model: LocalLanguageModel) {
            path = model.url.path
            if let identity = try? ModelStore.FileIdentity(path: path) {
                fileSize = identity.size
                modificationTime = identity.modificationTime
            } else {
                fileSize = -1
                modificationTime = -1
            }
            variant = model.variant
            contextSize = model.contextSize
            threads = model.threads
            kvCacheType = model.kvCacheType
            sampling = model.sampling ?? SamplingDefaults()
            grammar = model.grammar
            timeout = model.timeout
            kvCacheBudget = model.kvCacheBudget
            speculationLimit = model.speculationLimit
            metrics = model.metrics
            promptCache = model.promptCache
        }

        public static func == (a: Configuration, b: Configuration) -> Bool {
            a.path == b.path && a.fileSize == b.fileSize && a.modificationTime == b.modificationTime
                && a.variant == b.variant && a.contextSize == b.contextSize && a.threads == b.threads
                && a.kvCacheType == b.kvCacheType && a.sampling == b.sampling && a.grammar == b.grammar
                && a.timeout == b.timeout && a.kvCacheBudget == b.kvCacheBudget
                && a.speculationLimit == b.speculationLimit && a.metrics === b.metrics && a.promptCache == b.promptCache
        }

        public func hash(into hasher: inout Hasher) {
            hasher.combine(path)
            hasher.combine(fileSize)
            hasher.combine(modificationTime)
            hasher.combine(variant)
            hasher.combine(contextSize)
            hasher.combine(threads)
            hasher.combine(kvCacheType)
            hasher.combine(sampling)
            hasher.combine(grammar)
            hasher.combine(timeout)
            hasher.combine(kvCacheBudget)
            hasher.combine(speculationLimit)
            hasher.combine(metrics.map(ObjectIdentifier.init))
            hasher.combine(promptCache)
        }
    }
}
