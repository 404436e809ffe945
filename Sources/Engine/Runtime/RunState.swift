import CTensor

/// The activation buffers of one transformer (llama2.c's `RunState`): allocated once when the
/// transformer is built, sized for `maxBatch` tokens, reused by every forward pass.
///
/// Shapes are row-major with one row per token of the batch (`B = maxBatch`).
final class RunState {
    /// Residual stream `[B × dim]`.
    let x: UnsafeMutablePointer<Float>
    /// Normalised input / projection output `[B × dim]`.
    let xb: UnsafeMutablePointer<Float>
    /// Queries `[B × heads·headDim]`.
    let q: UnsafeMutablePointer<Float>
    /// Keys and values of the batch `[B × kvHeads·headDim]`.
    let k, v: UnsafeMutablePointer<Float>
    /// Attention output `[B × heads·headDim]`.
    let attention: UnsafeMutablePointer<Float>
    /// FFN gate and up projections `[B × ff]`.
    let gate, up: UnsafeMutablePointer<Float>
    /// Logits `[B × vocab]` (only the rows asked for are written).
    let logits: UnsafeMutablePointer<Float>
    /// RoPE cos/sin table of the batch (`loom_rope_cache_floats(B)`), for global layers.
    let ropeTable: UnsafeMutablePointer<Float>
    /// The same for local (sliding-window) layers, which have their own RoPE base.
    let localRopeTable: UnsafeMutablePointer<Float>
    /// Attention scratch for every thread, for queries that see up to `context` positions.
    let attentionScratch: UnsafeMutablePointer<Float>
    /// Dequantized weight tiles for the batched (sgemm) matmul path, every thread.
    let matmulScratch: UnsafeMutablePointer<Float>
    /// Per-thread quantized copies of a decode step's matrix input (`loom_par_matvec_fused`).
    let matvecScratch: UnsafeMutableRawPointer
    /// Positions of the batch's tokens `[B]`.
    let positions: UnsafeMutablePointer<Int32>

    private let arena: UnsafeMutablePointer<Float>

    init(config c: ModelDescription, maxBatch b: Int, ropeTableFloats: Int, attentionScratchFloats: Int,
         matmulScratchFloats: Int, matvecScratchBytes: Int) {
        let sizes = [b * c.embeddingLength, b * c.embeddingLength, b * c.queryLength, b * c.kvLength, b * c.kvLength,
                     b * c.queryLength, b * c.feedForwardLength, b * c.feedForwardLength, b * c.vocabularySize,
                     ropeTableFloats, attentionScratchFloats, matmulScratchFloats, (matvecScratchBytes + 3) / 4,
                     ropeTableFloats]
        // Each buffer starts on a 64-byte boundary (16 floats) for the SIMD kernels.
        let padded = sizes.map { ($0 + 15) / 16 * 16 }
        let total = padded.reduce(0, +)
        arena = UnsafeMutablePointer<Float>.allocate(capacity: total)
        var offsets: [Int] = []
        var at = 0
        for p in padded { offsets.append(at); at += p }
        // Every buffer but the logits starts zeroed. The logits rows (`maxBatch × vocabulary`:
        // 512 MB for a 262k vocabulary at 512 rows) are written before they are read, and most
        // passes write one row, so their pages stay unmapped until a pass asks for more.
        arena.initialize(repeating: 0, count: offsets[8])
        (arena + offsets[9]).initialize(repeating: 0, count: total - offsets[9])
        x = arena + offsets[0]; xb = arena + offsets[1]; q = arena + offsets[2]
        k = arena + offsets[3]; v = arena + offsets[4]; attention = arena + offsets[5]
        gate = arena + offsets[6]; up = arena + offsets[7]; logits = arena + offsets[8]
        ropeTable = arena + offsets[9]; attentionScratch = arena + offsets[10]; matmulScratch = arena + offsets[11]
        matvecScratch = UnsafeMutableRawPointer(arena + offsets[12])
        localRopeTable = arena + offsets[13]
        positions = .allocate(capacity: b)
        positions.initialize(repeating: 0, count: b)
    }

    deinit {
        arena.deallocate()
        positions.deallocate()
    }
}
