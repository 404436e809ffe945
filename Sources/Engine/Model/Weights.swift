import CTensor

/// One transformer block's tensors.
public struct BlockWeights: @unchecked Sendable {
    /// RMSNorm gain before attention, `[dim]` F32.
    public let attentionNorm: UnsafePointer<Float>
    /// `[queryLength × dim]`, `[kvLength × dim]`, `[kvLength × dim]` (row slices of `attn_qkv`
    /// when the architecture fuses them).
    public let query, key, value: WeightMatrix
    /// Per-head RMSNorm gains of Q and K, `[headDim]` F32 (qwen3, gemma3).
    public let queryNorm, keyNorm: UnsafePointer<Float>?
    /// Q/K/V biases (`[queryLength]`, `[kvLength]`, `[kvLength]` F32), when the architecture has them.
    public let queryBias, keyBias, valueBias: UnsafePointer<Float>?
    /// `[dim × queryLength]`.
    public let attentionOutput: WeightMatrix
    /// RMSNorm gain before the feed-forward, `[dim]` F32.
    public let ffnNorm: UnsafePointer<Float>
    /// `[ff × dim]`, `[ff × dim]`, `[dim × ff]` (gate and up as row slices of `ffn_up` when the
    /// architecture fuses them).
    public let ffnGate, ffnUp, ffnDown: WeightMatrix
    /// RMSNorm gains on the attention and feed-forward outputs before their residual adds,
    /// `[dim]` F32 (gemma3).
    public let postAttentionNorm, postFFNNorm: UnsafePointer<Float>?
}

/// Typed views of every tensor a `ModelDescription` needs.
///
/// Matrices whose type has an interleaved layout (CTensor's `loom_repack_x8`: eight rows per
/// block, which the decode kernels multiply several times faster) are repacked once into memory
/// owned here, and the file's pages they came from are released, so the model stays resident
/// once. Other matrices are views into the file's mapping. One-dimensional tensors (norm gains,
/// biases, RoPE frequency factors) are read as F32: stored F32 they point into the mapping,
/// otherwise they are converted once into a small arena owned here.
///
/// `@unchecked Sendable`: immutable after `init`; the arena, the repacked matrices and the
/// mapping (the retained `GGUFFile`) live as long as this object and are only read.
public final class Weights: @unchecked Sendable {
    /// The file the views point into (kept alive by this reference).
    public let file: GGUFFile
    /// `[vocab × dim]` token embedding rows.
    public let tokenEmbedding: WeightMatrix
    /// `[vocab × dim]` LM head (`token_embd.weight` when the file ties them).
    public let output: WeightMatrix
    /// Final RMSNorm gain, `[dim]`.
    public let outputNorm: UnsafePointer<Float>
    /// Per-pair RoPE frequency divisors, `[rope.dimensionCount / 2]`, when the file has them.
    public let ropeFrequencyFactors: UnsafePointer<Float>?
    /// LongRoPE per-pair frequency divisors for contexts beyond
    /// `rope.originalContextLength` and up to it, `[rope.dimensionCount / 2]` (phi3).
    public let ropeLongFactors, ropeShortFactors: UnsafePointer<Float>?
    /// The transformer blocks, in order.
    public let blocks: [BlockWeights]

    private let arena: UnsafeMutablePointer<Float>?
    /// The memory of the interleaved matrices.
    private let interleavedMemory: InterleavedMemory?

    /// Binds the tensors of `file`, which `description` was derived from (and so validated).
    public init(file: GGUFFile, description: ModelDescription) {
        self.file = file
        func tensor(_ name: String) -> GGUFTensorInfo {
            // ModelDescription.init(file:) checked presence and shape of every expected tensor.
            guard let t = file.tensor(named: name) else { preconditionFailure("validated tensor '\(name)' missing") }
            return t
        }
        // Size the arena for every 1-D tensor that is not stored as F32.
        var vectorNames = [TensorName.outputNorm]
        if description.rope.hasFrequencyFactors { vectorNames.append(TensorName.ropeFrequencies) }
        let longShort = description.rope.originalContextLength != nil
        if longShort { vectorNames += [TensorName.ropeFactorsLong, TensorName.ropeFactorsShort] }
        let t = description.blockTensors
        for b in 0..<description.blockCount {
            vectorNames.append(TensorName.block(b, TensorName.attentionNorm))
            vectorNames.append(TensorName.block(b, TensorName.ffnNorm))
            if t.contains(.headNorms) {
                vectorNames += [TensorName.queryNorm, TensorName.keyNorm].map { TensorName.block(b, $0) }
            }
            if t.contains(.postNorms) {
                vectorNames += [TensorName.postAttentionNorm, TensorName.postFFNNorm].map { TensorName.block(b, $0) }
            }
            if description.hasAttentionBias {
                vectorNames += [TensorName.queryBias, TensorName.keyBias, TensorName.valueBias].map { TensorName.block(b, $0) }
            }
        }
        let converted = vectorNames.map(tensor).filter { $0.typeID != UInt32(LOOM_TYPE_F32.rawValue) }
        let arenaCount = converted.reduce(0) { $0 + $1.elementCount }
        let arena = arenaCount > 0 ? UnsafeMutablePointer<Float>.allocate(capacity: arenaCount) : nil
        self.arena = arena
        var used = 0
        func vector(_ name: String) -> UnsafePointer<Float> {
            let t = tensor(name)
            let src = file.data(for: t)
            if t.typeID == UInt32(LOOM_TYPE_F32.rawValue) { return src.assumingMemoryBound(to: Float.self) }
            let dst = arena! + used
            used += t.elementCount
            Kernels.dequantizeRow(type: Int32(bitPattern: t.typeID), source: src, destination: dst, count: t.elementCount)
            return UnsafePointer(dst)
        }
        // Room for every tensor of a type with an interleaved layout (a few the model does not
        // bind are never written, so never resident).
        let interleavable = file.tensors.filter { loom_repack_x8_type(Int32(bitPattern: $0.typeID)) >= 0 }
        let memory = interleavable.isEmpty ? nil
            : InterleavedMemory(bytes: interleavable.reduce(0) { $0 + ($1.byteCount + 63) / 64 * 64 })
        /// The matrix, interleaved when its type and shape allow (`splits`: where a fused
        /// tensor is cut into its parts).
        func matrix(_ name: String, splits: [Int] = []) -> WeightMatrix {
            let t = tensor(name)
            let m = WeightMatrix(file: file, tensor: t)
            guard let memory, let packed = m.interleaved(into: memory, splits: splits) else { return m }
            file.releaseResidentPages(of: t)
            return packed
        }

        tokenEmbedding = matrix(TensorName.tokenEmbedding)
        output = description.tiedOutput ? tokenEmbedding : matrix(TensorName.output)
        outputNorm = vector(TensorName.outputNorm)
        ropeFrequencyFactors = description.rope.hasFrequencyFactors ? vector(TensorName.ropeFrequencies) : nil
        ropeLongFactors = longShort ? vector(TensorName.ropeFactorsLong) : nil
        ropeShortFactors = longShort ? vector(TensorName.ropeFactorsShort) : nil
        let q = description.queryLength, kv = description.kvLength, ff = description.feedForwardLength
        var blocks: [BlockWeights] = []
        blocks.reserveCapacity(description.blockCount)
        for b in 0..<description.blockCount {
            func n(_ suffix: String) -> String { TensorName.block(b, suffix) }
            func optional(_ flag: BlockTensors, _ suffix: String) -> UnsafePointer<Float>? {
                t.contains(flag) ? vector(n(suffix)) : nil
            }
            let bias = description.hasAttentionBias
            let query, key, value, gate, up: WeightMatrix
            if t.contains(.fusedQKV) {
                let qkv = matrix(n(TensorName.queryKeyValue), splits: [q, q + kv])
                (query, key, value) = (qkv.rows(0..<q), qkv.rows(q..<q + kv), qkv.rows(q + kv..<q + 2 * kv))
            } else {
                (query, key, value) = (matrix(n(TensorName.query)), matrix(n(TensorName.key)), matrix(n(TensorName.value)))
            }
            if t.contains(.fusedGateUp) {
                let gateUp = matrix(n(TensorName.ffnUp), splits: [ff])
                (gate, up) = (gateUp.rows(0..<ff), gateUp.rows(ff..<2 * ff))
            } else {
                (gate, up) = (matrix(n(TensorName.ffnGate)), matrix(n(TensorName.ffnUp)))
            }
            blocks.append(BlockWeights(
                attentionNorm: vector(n(TensorName.attentionNorm)),
                query: query, key: key, value: value,
                queryNorm: optional(.headNorms, TensorName.queryNorm), keyNorm: optional(.headNorms, TensorName.keyNorm),
                queryBias: bias ? vector(n(TensorName.queryBias)) : nil,
                keyBias: bias ? vector(n(TensorName.keyBias)) : nil,
                valueBias: bias ? vector(n(TensorName.valueBias)) : nil,
                attentionOutput: matrix(n(TensorName.attentionOutput)),
                ffnNorm: vector(n(TensorName.ffnNorm)),
                ffnGate: gate, ffnUp: up, ffnDown: matrix(n(TensorName.ffnDown)),
                postAttentionNorm: optional(.postNorms, TensorName.postAttentionNorm),
                postFFNNorm: optional(.postNorms, TensorName.postFFNNorm)))
        }
        self.blocks = blocks
        interleavedMemory = memory
    }

    deinit { arena?.deallocate() }
}
