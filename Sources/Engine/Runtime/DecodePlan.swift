import CTensor

/// The fused products of a one-token forward pass, described once when a transformer is built:
/// per block, Q/K/V (with their biases) as one dispatch, the attention output projection added
/// into the residual stream, gate and up finished by SwiGLU in one dispatch, and the down
/// projection added into the residual stream; then the LM head. A block with post-branch norms
/// (gemma3) has its output and down projections write `xb` instead, to be normalised before the
/// add. Also each block's attention window (0: global).
///
/// Descriptors point at the weights and at the `RunState` buffers, which live as long as the
/// transformer, so a decode step only passes pointers into this arena: no allocation, no
/// per-token setup.
final class DecodePlan {
    /// Parts per block, in `Part` order.
    static let partsPerBlock = 7

    /// Index of a block's part in its run of `partsPerBlock`.
    enum Part: Int {
        case query = 0, key, value, attentionOutput, gate, up, down
    }

    /// Blocks covered.
    let blockCount: Int
    /// Per block: positions a query sees (0: all; the sliding window of a local layer).
    let windows: UnsafeMutablePointer<Int64>
    /// Per block: its index among the blocks of its kind (local or global), its layer in a
    /// scheduler's KV pool when local and global layers have pools of their own.
    let kvSlots: UnsafeMutablePointer<Int>
    private let parts: UnsafeMutablePointer<loom_matvec_part>

    init(weights w: Weights, state s: RunState, config c: ModelDescription) {
        blockCount = w.blocks.count
        let count = blockCount * Self.partsPerBlock + 1
        parts = .allocate(capacity: count)
        windows = .allocate(capacity: max(blockCount, 1))
        kvSlots = .allocate(capacity: max(blockCount, 1))
        var kinds = (local: 0, global: 0)
        // `ldy`: the output buffer's row length, for steps that multiply several rows at once.
        func part(_ m: WeightMatrix, _ y: UnsafeMutablePointer<Float>, ldy: Int, bias: UnsafePointer<Float>? = nil,
                  accumulate: Bool = false) -> loom_matvec_part {
            loom_matvec_part(type: m.type, w: m.data, row_bytes: m.rowBytes, n_rows: Int64(m.rows), y: y, ldy: Int64(ldy),
                             bias: bias, accumulate: accumulate ? 1 : 0)
        }
        let dim = c.embeddingLength, q = c.queryLength, kv = c.kvLength, ff = c.feedForwardLength
        for (l, b) in w.blocks.enumerated() {
            let local = l < c.localLayers.count && c.localLayers[l]
            (windows + l).initialize(to: local ? Int64(c.slidingWindow) : 0)
            (kvSlots + l).initialize(to: local ? kinds.local : kinds.global)
            if local { kinds.local += 1 } else { kinds.global += 1 }
            let base = parts + l * Self.partsPerBlock
            // Biases come as a set (ModelDescription.hasAttentionBias).
            (base + Part.query.rawValue).initialize(to: part(b.query, s.q, ldy: q, bias: b.queryBias))
            (base + Part.key.rawValue).initialize(to: part(b.key, s.k, ldy: kv, bias: b.keyBias))
            (base + Part.value.rawValue).initialize(to: part(b.value, s.v, ldy: kv, bias: b.valueBias))
            // Without a post-norm the projections accumulate straight into the residual stream.
            let direct = b.postAttentionNorm == nil
            (base + Part.attentionOutput.rawValue).initialize(to: part(b.attentionOutput, direct ? s.x : s.xb, ldy: dim,
                                                                       accumulate: direct))
            (base + Part.gate.rawValue).initialize(to: part(b.ffnGate, s.gate, ldy: ff))
            (base + Part.up.rawValue).initialize(to: part(b.ffnUp, s.up, ldy: ff))
            let directDown = b.postFFNNorm == nil
            (base + Part.down.rawValue).initialize(to: part(b.ffnDown, directDown ? s.x : s.xb, ldy: dim,
                                                            accumulate: directDown))
        }
        (parts + blockCount * Self.partsPerBlock).initialize(to: part(w.output, s.logits, ldy: c.vocabularySize))
    }

    /// Block `l`'s part `p` (the following parts of the block follow it in memory).
    @inline(__always)
    func part(_ l: Int, _ p: Part) -> UnsafePointer<loom_matvec_part> {
        UnsafePointer(parts + l * Self.partsPerBlock + p.rawValue)
    }

    /// The LM head, writing the logits buffer.
    var output: UnsafePointer<loom_matvec_part> { UnsafePointer(parts + blockCount * Self.partsPerBlock) }

    deinit {
        parts.deinitialize(count: blockCount * Self.partsPerBlock + 1)
        parts.deallocate()
        windows.deallocate()
        kvSlots.deallocate()
    }
}
