import CTensor

extension Transformer {
    /// Evaluates a scheduler step: every row of `batch` at its sequence's position, keys and
    /// values stored into `pool`'s rows, attention per sequence over its own blocks, and the
    /// logits of the rows `batch` asks for (`logitCount × vocabularySize` floats, in request
    /// order; borrowed until the next call on this transformer).
    ///
    /// The math is `forward(_:cache:)`'s. Fused segments (rows `0..<fusedRowCount`) go through
    /// the decode step's fused integer products, whose rows are bit-identical to a one-row pass;
    /// each prompt-path segment is multiplied on its own as a prompt batch. Logits always come
    /// from the fused LM head. So a row's result depends on its own sequence only.
    ///
    /// With `localPool`, local (sliding-window) layers keep their keys and values there, at the
    /// rows `batch.localKVRows` and tables `batch.localSegments` say, and `pool` holds the
    /// global layers only.
    func forward(batch: StepBatch, pool kv: KVBlockPool, localPool: KVBlockPool? = nil) throws(EngineError)
        -> UnsafeBufferPointer<Float>
    {
        let c = model.config
        let n = batch.rowCount
        guard n > 0 else { throw .emptyBatch }
        guard n <= configuration.maxBatch, batch.logitCount <= configuration.maxBatch else {
            throw .batchTooLarge(count: n, maximum: configuration.maxBatch)
        }
        let localLayers = localPool == nil ? 0 : c.localLayerCount
        guard kv.storage.layerCount == c.blockCount - localLayers, kv.storage.kvLength == c.kvLength,
              (localPool?.storage.layerCount ?? 0) == localLayers, localPool.map({ $0.storage.kvLength == c.kvLength }) ?? true,
              localPool.map({ $0.blockSize == kv.blockSize && $0.type == kv.type }) ?? true
        else {
            throw .cacheMismatch("pool has \(kv.storage.layerCount) layers × \(kv.storage.kvLength), model \(c.blockCount) × \(c.kvLength)")
        }
        for i in 0..<n where batch.tokens[i] < 0 || Int(batch.tokens[i]) >= c.vocabularySize {
            throw .tokenOutOfRange(id: Int(batch.tokens[i]), vocabularySize: c.vocabularySize)
        }
        for i in 0..<batch.segmentCount {
            let s = batch.segments[i]
            guard s.pos0 + s.n_tokens <= Int64(contextLength) else {
                throw .contextFull(needed: Int(s.pos0 + s.n_tokens), capacity: contextLength)
            }
        }

        let w = model.weights, s = state
        let dim = c.embeddingLength
        let t0 = loom_profile_active() != 0 ? loom_profile_now_ns() : 0
        defer { if t0 != 0 { loom_profile_record(LOOM_WORK_STEP, loom_profile_now_ns() - t0) } }
        for i in 0..<n { s.positions[i] = batch.positions[i] }
        embed(batch.tokens, count: n)

        let pass = makePass(path: .step, rows: n, start: 0, cache: kv.storage, localCache: localPool?.storage, batch: batch,
                            blockSize: kv.blockSize)
        for l in 0..<plan.blockCount { family.block(pass, l) }

        // Final norm of the requested rows, gathered in order, then the fused LM head.
        let rows = batch.logitCount
        for i in 0..<rows {
            let r = Int(batch.logitRows[i])
            loom_rmsnorm(s.xb + i * dim, s.x + r * dim, w.outputNorm, Int64(dim), Float(c.normEpsilon))
        }
        if rows > 0 {
            pool.labelled(LOOM_WORK_LM_HEAD) {
                loom_par_matmul_fused(pool.pool, plan.output, 1, Int64(dim), s.xb, Int64(dim), Int64(rows), s.matvecScratch)
            }
        }
        softcapLogits(rows: rows)
        return UnsafeBufferPointer(start: s.logits, count: rows * c.vocabularySize)
    }
}
