import CTensor

/// How the next token is chosen from logits. Each stage is off at its neutral value; the chain
/// runs penalties → mask → top-k → top-p → min-p → temperature → draw (llama.cpp's order).
public struct SamplingParameters: Codable, Sendable, Equatable {
    /// 0 (or less) means greedy: the highest allowed logit, ties to the lowest id.
    public var temperature: Float
    /// Keep the k most likely tokens (0: off).
    public var topK: Int
    /// Keep the smallest most-likely set whose probability reaches `topP` (1: off).
    public var topP: Float
    /// Drop tokens below `minP` × the top probability (0: off).
    public var minP: Float
    /// Divides positive (multiplies negative) logits of recently seen tokens (1: off).
    public var repeatPenalty: Float
    /// Subtracted once from the logit of every recently seen token (0: off).
    public var presencePenalty: Float
    /// Subtracted per occurrence of a recently seen token (0: off).
    public var frequencyPenalty: Float
    /// How many recent tokens the penalties look at.
    public var penaltyWindow: Int
    /// Seed of the random generator (xoshiro256**): the same seed gives the same tokens.
    public var seed: UInt64

    /// Greedy decoding.
    public static let greedy = SamplingParameters(temperature: 0)

    /// - Parameters default to plain sampling at temperature 1 with every filter off.
    public init(temperature: Float = 1, topK: Int = 0, topP: Float = 1, minP: Float = 0, repeatPenalty: Float = 1,
                presencePenalty: Float = 0, frequencyPenalty: Float = 0, penaltyWindow: Int = 64, seed: UInt64 = 0) {
        self.temperature = temperature
        self.topK = topK
        self.topP = topP
        self.minP = minP
        self.repeatPenalty = repeatPenalty
        self.presencePenalty = presencePenalty
        self.frequencyPenalty = frequencyPenalty
        self.penaltyWindow = penaltyWindow
        self.seed = seed
    }

    var c: loom_sampler_params {
        var p = loom_sampler_default_params()
        p.temperature = temperature
        p.top_k = Int32(clamping: topK)
        p.top_p = topP
        p.min_p = minP
        p.repeat_penalty = repeatPenalty
        p.presence_penalty = presencePenalty
        p.frequency_penalty = frequencyPenalty
        p.penalty_last_n = Int32(clamping: penaltyWindow)
        p.seed = seed
        return p
    }
}

/// Chooses tokens from logits (CTensor's `loom_sampler`): owns its buffers and random state, so
/// sampling never allocates. One sampler per generation; not thread-safe.
public final class Sampler {
    /// The settings in use.
    public private(set) var parameters: SamplingParameters
    /// The vocabulary size it samples over.
    public let vocabularySize: Int
    private let sampler: OpaquePointer

    /// A sampler over `vocabularySize` tokens.
    public init(vocabularySize: Int, parameters: SamplingParameters) throws(EngineError) {
        guard vocabularySize > 0, vocabularySize <= Int(Int32.max) else {
            throw .invalidConfiguration("vocabulary size \(vocabularySize)")
        }
        var p = parameters.c
        guard parameters.penaltyWindow >= 0, let s = loom_sampler_create(Int32(vocabularySize), &p) else {
            throw .invalidConfiguration("sampling parameters \(parameters)")
        }
        sampler = s
        self.vocabularySize = vocabularySize
        self.parameters = parameters
    }

    deinit { loom_sampler_destroy(sampler) }

    /// Picks a token from `logits` (`vocabularySize` floats, unchanged). `mask`, when given, holds
    /// ⌈vocab/64⌉ words: token i is allowed iff bit i % 64 of word i / 64 is set.
    /// Returns nil when no token is allowed. The token is not recorded: call `accept`.
    public func sample(_ logits: UnsafeBufferPointer<Float>, mask: UnsafePointer<UInt64>? = nil) -> Int32? {
        precondition(logits.count >= vocabularySize, "logits shorter than the vocabulary")
        let t0 = loom_profile_active() != 0 ? loom_profile_now_ns() : 0
        let t = loom_sampler_sample(sampler, logits.baseAddress, mask)
        if t0 != 0 { loom_profile_record(LOOM_WORK_SAMPLING, loom_profile_now_ns() - t0) }
        return t >= 0 ? t : nil
    }

    /// Records a token (prompt or generated) in the penalty window.
    public func accept(_ token: Int32) {
        _ = loom_sampler_accept(sampler, token)
    }

    /// Forgets the history and reseeds.
    public func reset(seed: UInt64) {
        loom_sampler_reset(sampler, seed)
        parameters.seed = seed
    }
}
