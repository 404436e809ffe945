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
    func forward(batch: StepBatch, pool kv: KVBlockPool) throws(EngineError) -> UnsafeBufferPointer<Float> {
        let c = model.config
        let n = batch.rowCount
        guard n > 0 else { throw .emptyBatch }
        guard n <= configuration.maxBatch, batch.logitCount <= configuration.maxBatch else {
            throw .batchTooLarge(count: n, maximum: configuration.maxBatch)
        }
        guard kv.storage.layerCount == c.blockCount, kv.storage.kvLength == c.kvLength else {
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

        let w = model.weights, s = state, p = plan
        let dim = c.embeddingLength, qLen = c.queryLength, kvLen = c.kvLength, ff = c.feedForwardLength
        let eps = Float(c.normEpsilon)
        let fused = batch.fusedRowCount

        for i in 0..<n {
            Kernels.dequantizeRow(type: w.tokenEmbedding.type, source: w.tokenEmbedding.row(Int(batch.tokens[i])),
                                  destination: s.x + i * dim, count: dim)
            s.positions[i] = batch.positions[i]
        }
        let ropeOK = loom_rope_cache_fill(s.ropeTable, Int64(n), s.positions, &rope)
        assert(ropeOK == 0, "RoPE geometry validated in init")
        var desc = attention
        desc.kv_type = Int32(kv.type == .f16 ? LOOM_TYPE_F16.rawValue : LOOM_TYPE_F32.rawValue)
        desc.block_size = Int64(kv.blockSize)

        for l in 0..<w.blocks.count {
            let b = w.blocks[l]
            Kernels.rmsNorm(pool, s.x, gain: b.attentionNorm, out: s.xb, count: dim, rows: n, stride: dim, epsilon: eps)
            fusedRows(p.part(l, .query), parts: 3, columns: dim, x: s.xb, ldx: dim, rows: fused)
            forEachPromptSegment(batch) { r0, count in
                Kernels.matmul(pool, b.query, x: s.xb + r0 * dim, ldx: dim, y: s.q + r0 * qLen, ldy: qLen, batch: count,
                               scratch: s.matmulScratch)
                Kernels.matmul(pool, b.key, x: s.xb + r0 * dim, ldx: dim, y: s.k + r0 * kvLen, ldy: kvLen, batch: count,
                               scratch: s.matmulScratch)
                Kernels.matmul(pool, b.value, x: s.xb + r0 * dim, ldx: dim, y: s.v + r0 * kvLen, ldy: kvLen,
                               batch: count, scratch: s.matmulScratch)
                if let qb = b.queryBias, let kb = b.keyBias, let vb = b.valueBias {
                    for i in r0..<r0 + count {
                        loom_add(s.q + i * qLen, s.q + i * qLen, qb, Int64(qLen))
                        loom_add(s.k + i * kvLen, s.k + i * kvLen, kb, Int64(kvLen))
                        loom_add(s.v + i * kvLen, s.v + i * kvLen, vb, Int64(kvLen))
                    }
                }
            }
            _ = loom_rope_cached(s.q, Int64(n), Int64(c.headCount), Int64(c.headDimension), Int64(qLen), s.ropeTable, &rope)
            _ = loom_rope_cached(s.k, Int64(n), Int64(c.kvHeadCount), Int64(c.headDimension), Int64(kvLen), s.ropeTable,
                                 &rope)
            for i in 0..<n {
                kv.storage.store(layer: l, position: Int(batch.kvRows[i]), key: s.k + i * kvLen, value: s.v + i * kvLen)
            }
            desc.k = kv.storage.keys(layer: l)
            desc.v = kv.storage.values(layer: l)
            let rc = loom_par_attention_batch(pool.pool, &desc, batch.segments, Int32(batch.segmentCount), s.q,
                                              Int64(qLen), s.attention, Int64(qLen), Int64(contextLength),
                                              s.attentionScratch)
            assert(rc == 0, "attention geometry validated when the transformer was built")
            fusedRows(p.part(l, .attentionOutput), parts: 1, columns: qLen, x: s.attention, ldx: qLen, rows: fused)
            forEachPromptSegment(batch) { r0, count in
                Kernels.matmul(pool, b.attentionOutput, x: s.attention + r0 * qLen, ldx: qLen, y: s.xb + r0 * dim,
                               ldy: dim, batch: count, scratch: s.matmulScratch)
                loom_add(s.x + r0 * dim, s.x + r0 * dim, s.xb + r0 * dim, Int64(count * dim))
            }

            Kernels.rmsNorm(pool, s.x, gain: b.ffnNorm, out: s.xb, count: dim, rows: n, stride: dim, epsilon: eps)
            fusedSwiGLU(gate: p.part(l, .gate), up: p.part(l, .up), columns: dim, x: s.xb, ldx: dim, rows: fused)
            fusedRows(p.part(l, .down), parts: 1, columns: ff, x: s.gate, ldx: ff, rows: fused)
            forEachPromptSegment(batch) { r0, count in
                Kernels.matmul(pool, b.ffnGate, x: s.xb + r0 * dim, ldx: dim, y: s.gate + r0 * ff, ldy: ff, batch: count,
                               scratch: s.matmulScratch)
                Kernels.matmul(pool, b.ffnUp, x: s.xb + r0 * dim, ldx: dim, y: s.up + r0 * ff, ldy: ff, batch: count,
                               scratch: s.matmulScratch)
                Kernels.swiglu(pool, s.gate + r0 * ff, gate: s.gate + r0 * ff, up: s.up + r0 * ff, count: count * ff)
                Kernels.matmul(pool, b.ffnDown, x: s.gate + r0 * ff, ldx: ff, y: s.xb + r0 * dim, ldy: dim,
                               batch: count, scratch: s.matmulScratch)
                loom_add(s.x + r0 * dim, s.x + r0 * dim, s.xb + r0 * dim, Int64(count * dim))
            }
        }

        // Final norm of the requested rows, gathered in order, then the fused LM head.
        let rows = batch.logitCount
        for i in 0..<rows {
            let r = Int(batch.logitRows[i])
            loom_rmsnorm(s.xb + i * dim, s.x + r * dim, w.outputNorm, Int64(dim), eps)
        }
        fusedRows(p.output, parts: 1, columns: dim, x: s.xb, ldx: dim, rows: rows)
        return UnsafeBufferPointer(start: s.logits, count: rows * c.vocabularySize)
    }

    /// Calls `body(firstRow, rowCount)` for each prompt-path segment of `batch`.
    @inline(__always)
    private func forEachPromptSegment(_ batch: StepBatch, _ body: (Int, Int) -> Void) {
        for i in 0..<batch.segmentCount where batch.promptPath[i] {
            let seg = batch.segments[i]
            body(Int(seg.row), Int(seg.n_tokens))
        }
    }

    /// The decode step's fused products of `parts` consecutive plan parts for input rows
    /// `0..<rows` of `x`, row `r` of each part's output at `y + r * ldy`.
    @inline(__always)
    private func fusedRows(_ parts: UnsafePointer<loom_matvec_part>, parts count: Int, columns: Int,
                           x: UnsafePointer<Float>, ldx: Int, rows: Int) {
        guard rows > 0 else { return }
        loom_par_matmul_fused(pool.pool, parts, Int32(count), Int64(columns), x, Int64(ldx), Int64(rows),
                              state.matvecScratch)
    }

    /// The decode step's fused SwiGLU for input rows `0..<rows`: the gate part's output rows
    /// receive `silu(gate · x) * (up · x)`.
    @inline(__always)
    private func fusedSwiGLU(gate: UnsafePointer<loom_matvec_part>, up: UnsafePointer<loom_matvec_part>, columns: Int,
                             x: UnsafePointer<Float>, ldx: Int, rows: Int) {
        guard rows > 0 else { return }
        _ = loom_par_matmul_swiglu(pool.pool, gate, up, Int64(columns), x, Int64(ldx), Int64(rows), gate.pointee.y,
                                   gate.pointee.ldy, state.matvecScratch)
    }
}
