import CTensor

/// Runs a model's forward pass: tokens at consecutive positions in, logits out, keys and values
/// appended to a `KVCache`.
///
/// The math is `../shared/tools/reference_forward.py` (and llama.cpp's llama/qwen2 graphs):
/// embeddings → N × (RMSNorm, Q/K/V (+bias), RoPE, causal GQA attention, output projection,
/// residual, RMSNorm, SwiGLU FFN, residual) → RMSNorm → LM head. A batch of prompt tokens goes
/// through each weight matrix once (matmul); a single decode token uses the matvec path.
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
    var rope: loom_rope_params
    /// Attention geometry; `k`/`v`/`kv_type` are set per layer and cache.
    var attention: loom_attention_desc

    /// Builds a transformer for `model`, allocating every buffer the forward pass needs.
    public init(model: Model, configuration: TransformerConfiguration = TransformerConfiguration()) throws(EngineError) {
        let c = model.config
        let context = configuration.contextLength ?? min(c.contextLength, 4096)
        guard context > 0 else { throw .invalidConfiguration("context length \(context) must be positive") }
        guard configuration.maxBatch > 0 else { throw .invalidConfiguration("maxBatch \(configuration.maxBatch) must be positive") }
        self.model = model
        self.configuration = configuration
        contextLength = context
        pool = try ThreadPool(threads: configuration.threads)
        rope = loom_rope_params(
            n_dims: Int32(c.rope.dimensionCount),
            layout: Int32(c.rope.style == .halfSplit ? LOOM_ROPE_NEOX.rawValue : LOOM_ROPE_ADJACENT.rawValue),
            freq_base: Float(c.rope.base), freq_scale: Float(1 / c.rope.linearScale),
            freq_factors: model.weights.ropeFrequencyFactors)
        attention = loom_attention_desc(
            n_head: Int64(c.headCount), n_kv_head: Int64(c.kvHeadCount), head_dim: Int64(c.headDimension),
            kv_type: Int32(LOOM_TYPE_F32.rawValue), kv_stride: Int64(c.kvLength), k: nil, v: nil,
            scale: 1 / Float(c.headDimension).squareRoot(), block_table: nil, block_size: 0)
        let maxColumns = max(c.embeddingLength, c.queryLength, c.feedForwardLength)
        state = RunState(config: c, maxBatch: configuration.maxBatch,
                         ropeTableFloats: Int(loom_rope_cache_floats(Int64(configuration.maxBatch), &rope)),
                         attentionScratchFloats: Kernels.attentionScratchFloats(pool, attention, positions: context),
                         matmulScratchFloats: Kernels.matmulScratchFloats(pool, columns: maxColumns),
                         matvecScratchBytes: max(Kernels.matvecScratchBytes(pool, columns: maxColumns),
                                                             Int(loom_par_matmul_fused_scratch_bytes(pool.pool, Int64(maxColumns), Int64(configuration.maxBatch)))))
        plan = DecodePlan(weights: model.weights, state: state, config: c)
        // The RoPE kernels reject geometries they cannot hold (more than 2048 rotated dims); find
        // out now rather than mid-pass.
        guard loom_rope_cache_fill(state.ropeTable, 1, state.positions, &rope) == 0 else {
            throw .invalidConfiguration("RoPE over \(c.rope.dimensionCount) dimensions is not supported")
        }
    }

    /// A new empty KV cache sized for this transformer (`contextLength` positions).
    public func makeCache(type: KVCacheType? = nil) throws(EngineError) -> KVCache {
        let c = model.config
        return try KVCache(type: type ?? configuration.kvCacheType, layers: c.blockCount, kvLength: c.kvLength,
                           capacity: contextLength)
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
        let dim = c.embeddingLength, qLen = c.queryLength, kvLen = c.kvLength, ff = c.feedForwardLength
        let hd = c.headDimension
        let eps = Float(c.normEpsilon)

        // Embeddings: dequantize each token's row into the residual stream.
        for i in 0..<n {
            Kernels.dequantizeRow(type: w.tokenEmbedding.type, source: w.tokenEmbedding.row(Int(tokens[i])),
                                  destination: s.x + i * dim, count: dim)
            s.positions[i] = Int32(start + i)
        }
        // One cos/sin table (angles in float64) serves every layer's Q and K.
        let ropeOK = loom_rope_cache_fill(s.ropeTable, Int64(n), s.positions, &rope)
        assert(ropeOK == 0, "RoPE geometry validated in init")
        attention.kv_type = Int32(cache.type == .f16 ? LOOM_TYPE_F16.rawValue : LOOM_TYPE_F32.rawValue)

        if n == 1 {
            decodeBlocks(cache: cache, start: start)
            cache.commit(count: start + 1)
            loom_rmsnorm(s.xb, s.x, w.outputNorm, Int64(dim), eps)
            loom_par_matvec_fused(pool.pool, plan.output, 1, Int64(dim), s.xb, s.matvecScratch)
            return UnsafeBufferPointer(start: s.logits, count: c.vocabularySize)
        }
        for l in 0..<w.blocks.count {
            let b = w.blocks[l]
            // Attention.
            Kernels.rmsNorm(pool, s.x, gain: b.attentionNorm, out: s.xb, count: dim, rows: n, stride: dim, epsilon: eps)
            Kernels.matmul(pool, b.query, x: s.xb, ldx: dim, y: s.q, ldy: qLen, batch: n, scratch: s.matmulScratch)
            Kernels.matmul(pool, b.key, x: s.xb, ldx: dim, y: s.k, ldy: kvLen, batch: n, scratch: s.matmulScratch)
            Kernels.matmul(pool, b.value, x: s.xb, ldx: dim, y: s.v, ldy: kvLen, batch: n, scratch: s.matmulScratch)
            if let qb = b.queryBias, let kb = b.keyBias, let vb = b.valueBias {
                for i in 0..<n {
                    loom_add(s.q + i * qLen, s.q + i * qLen, qb, Int64(qLen))
                    loom_add(s.k + i * kvLen, s.k + i * kvLen, kb, Int64(kvLen))
                    loom_add(s.v + i * kvLen, s.v + i * kvLen, vb, Int64(kvLen))
                }
            }
            // Return codes only flag geometry errors, ruled out in init.
            _ = loom_rope_cached(s.q, Int64(n), Int64(c.headCount), Int64(hd), Int64(qLen), s.ropeTable, &rope)
            _ = loom_rope_cached(s.k, Int64(n), Int64(c.kvHeadCount), Int64(hd), Int64(kvLen), s.ropeTable, &rope)
            for i in 0..<n {
                cache.store(layer: l, position: start + i, key: s.k + i * kvLen, value: s.v + i * kvLen)
            }
            attention.k = cache.keys(layer: l)
            attention.v = cache.values(layer: l)
            Kernels.attention(pool, &attention, q: s.q, qStride: qLen, out: s.attention, outStride: qLen, tokens: n,
                              start: start, scratch: s.attentionScratch)
            Kernels.matmul(pool, b.attentionOutput, x: s.attention, ldx: qLen, y: s.xb, ldy: dim, batch: n,
                           scratch: s.matmulScratch)
            loom_add(s.x, s.x, s.xb, Int64(n * dim))

            // Feed-forward: down(silu(gate(h)) * up(h)).
            Kernels.rmsNorm(pool, s.x, gain: b.ffnNorm, out: s.xb, count: dim, rows: n, stride: dim, epsilon: eps)
            Kernels.matmul(pool, b.ffnGate, x: s.xb, ldx: dim, y: s.gate, ldy: ff, batch: n, scratch: s.matmulScratch)
            Kernels.matmul(pool, b.ffnUp, x: s.xb, ldx: dim, y: s.up, ldy: ff, batch: n, scratch: s.matmulScratch)
            Kernels.swiglu(pool, s.gate, gate: s.gate, up: s.up, count: n * ff)
            Kernels.matmul(pool, b.ffnDown, x: s.gate, ldx: ff, y: s.xb, ldy: dim, batch: n, scratch: s.matmulScratch)
            loom_add(s.x, s.x, s.xb, Int64(n * dim))
        }
        cache.commit(count: start + n)

        // Final norm and LM head, only for the rows asked for.
        let first = rows == .all ? 0 : n - 1
        let count = n - first
        Kernels.rmsNorm(pool, s.x + first * dim, gain: w.outputNorm, out: s.xb, count: dim, rows: count, stride: dim,
                        epsilon: eps)
        Kernels.matmul(pool, w.output, x: s.xb, ldx: dim, y: s.logits, ldy: c.vocabularySize, batch: count,
                       scratch: s.matmulScratch)
        return UnsafeBufferPointer(start: s.logits, count: count * c.vocabularySize)
    }

    /// The blocks for one token (already embedded in `state.x`, its RoPE table filled): the
    /// batched path's math with the products fused as `DecodePlan` describes, five pool
    /// dispatches per block instead of eight, and bit-identical results.
    private func decodeBlocks(cache: KVCache, start: Int) {
        let c = model.config
        let s = state, p = plan, pool = pool.pool
        let dim = Int64(c.embeddingLength), qLen = Int64(c.queryLength), kvLen = Int64(c.kvLength)
        let ff = Int64(c.feedForwardLength), hd = Int64(c.headDimension)
        let heads = Int64(c.headCount), kvHeads = Int64(c.kvHeadCount)
        let eps = Float(c.normEpsilon)
        for l in 0..<p.blockCount {
            loom_rmsnorm(s.xb, s.x, p.attentionNorms[l], dim, eps)
            loom_par_matvec_fused(pool, p.part(l, .query), 3, dim, s.xb, s.matvecScratch)
            _ = loom_rope_cached(s.q, 1, heads, hd, qLen, s.ropeTable, &rope)
            _ = loom_rope_cached(s.k, 1, kvHeads, hd, kvLen, s.ropeTable, &rope)
            cache.store(layer: l, position: start, key: s.k, value: s.v)
            attention.k = cache.keys(layer: l)
            attention.v = cache.values(layer: l)
            Kernels.attention(self.pool, &attention, q: s.q, qStride: Int(qLen), out: s.attention, outStride: Int(qLen),
                              tokens: 1, start: start, scratch: s.attentionScratch)
            loom_par_matvec_fused(pool, p.part(l, .attentionOutput), 1, qLen, s.attention, s.matvecScratch)

            loom_rmsnorm(s.xb, s.x, p.ffnNorms[l], dim, eps)
            _ = loom_par_matvec_swiglu(pool, p.part(l, .gate), p.part(l, .up), dim, s.xb, s.gate, s.matvecScratch)
            loom_par_matvec_fused(pool, p.part(l, .down), 1, ff, s.gate, s.matvecScratch)
        }
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
