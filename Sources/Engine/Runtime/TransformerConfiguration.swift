/// How a `Transformer` is built: threads, batch size and context.
public struct TransformerConfiguration: Codable, Sendable, Equatable {
    /// Threads for kernels (the calling thread included).
    public var threads: Int
    /// Most tokens evaluated in one forward pass; longer inputs are split into passes.
    /// Buffers (activations and `maxBatch` rows of logits) are sized by it.
    public var maxBatch: Int
    /// Most positions a KV cache used with this transformer may hold; nil means the model's
    /// training context, capped at 4096 to keep default caches small.
    public var contextLength: Int?
    /// Element type of caches made by `makeCache()`.
    public var kvCacheType: KVCacheType

    /// - Parameters:
    ///   - threads: kernel threads (default 2).
    ///   - maxBatch: tokens per forward pass (default 64).
    ///   - contextLength: KV capacity (default: the model's, at most 4096).
    ///   - kvCacheType: `.f32` (exact, the default), `.f16` or `.q8_0` (heads a multiple of 32 values).
    public init(threads: Int = 2, maxBatch: Int = 64, contextLength: Int? = nil, kvCacheType: KVCacheType = .f32) {
        self.threads = threads
        self.maxBatch = maxBatch
        self.contextLength = contextLength
        self.kvCacheType = kvCacheType
    }
}
