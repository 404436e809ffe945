import CTensor

/// One transformer block's tensors.
public struct BlockWeights: @unchecked Sendable {
    /// RMSNorm gain before attention, `[dim]` F32.
    public let attentionNorm: UnsafePointer<Float>
    /// `[queryLength × dim]`, `[kvLength × dim]`, `[kvLength × dim]`.
    public let query, key, value: WeightMatrix
    /// Q/K/V biases (`[queryLength]`, `[kvLength]`, `[kvLength]` F32), when the architecture has them.
    public let queryBias, keyBias, valueBias: UnsafePointer<Float>?
    /// `[dim × queryLength]`.
    public let attentionOutput: WeightMatrix
    /// RMSNorm gain before the feed-forward, `[dim]` F32.
    public let ffnNorm: UnsafePointer<Float>
    /// `[ff × dim]`, `[ff × dim]`, `[dim × ff]`.
    public let ffnGate, ffnUp, ffnDown: WeightMatrix
}

/// Typed views of every tensor a `ModelDescription` needs, into the file's mapping.
///
/// Matrices are never copied. One-dimensional tensors (norm gains, biases, RoPE frequency
/// factors) are read as F32: stored F32 they point into the mapping, otherwise they are converted
/// once into a small arena owned here.
///
/// `@unchecked Sendable`: immutable after `init`; the arena and the mapping (the retained
/// `GGUFFile`) live as long as this object and are only read.
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
    /// The transformer blocks, in order.
    public let blocks: [BlockWeights]

    private let arena: UnsafeMutablePointer<Float>?

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
        for b in 0..<description.blockCount {
            vectorNames.append(TensorName.block(b, TensorName.attentionNorm))
            vectorNames.append(TensorName.block(b, TensorName.ffnNorm))
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
        func matrix(_ name: String) -> WeightMatrix { WeightMatrix(file: file, tensor: tensor(name)) }

        tokenEmbedding = matrix(TensorName.tokenEmbedding)
        output = description.tiedOutput ? tokenEmbedding : matrix(TensorName.output)
        outputNorm = vector(TensorName.outputNorm)
        ropeFrequencyFactors = description.rope.hasFrequencyFactors ? vector(TensorName.ropeFrequencies) : nil
        var blocks: [BlockWeights] = []
        blocks.reserveCapacity(description.blockCount)
        for b in 0..<description.blockCount {
            func n(_ suffix: String) -> String { TensorName.block(b, suffix) }
            let bias = description.hasAttentionBias
            blocks.append(BlockWeights(
                attentionNorm: vector(n(TensorName.attentionNorm)),
                query: matrix(n(TensorName.query)), key: matrix(n(TensorName.key)), value: matrix(n(TensorName.value)),
                queryBias: bias ? vector(n(TensorName.queryBias)) : nil,
                keyBias: bias ? vector(n(TensorName.keyBias)) : nil,
                valueBias: bias ? vector(n(TensorName.valueBias)) : nil,
                attentionOutput: matrix(n(TensorName.attentionOutput)),
                ffnNorm: vector(n(TensorName.ffnNorm)),
                ffnGate: matrix(n(TensorName.ffnGate)), ffnUp: matrix(n(TensorName.ffnUp)),
                ffnDown: matrix(n(TensorName.ffnDown))))
        }
        self.blocks = blocks
    }

    deinit { arena?.deallocate() }
}
