import CTensor

/// Runs a model's forward pass: tokens at consecutive positions in, logits out, keys and values
/// appended to a `KVCache`.
///
/// The math is `../shared/tools/reference_forward.py` (and llama.cpp's graphs): embeddings →
/// N × the family's block (`TransformerFamily.block`, one file per architecture) → RMSNorm → LM
/// head. A batch of prompt tokens goes through each weight matrix once (matmul); a single decode
/// token uses the fused matvec path (`BlockPass`).
///
/// Not thread-safe: a transformer owns its activation buffers and thread pool, so one forward
/// pass runs at a time. Many transformers may share one `Model`.
public final class Transformer {
    /// The model being run.
    public let model: Model
    /// How this transformer was built.
    public let configuration: TransformerConfiguration
    /// Most positions a cache used with this transformer may hold.
    public let contextLength: Int
    /// The kernel threads.
    public let pool: ThreadPool

    let state: RunState
    let plan: DecodePlan
    /// The architecture's block.
    let family: any TransformerFamily.Type
    /// RoPE of global layers, then of local (sliding-window) layers.
    let rope: UnsafeMutablePointer<loom_rope_params>
    /// Attention geometry; `k`/`v`/`kv_type`/`window` are set per layer and cache.
    let attention: loom_attention_desc

    /// Builds a transformer for `model`, allocating every buffer the forward pass needs.
    public init(model: Model, configuration: TransformerConfiguration = TransformerConfiguration()) throws(EngineError) {
        let c = model.config
        let context = configuration.contextLength ?? min(c.contextLength, 4096)
        guard context > 0 else { throw .invalidConfiguration("context length \(context) must be positive") }
        guard configuration.maxBatch > 0 else { throw .invalidConfiguration("maxBatch \(configuration.maxBatch) must be positive") }
        try configuration.kvCacheType.validate(headDimension: c.headDimension)
        guard let family = ModelArchitectures.named(c.architecture) as? any TransformerFamily.Type else {
            throw .invalidConfiguration("architecture '\(c.architecture)' has no forward pass")
        }
        self.model = model
        self.configuration = configuration
        self.family = family
        contextLength = context
        pool = try ThreadPool(threads: configuration.threads)
        // LongRoPE: the short factors up to the original context, the long ones beyond (llama.cpp's choice).
        let w = model.weights
        var factors = w.ropeFrequencyFactors
        if let original = c.rope.originalContextLength {
            factors = context > original ? w.ropeLongFactors : w.ropeShortFactors
        }
        let layout = Int32(c.rope.style == .halfSplit ? LOOM_ROPE_NEOX.rawValue : LOOM_ROPE_ADJACENT.rawValue)
        rope = .allocate(capacity: 2)
        rope.initialize(to: loom_rope_params(n_dims: Int32(c.rope.dimensionCount), layout: layout,
                                             freq_base: Float(c.rope.base), freq_scale: Float(1 / c.rope.linearScale),
                                             freq_factors: factors))
        // Local layers: their own base, never position-scaled.
        (rope + 1).initialize(to: loom_rope_params(n_dims: Int32(c.rope.dimensionCount), layout: layout,
                                                   freq_base: Float(c.localRoPEBase), freq_scale: 1, freq_factors: factors))
        attention = loom_attention_desc(
            n_head: Int64(c.headCount), n_kv_head: Int64(c.kvHeadCount), head_dim: Int64(c.headDimension),
            kv_type: Int32(LOOM_TYPE_F32.rawValue), kv_stride: Int64(c.kvLength), k: nil, v: nil,
            scale: Float(c.attentionScale), block_table: nil, block_size: 0, window: 0)
        let maxColumns = max(c.embeddingLength, c.queryLength, c.feedForwardLength)
        state = RunState(config: c, maxBatch: configuration.maxBatch,
                         ropeTableFloats: Int(loom_rope_cache_floats(Int64(configuration.maxBatch), rope)),
                         attentionScratchFloats: Kernels.attentionScratchFloats(pool, attention, positions: context),
                         matmulScratchFloats: Kernels.matmulScratchFloats(pool, columns: maxColumns),
                         matvecScratchBytes: max(Kernels.matvecScratchBytes(pool, columns: maxColumns),
                                                             Int(loom_par_matmul_fused_scratch_bytes(pool.pool, Int64(maxColumns), Int64(configuration.maxBatch)))))
        plan = DecodePlan(weights: model.weights, state: state, config: c)
        // The RoPE kernels reject geometries they cannot hold (more than 2048 rotated dims); find
        // out now rather than mid-pass.
        guard loom_rope_cache_fill(state.ropeTable, 1, state.positions, rope) == 0 else {
            throw .invalidConfiguration("RoPE over \(c.rope.dimensionCount) dimensions is not supported")
        }
    }

    deinit {
        rope.deinitialize(count: 2)
        rope.deallocate()
    }

    /// A new empty KV cache sized for this transformer (`contextLength` positions).
    public func makeCache(type: KVCacheType? = nil) throws(EngineError) -> KVCache {
        let c = model.config
        let type = type ?? configuration.kvCacheType
        try type.validate(headDimension: c.headDimension)
        return try KVCache(type: type, layers: c.blockCount, kvLength: c.kvLength, capacity: contextLength)
    }

    /// Which logits a forward pass computes.
    public enum LogitRows: Sendable {
        /// Only the last token's (what decoding needs).
        case last
        /// Every token's, in batch order.
        case all
    }

    /// Evaluates `tokens` (at most `configuration.maxBatch`) at positions `cache.count...`,
    /// appends their keys and values to `cache`, and returns the requested logits rows
    /// (`rows × vocabularySize` floats).
    ///
    /// The returned buffer is borrowed: it stays valid until the next call on this transformer.
    public func forward(_ tokens: UnsafeBufferPointer<Int32>, cache: KVCache, logits rows: LogitRows = .last)
        throws(EngineError) -> UnsafeBufferPointer<Float>
    {
        let c = model.config
        let n = tokens.count
        guard n > 0 else { throw .emptyBatch }
        guard n <= configuration.maxBatch else { throw .batchTooLarge(count: n, maximum: configuration.maxBatch) }
        guard cache.layerCount == c.blockCount, cache.kvLength == c.kvLength else {
            throw .cacheMismatch("cache has \(cache.layerCount) layers × \(cache.kvLength), model \(c.blockCount) × \(c.kvLength)")
        }
        guard cache.capacity <= contextLength else {
            throw .cacheMismatch("cache capacity \(cache.capacity) exceeds this transformer's context \(contextLength)")
        }
        let start = cache.count
        guard start + n <= cache.capacity else { throw .contextFull(needed: start + n, capacity: cache.capacity) }
        for t in tokens where t < 0 || Int(t) >= c.vocabularySize {
            throw .tokenOutOfRange(id: Int(t), vocabularySize: c.vocabularySize)
        }

        let w = model.weights
        let s = state
        let dim = c.embeddingLength
        let eps = Float(c.normEpsilon)
        let t0 = loom_profile_active() != 0 ? loom_profile_now_ns() : 0
        defer { if t0 != 0 { loom_profile_record(LOOM_WORK_STEP, loom_profile_now_ns() - t0) } }
        for i in 0..<n { s.positions[i] = Int32(start + i) }
        embed(tokens.baseAddress!, count: n)

        let pass = makePass(path: n == 1 ? .decode : .prompt, rows: n, start: start, cache: cache, batch: nil)
        for l in 0..<plan.blockCount { family.block(pass, l) }
        cache.commit(count: start + n)

        // Final norm and LM head, only for the rows asked for.
        if n == 1 {
            loom_rmsnorm(s.xb, s.x, w.outputNorm, Int64(dim), eps)
            pool.labelled(LOOM_WORK_LM_HEAD) {
                loom_par_matvec_fused(pool.pool, plan.output, 1, Int64(dim), s.xb, s.matvecScratch)
            }
            softcapLogits(rows: 1)
            return UnsafeBufferPointer(start: s.logits, count: c.vocabularySize)
        }
        let first = rows == .all ? 0 : n - 1
        let count = n - first
        Kernels.rmsNorm(pool, s.x + first * dim, gain: w.outputNorm, out: s.xb, count: dim, rows: count, stride: dim,
                        epsilon: eps)
        pool.labelled(LOOM_WORK_LM_HEAD) {
            Kernels.matmul(pool, w.output, x: s.xb, ldx: dim, y: s.logits, ldy: c.vocabularySize, batch: count,
                           scratch: s.matmulScratch)
        }
        softcapLogits(rows: count)
        return UnsafeBufferPointer(start: s.logits, count: count * c.vocabularySize)
    }

    /// Dequantizes each token's embedding row into the residual stream (scaled when the family
    /// scales embeddings) and fills both RoPE tables for the positions in `state.positions`.
    func embed(_ tokens: UnsafePointer<Int32>, count n: Int) {
        let c = model.config, e = model.weights.tokenEmbedding, s = state
        let dim = c.embeddingLength
        for i in 0..<n {
            Kernels.dequantizeRow(e, Int(tokens[i]), destination: s.x + i * dim)
        }
        if c.embeddingScale != 1 { loom_scale(s.x, Float(c.embeddingScale), Int64(n * dim)) }
        // One cos/sin table (angles in float64) serves every layer's Q and K.
        let ropeOK = loom_rope_cache_fill(s.ropeTable, Int64(n), s.positions, rope)
        assert(ropeOK == 0, "RoPE geometry validated in init")
        let tableFloats = Int64(n) * Int64(c.rope.dimensionCount)
        let factor = Float(c.rope.attentionFactor)
        if factor != 1 { loom_scale(s.ropeTable, factor, tableFloats) }
        if !c.localLayers.isEmpty {
            _ = loom_rope_cache_fill(s.localRopeTable, Int64(n), s.positions, rope + 1)
            if factor != 1 { loom_scale(s.localRopeTable, factor, tableFloats) }
        }
    }

    /// `logits = cap · tanh(logits / cap)` over the first `rows` rows, when the file soft-caps.
    func softcapLogits(rows: Int) {
        let c = model.config
        guard c.finalLogitSoftcap > 0 else { return }
        // Row by row, so a row's arithmetic does not depend on how many share the pass.
        for r in 0..<rows {
            let row = state.logits + r * c.vocabularySize
            loom_softcap(row, row, Float(c.finalLogitSoftcap), Int64(c.vocabularySize))
        }
    }

    /// A pass over this transformer's buffers.
    func makePass(path: BlockPass.Path, rows n: Int, start: Int, cache: KVCache, localCache: KVCache? = nil,
                  batch: StepBatch?, blockSize: Int = 0) -> BlockPass
    {
        let c = model.config
        var d = attention
        d.kv_type = cache.type.kernelType
        d.block_size = Int64(blockSize)
        return BlockPass(path: path, n: n, start: start, state: state, plan: plan, weights: model.weights, pool: pool,
                         cache: cache, localCache: localCache, batch: batch, rope: UnsafePointer(rope), attention: d, maxPositions: contextLength,
                         dim: c.embeddingLength, qLen: c.queryLength, kvLen: c.kvLength, ff: c.feedForwardLength,
                         headDim: c.headDimension, heads: c.headCount, kvHeads: c.kvHeadCount, eps: Float(c.normEpsilon))
    }

    /// Evaluates one token at position `cache.count` and returns its logits (borrowed, valid until
    /// the next call). The decode step: allocates nothing.
    public func decode(_ token: Int32, cache: KVCache) throws(EngineError) -> UnsafeBufferPointer<Float> {
        var t = token
        return try withUnsafeMutablePointer(to: &t) { (p) throws(EngineError) -> UnsafeBufferPointer<Float> in
            try forward(UnsafeBufferPointer(start: p, count: 1), cache: cache)
        }
    }

    /// Evaluates any number of tokens (split into passes of at most `maxBatch`) and returns the
    /// last token's logits (borrowed, valid until the next call).
    public func evaluate(_ tokens: [Int32], cache: KVCache) throws(EngineError) -> UnsafeBufferPointer<Float> {
        guard !tokens.isEmpty else { throw .emptyBatch }
        let c = model.config
        guard cache.count + tokens.count <= cache.capacity else {
            throw .contextFull(needed: cache.count + tokens.count, capacity: cache.capacity)
        }
        for t in tokens where t < 0 || Int(t) >= c.vocabularySize {
            throw .tokenOutOfRange(id: Int(t), vocabularySize: c.vocabularySize)
        }
        var result = UnsafeBufferPointer<Float>(start: nil, count: 0)
        var failure: EngineError?
        tokens.withUnsafeBufferPointer { all in
            var at = 0
            while at < all.count {
                let end = min(at + configuration.maxBatch, all.count)
                do throws(EngineError) {
                    result = try forward(UnsafeBufferPointer(rebasing: all[at..<end]), cache: cache)
                } catch {
                    failure = error
                    return
                }
                at = end
            }
        }
        if let failure { throw failure }
        return result
    }

    /// Evaluates any number of tokens and hands every position's logits to `body`, in order:
    /// `body(i, row)` receives the prediction after `tokens[0...i]` (borrowed for the call).
    /// For scoring and reference comparisons; generation only needs `evaluate`.
    public func evaluateAll(_ tokens: [Int32], cache: KVCache,
                            _ body: (Int, UnsafeBufferPointer<Float>) throws -> Void) throws {
        guard !tokens.isEmpty else { throw EngineError.emptyBatch }
        guard cache.count + tokens.count <= cache.capacity else {
            throw EngineError.contextFull(needed: cache.count + tokens.count, capacity: cache.capacity)
        }
        let vocab = model.config.vocabularySize
        var at = 0
        while at < tokens.count {
            let end = min(at + configuration.maxBatch, tokens.count)
            let rows = try tokens[at..<end].withUnsafeBufferPointer { try forward($0, cache: cache, logits: .all) }
            for i in at..<end {
                try body(i, UnsafeBufferPointer(rebasing: rows[(i - at) * vocab ..< (i - at + 1) * vocab]))
            }
            at = end
        }
    }
}
