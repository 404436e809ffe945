import Engine
import Provider

/// Per-token log-probabilities as the compute thread records them: flat arrays, `alternatives`
/// slots per token in `topTokens`/`topValues` of which `topCounts[i]` are filled.
struct LogProbabilityRows: Sendable {
    var tokens: [Int32] = []
    var values: [Float] = []
    var topCounts: [Int32] = []
    var topTokens: [Int32] = []
    var topValues: [Float] = []

    var isEmpty: Bool { tokens.isEmpty }

    /// The rows as the public entries (token text and bytes from `tokenizer`).
    func entries(alternatives k: Int, tokenizer: Tokenizer) -> [TokenLogProbability] {
        func piece(_ id: Int32) -> (String, [UInt8]) {
            tokenizer.withTokenBytes(id, renderSpecial: true) { (String(decoding: $0, as: UTF8.self), Array($0)) }
        }
        var out: [TokenLogProbability] = []
        out.reserveCapacity(tokens.count)
        for i in tokens.indices {
            let (text, bytes) = piece(tokens[i])
            var top: [TokenLogProbability.Alternative] = []
            top.reserveCapacity(Int(topCounts[i]))
            for j in 0..<Int(topCounts[i]) {
                let (t, b) = piece(topTokens[i * k + j])
                top.append(.init(token: t, bytes: b, logProbability: Self.reported(topValues[i * k + j])))
            }
            out.append(TokenLogProbability(token: text, bytes: bytes, logProbability: Self.reported(values[i]),
                                           topAlternatives: top))
        }
        return out
    }

    /// A float value as the double with the float's shortest spelling (`-0.12345679`, not the
    /// binary expansion), so JSON shows what was computed and nothing more.
    static func reported(_ value: Float) -> Double { Double("\(value)") ?? Double(value) }
}

/// Computes the log-probabilities a request asked for, token by token, on the compute thread:
/// `LogSoftmax` (CTensor's `loom_logprobs`) over the row the token was drawn from (under the mask it was drawn
/// under), into buffers made once. Only exists when a request asks, so plain requests pay nothing.
///
/// Tokens the grammar forces (text only the grammar can write, and the closing plan that fits the
/// budget) are not drawn from a distribution: over the one continuation allowed they have
/// probability 1, so they report log-probability 0 with themselves as the only alternative.
final class LogProbabilityRecorder {
    /// Alternatives per token.
    let alternatives: Int
    private let vocabularySize: Int
    private let topTokens: UnsafeMutablePointer<Int32>
    private let topValues: UnsafeMutablePointer<Float>
    private var rows = LogProbabilityRows()

    init(alternatives: Int, vocabularySize: Int, expectedTokens: Int) {
        self.alternatives = alternatives
        self.vocabularySize = vocabularySize
        topTokens = .allocate(capacity: max(alternatives, 1))
        topValues = .allocate(capacity: max(alternatives, 1))
        reserve(min(expectedTokens, 256))
    }

    deinit {
        topTokens.deallocate()
        topValues.deallocate()
    }

    private func reserve(_ tokens: Int) {
        rows.tokens.reserveCapacity(tokens)
        rows.values.reserveCapacity(tokens)
        rows.topCounts.reserveCapacity(tokens)
        rows.topTokens.reserveCapacity(tokens * alternatives)
        rows.topValues.reserveCapacity(tokens * alternatives)
    }

    /// Records `token`, drawn from `logits` under `mask` (nil: every token allowed).
    func sampled(_ token: Int32, logits: UnsafeBufferPointer<Float>, mask: UnsafePointer<UInt64>?) {
        let row = UnsafeBufferPointer(rebasing: logits[0..<vocabularySize])
        let result = LogSoftmax.evaluate(row, mask: mask, chosen: token, alternatives: alternatives,
                                         topTokens: topTokens, topValues: topValues)
        let filled = result?.count ?? 0
        rows.tokens.append(token)
        rows.values.append(result?.logProbability ?? 0)
        rows.topCounts.append(Int32(filled))
        for j in 0..<alternatives {
            rows.topTokens.append(j < filled ? topTokens[j] : -1)
            rows.topValues.append(j < filled ? topValues[j] : 0)
        }
    }

    /// Records tokens the grammar forced: log-probability 0, themselves the only alternative.
    func forced(_ tokens: [Int32]) {
        for t in tokens {
            rows.tokens.append(t)
            rows.values.append(0)
            rows.topCounts.append(alternatives > 0 ? 1 : 0)
            for j in 0..<alternatives {
                rows.topTokens.append(j == 0 ? t : -1)
                rows.topValues.append(0)
            }
        }
    }

    /// The rows recorded since the last call (nil when none).
    func take() -> LogProbabilityRows? {
        guard !rows.isEmpty else { return nil }
        let out = rows
        rows = LogProbabilityRows()
        reserve(out.tokens.count)
        return out
    }
}
