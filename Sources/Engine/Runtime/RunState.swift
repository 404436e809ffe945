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
    /// RoPE cosines and sines per token `[B × rotated/2]`.
    let cos, sin: UnsafeMutablePointer<Float>
    /// Attention scores `[heads × context]`.
    let scores: UnsafeMutablePointer<Float>
    /// RoPE inverse frequencies `[rotated/2]`, float64 so angles are exact before rounding.
    let inverseFrequencies: UnsafeMutablePointer<Double>

    private let arena: UnsafeMutablePointer<Float>

    init(config c: ModelDescription, maxBatch b: Int, context: Int, frequencyFactors: UnsafePointer<Float>?) {
        let half = c.rope.dimensionCount / 2
        let sizes = [b * c.embeddingLength, b * c.embeddingLength, b * c.queryLength, b * c.kvLength, b * c.kvLength,
                     b * c.queryLength, b * c.feedForwardLength, b * c.feedForwardLength, b * c.vocabularySize,
                     b * half, b * half, c.headCount * context]
        // Each buffer starts on a 64-byte boundary (16 floats) for the SIMD kernels.
        let padded = sizes.map { ($0 + 15) / 16 * 16 }
        arena = UnsafeMutablePointer<Float>.allocate(capacity: padded.reduce(0, +))
        arena.initialize(repeating: 0, count: padded.reduce(0, +))
        var offsets: [Int] = []
        var at = 0
        for p in padded { offsets.append(at); at += p }
        x = arena + offsets[0]; xb = arena + offsets[1]; q = arena + offsets[2]
        k = arena + offsets[3]; v = arena + offsets[4]; attention = arena + offsets[5]
        gate = arena + offsets[6]; up = arena + offsets[7]; logits = arena + offsets[8]
        cos = arena + offsets[9]; sin = arena + offsets[10]; scores = arena + offsets[11]

        inverseFrequencies = .allocate(capacity: max(half, 1))
        for i in 0..<half {
            // theta_i = base^(-2i/n_rot), divided by the file's per-pair factor when it has one.
            var f = 1 / pow(c.rope.base, Double(2 * i) / Double(c.rope.dimensionCount))
            if let frequencyFactors { f /= Double(frequencyFactors[i]) }
            inverseFrequencies[i] = f / c.rope.linearScale
        }
    }

    deinit {
        arena.deallocate()
        inverseFrequencies.deallocate()
    }
}

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
