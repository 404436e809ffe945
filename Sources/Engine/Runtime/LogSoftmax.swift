import CTensor

/// Log-probabilities of one logits row (CTensor's `loom_logprobs`): the log-softmax at
/// temperature 1, before any sampling filter, normalised over the tokens a mask allows.
public enum LogSoftmax {
    /// Writes the `alternatives` most likely allowed tokens of `logits` (most likely first, ties to
    /// the lower id) and their log-probabilities to `topTokens`/`topValues` (capacity
    /// `alternatives` each), and returns the log-probability of `chosen` (-inf when `mask`
    /// excludes it) with how many alternatives were written — fewer than asked where fewer tokens
    /// are allowed. `mask` holds ⌈`logits.count`/64⌉ words, bit i % 64 of word i / 64 allowing
    /// token i (nil: every token). Nil when no allowed logit is finite or an argument is invalid.
    /// Allocates nothing.
    public static func evaluate(_ logits: UnsafeBufferPointer<Float>, mask: UnsafePointer<UInt64>?, chosen: Int32,
                                alternatives: Int, topTokens: UnsafeMutablePointer<Int32>,
                                topValues: UnsafeMutablePointer<Float>) -> (logProbability: Float, count: Int)? {
        guard let base = logits.baseAddress, logits.count <= Int(Int32.max), alternatives <= Int(Int32.max) else { return nil }
        var value: Float = 0
        let n = loom_logprobs(base, Int32(logits.count), mask, chosen, Int32(alternatives), &value, topTokens, topValues)
        return n >= 0 ? (value, Int(n)) : nil
    }
}
