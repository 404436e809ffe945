import CTensor

/// One forward pass as the families' blocks see it: the steps a transformer block is made of
/// (norm, projections, RoPE, attention, residual adds), each run over the pass's rows by the
/// path that suits them, so a family states its block once for all three paths:
///
/// - `.decode`: one token of one sequence; products fused per `DecodePlan` (one pool dispatch
///   for Q/K/V, one for gate and up with their activation, one per output projection).
/// - `.prompt`: several tokens of one sequence; one matmul per weight matrix.
/// - `.step`: a scheduler step (`StepBatch`): fused products for the rows `0..<fusedRowCount`,
///   each long prompt segment multiplied on its own, attention per sequence over its blocks.
///   Fused rows are bit-identical to a `.decode` pass of the same token.
///
/// Built on the stack for each pass; its references are `unowned(unsafe)` because the
/// transformer that builds it holds every one of them for the whole pass, so a pass costs no
/// reference counting. Buffers are the `RunState`'s: `x` the residual stream, `xb` the
/// normalised input or a branch's output, `q`/`k`/`v`, `attention`, `gate`/`up`.
struct BlockPass {
    /// How the rows of the pass are multiplied.
    enum Path {
        case decode, prompt, step
    }

    /// A gated feed-forward's activation.
    enum Activation {
        /// SwiGLU: silu(gate) ⊙ up.
        case silu
        /// GeGLU: gelu(gate) ⊙ up, GELU in its tanh form.
        case gelu
    }

    let path: Path
    /// Rows in the pass.
    let n: Int
    /// First position (single-sequence paths).
    let start: Int
    unowned(unsafe) let state: RunState
    unowned(unsafe) let plan: DecodePlan
    unowned(unsafe) let weights: Weights
    unowned(unsafe) let pool: ThreadPool
    /// The sequence's cache, or the KV pool's storage in a step.
    unowned(unsafe) let cache: KVCache
    /// In a step on a model with sliding-window layers: the storage of the pool that holds the
    /// local layers (only their window); `cache` then holds the global layers only, and each
    /// layer is row `plan.kvSlots[l]` of its pool.
    unowned(unsafe) let localCache: KVCache?
    /// The step's rows (`.step` only).
    unowned(unsafe) let batch: StepBatch?
    /// Global and local RoPE parameters (two entries).
    let rope: UnsafePointer<loom_rope_params>
    /// Attention geometry with the cache's element type and block size; K/V and the window are
    /// set per layer.
    let attention: loom_attention_desc
    /// Largest position count a step's query sees (sizes the attention scratch).
    let maxPositions: Int
    let dim, qLen, kvLen, ff, headDim, heads, kvHeads: Int
    let eps: Float

    /// Block `l`'s tensors.
    @inline(__always) func weights(_ l: Int) -> BlockWeights { weights.blocks[l] }

    // MARK: - Steps

    /// `xb = RMSNorm(x) · gain` for every row.
    @inline(__always) func normalize(_ gain: UnsafePointer<Float>) {
        let s = state
        if path == .decode {
            loom_rmsnorm(s.xb, s.x, gain, Int64(dim), eps)
        } else {
            Kernels.rmsNorm(pool, s.x, gain: gain, out: s.xb, count: dim, rows: n, stride: dim, epsilon: eps)
        }
    }

    /// `q, k, v = Wq·xb, Wk·xb, Wv·xb` (plus the biases when the block has them).
    func projectQKV(_ l: Int) {
        let s = state
        switch path {
        case .decode:
            loom_par_matvec_fused(pool.pool, plan.part(l, .query), 3, Int64(dim), s.xb, s.matvecScratch)
        case .prompt:
            projectQKV(l, rows: 0, count: n)
        case .step:
            fusedRows(plan.part(l, .query), parts: 3, columns: dim, x: s.xb, ldx: dim)
            forEachPromptSegment { r0, count in projectQKV(l, rows: r0, count: count) }
        }
    }

    private func projectQKV(_ l: Int, rows r0: Int, count: Int) {
        let s = state, b = weights(l)
        Kernels.matmul(pool, b.query, x: s.xb + r0 * dim, ldx: dim, y: s.q + r0 * qLen, ldy: qLen, batch: count,
                       scratch: s.matmulScratch)
        Kernels.matmul(pool, b.key, x: s.xb + r0 * dim, ldx: dim, y: s.k + r0 * kvLen, ldy: kvLen, batch: count,
                       scratch: s.matmulScratch)
        Kernels.matmul(pool, b.value, x: s.xb + r0 * dim, ldx: dim, y: s.v + r0 * kvLen, ldy: kvLen, batch: count,
                       scratch: s.matmulScratch)
        if let qb = b.queryBias, let kb = b.keyBias, let vb = b.valueBias {
            for i in r0..<r0 + count {
                loom_add(s.q + i * qLen, s.q + i * qLen, qb, Int64(qLen))
                loom_add(s.k + i * kvLen, s.k + i * kvLen, kb, Int64(kvLen))
                loom_add(s.v + i * kvLen, s.v + i * kvLen, vb, Int64(kvLen))
            }
        }
    }

    /// RMSNorm over each head of `q` and of `k`, with one gain per head component.
    func normalizeHeads(query: UnsafePointer<Float>, key: UnsafePointer<Float>) {
        let s = state
        if path == .decode {
            for h in 0..<heads { loom_rmsnorm(s.q + h * headDim, s.q + h * headDim, query, Int64(headDim), eps) }
            for h in 0..<kvHeads { loom_rmsnorm(s.k + h * headDim, s.k + h * headDim, key, Int64(headDim), eps) }
        } else {
            Kernels.rmsNorm(pool, s.q, gain: query, out: s.q, count: headDim, rows: n * heads, stride: headDim, epsilon: eps)
            Kernels.rmsNorm(pool, s.k, gain: key, out: s.k, count: headDim, rows: n * kvHeads, stride: headDim, epsilon: eps)
        }
    }

    /// Rotates `q` and `k` by their positions, with block `l`'s RoPE (local or global).
    @inline(__always) func rotate(_ l: Int) {
        let s = state
        let local = plan.windows[l] > 0
        let table = local ? s.localRopeTable : s.ropeTable, params = local ? rope + 1 : rope
        // Return codes only flag geometry errors, ruled out when the transformer was built.
        _ = loom_rope_cached(s.q, Int64(n), Int64(heads), Int64(headDim), Int64(qLen), table, params)
        _ = loom_rope_cached(s.k, Int64(n), Int64(kvHeads), Int64(headDim), Int64(kvLen), table, params)
    }

    /// Stores the rows' keys and values in block `l`'s cache and writes `attention`: each row's
    /// causal attention over its own sequence (the last W positions in a local block).
    func attend(_ l: Int) {
        let s = state
        var d = attention
        d.window = plan.windows[l]
        if let batch {
            // Split pools: a local layer's rows and tables are the local pool's.
            let split = localCache != nil, local = split && d.window > 0
            let store = local ? localCache! : cache, layer = split ? plan.kvSlots[l] : l
            let rows = local ? batch.localKVRows : batch.kvRows
            d.k = store.keys(layer: layer)
            d.v = store.values(layer: layer)
            for i in 0..<n {
                store.store(layer: layer, position: Int(rows[i]), key: s.k + i * kvLen, value: s.v + i * kvLen)
            }
            let rc = loom_par_attention_batch(pool.pool, &d, local ? batch.localSegments : batch.segments,
                                              Int32(batch.segmentCount), Int32(batch.untiledSegmentCount), s.q, Int64(qLen),
                                              s.attention, Int64(qLen), Int64(maxPositions), s.attentionScratch)
            assert(rc == 0, "attention geometry validated when the transformer was built")
        } else {
            d.k = cache.keys(layer: l)
            d.v = cache.values(layer: l)
            for i in 0..<n {
                cache.store(layer: l, position: start + i, key: s.k + i * kvLen, value: s.v + i * kvLen)
            }
            Kernels.attention(pool, &d, q: s.q, qStride: qLen, out: s.attention, outStride: qLen, tokens: n, start: start,
                              scratch: s.attentionScratch)
        }
    }

    /// `x += Wo·attention`, or with a post-norm `x += RMSNorm(Wo·attention) · postNorm`.
    func addAttentionOutput(_ l: Int, postNorm: UnsafePointer<Float>? = nil) {
        let s = state
        let o = weights(l).attentionOutput
        switch path {
        case .decode:
            // The plan's part accumulates into x, or writes xb when the block has a post-norm.
            loom_par_matvec_fused(pool.pool, plan.part(l, .attentionOutput), 1, Int64(qLen), s.attention, s.matvecScratch)
        case .prompt:
            Kernels.matmul(pool, o, x: s.attention, ldx: qLen, y: s.xb, ldy: dim, batch: n, scratch: s.matmulScratch)
            if postNorm == nil { loom_add(s.x, s.x, s.xb, Int64(n * dim)) }
        case .step:
            fusedRows(plan.part(l, .attentionOutput), parts: 1, columns: qLen, x: s.attention, ldx: qLen)
            forEachPromptSegment { r0, count in
                Kernels.matmul(pool, o, x: s.attention + r0 * qLen, ldx: qLen, y: s.xb + r0 * dim, ldy: dim, batch: count,
                               scratch: s.matmulScratch)
                if postNorm == nil { loom_add(s.x + r0 * dim, s.x + r0 * dim, s.xb + r0 * dim, Int64(count * dim)) }
            }
        }
        if let postNorm { addNormalizedBranch(postNorm) }
    }

    /// `x += Wdown·(act(Wgate·xb) ⊙ Wup·xb)`, or with a post-norm the branch normalised first.
    func addFeedForward(_ l: Int, _ activation: Activation, postNorm: UnsafePointer<Float>? = nil) {
        let s = state, p = plan
        switch path {
        case .decode:
            switch activation {
            case .silu:
                _ = loom_par_matvec_swiglu(pool.pool, p.part(l, .gate), p.part(l, .up), Int64(dim), s.xb, s.gate,
                                           s.matvecScratch)
            case .gelu:
                loom_par_matvec_fused(pool.pool, p.part(l, .gate), 2, Int64(dim), s.xb, s.matvecScratch)
                loom_geglu(s.gate, s.gate, s.up, Int64(ff))
            }
            loom_par_matvec_fused(pool.pool, p.part(l, .down), 1, Int64(ff), s.gate, s.matvecScratch)
        case .prompt:
            feedForward(l, activation, rows: 0, count: n, residual: postNorm == nil)
        case .step:
            let fused = batch!.fusedRowCount
            switch activation {
            case .silu:
                if fused > 0 {
                    let gate = p.part(l, .gate)
                    _ = loom_par_matmul_swiglu(pool.pool, gate, p.part(l, .up), Int64(dim), s.xb, Int64(dim), Int64(fused),
                                               gate.pointee.y, gate.pointee.ldy, s.matvecScratch)
                }
            case .gelu:
                fusedRows(p.part(l, .gate), parts: 2, columns: dim, x: s.xb, ldx: dim)
                // Row by row, as the decode path does, so a fused row's arithmetic is the same.
                for r in 0..<fused { loom_geglu(s.gate + r * ff, s.gate + r * ff, s.up + r * ff, Int64(ff)) }
            }
            fusedRows(p.part(l, .down), parts: 1, columns: ff, x: s.gate, ldx: ff)
            forEachPromptSegment { r0, count in feedForward(l, activation, rows: r0, count: count, residual: postNorm == nil) }
        }
        if let postNorm { addNormalizedBranch(postNorm) }
    }

    private func feedForward(_ l: Int, _ activation: Activation, rows r0: Int, count: Int, residual: Bool) {
        let s = state, b = weights(l)
        let h = s.xb + r0 * dim, gate = s.gate + r0 * ff, up = s.up + r0 * ff
        Kernels.matmul(pool, b.ffnGate, x: h, ldx: dim, y: gate, ldy: ff, batch: count, scratch: s.matmulScratch)
        Kernels.matmul(pool, b.ffnUp, x: h, ldx: dim, y: up, ldy: ff, batch: count, scratch: s.matmulScratch)
        switch activation {
        case .silu: Kernels.swiglu(pool, gate, gate: gate, up: up, count: count * ff)
        case .gelu: loom_par_geglu(pool.pool, gate, gate, up, Int64(count * ff))
        }
        Kernels.matmul(pool, b.ffnDown, x: gate, ldx: ff, y: h, ldy: dim, batch: count, scratch: s.matmulScratch)
        if residual { loom_add(s.x + r0 * dim, s.x + r0 * dim, h, Int64(count * dim)) }
    }

    /// `x += RMSNorm(xb) · gain` for every row: a branch output with a post-norm joins the stream.
    private func addNormalizedBranch(_ gain: UnsafePointer<Float>) {
        let s = state
        if path == .decode {
            loom_rmsnorm(s.xb, s.xb, gain, Int64(dim), eps)
        } else {
            Kernels.rmsNorm(pool, s.xb, gain: gain, out: s.xb, count: dim, rows: n, stride: dim, epsilon: eps)
        }
        loom_add(s.x, s.x, s.xb, Int64(n * dim))
    }

    // MARK: - Step rows

    /// Calls `body(firstRow, rowCount)` for each prompt-path segment of the step.
    @inline(__always)
    private func forEachPromptSegment(_ body: (Int, Int) -> Void) {
        guard let batch else { return }
        for i in batch.fusedSegmentCount..<batch.segmentCount {
            let seg = batch.segments[i]
            body(Int(seg.row), Int(seg.n_tokens))
        }
    }

    /// The decode step's fused products of `count` consecutive plan parts for the step's fused
    /// rows of `x`, row `r` of each part's output at `y + r * ldy`.
    @inline(__always)
    private func fusedRows(_ parts: UnsafePointer<loom_matvec_part>, parts count: Int, columns: Int,
                           x: UnsafePointer<Float>, ldx: Int) {
        guard let batch, batch.fusedRowCount > 0 else { return }
        loom_par_matmul_fused(pool.pool, parts, Int32(count), Int64(columns), x, Int64(ldx), Int64(batch.fusedRowCount),
                              state.matvecScratch)
    }
}

/// A family's transformer block, stated top to bottom over `BlockPass`'s steps. The transformer
/// runs `block` for each layer of every pass, whatever the path.
protocol TransformerFamily: ModelArchitecture {
    /// Block `l` of pass `p`: reads `x` (the residual stream of every row) and adds both branches to it.
    static func block(_ p: BlockPass, _ l: Int)
}
