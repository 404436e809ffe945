import Engine
import Grammar
import LoomMetrics
import Provider

/// The grammar side of one guided generation: the matcher, the completion planner that keeps the
/// output closable within the token budget, and the mask buffer sampling reads.
///
/// Used by one generation at a time; between generations it rests in `WarmGuides`, whose lock
/// hands it from one request's thread to the next (hence `@unchecked Sendable`).
final class GuidedDecoding: @unchecked Sendable {
    let matcher: GrammarMatcher
    let planner: GrammarCompletionPlanner
    /// The allowed-token mask for the model's full vocabulary (bits past the tokenizer's
    /// vocabulary stay clear).
    var mask: [UInt64]
    private let tokenizer: Tokenizer
    /// For each byte value, a token that is exactly that byte (-1 when the vocabulary has none):
    /// the fallback spelling of a plan the tokenizer's own spelling does not fit.
    private let byteTokens: [Int32]
    /// Where each mask computation's duration is recorded (`loom_grammar_mask_seconds`), if anywhere.
    private let maskTime: Histogram?

    init(grammar: Grammar, vocabulary: GrammarVocabulary, tokenizer: Tokenizer, byteTokens: [Int32],
         maskTime: Histogram? = nil) {
        matcher = GrammarMatcher(grammar: grammar, vocabulary: vocabulary)
        planner = GrammarCompletionPlanner(matcher: matcher)
        mask = [UInt64](repeating: 0, count: vocabulary.maskWordCount)
        self.tokenizer = tokenizer
        self.byteTokens = byteTokens
        self.maskTime = maskTime
    }

    /// Back to the grammar's start, keeping everything learned about it (for the next request).
    func rewind() { matcher.reset() }

    /// Approximate bytes this guide keeps warm: the matcher's automaton and masks, and the mask buffer.
    var retainedBytes: Int { matcher.retainedBytes + mask.count * MemoryLayout<UInt64>.stride }

    /// Recomputes `mask` for the matcher's current state.
    func computeMask() {
        guard let maskTime else {
            mask.withUnsafeMutableBufferPointer { matcher.mask(into: $0) }
            return
        }
        let started = ContinuousClock.now
        mask.withUnsafeMutableBufferPointer { matcher.mask(into: $0) }
        maskTime.observe(ContinuousClock.now - started)
    }

    /// Whether `token` is allowed by `mask`.
    func maskAllows(_ token: Int32) -> Bool {
        let t = Int(token)
        return t >= 0 && t >> 6 < mask.count && mask[t >> 6] >> UInt64(t & 63) & 1 == 1
    }

    /// True when `mask` allows nothing but end-of-generation tokens.
    func maskOnlyEnds(_ endTokens: [Int32]) -> Bool {
        var ends = 0
        for e in endTokens where maskAllows(e) { ends += 1 }
        // Runs every step: stop at the first word that shows one other allowed token.
        var count = 0
        for w in mask {
            count += w.nonzeroBitCount
            if count > ends { return false }
        }
        return count == ends
    }

    /// Tokens spelling `bytes` that the matcher accepts from its current state; the matcher is
    /// left unchanged. The tokenizer's own spelling is preferred (it is what the model expects),
    /// then one token per byte. Nil when neither spelling is accepted.
    func spell(_ bytes: [UInt8]) -> [Int32]? {
        if bytes.isEmpty { return [] }
        if let text = String(validating: bytes, as: UTF8.self) {
            let ids = tokenizer.encode(text, addBOS: false, parseSpecial: false)
            if accepts(ids) { return ids }
        }
        var ids: [Int32] = []
        for b in bytes {
            let t = byteTokens[Int(b)]
            guard t >= 0 else { return nil }
            ids.append(t)
        }
        return accepts(ids) ? ids : nil
    }

    private func accepts(_ ids: [Int32]) -> Bool {
        var n = 0
        defer { matcher.rollback(n) }
        for t in ids {
            guard matcher.accept(token: Int(t)) else { return false }
            n += 1
        }
        return true
    }

    /// True when nothing can follow and the output is not complete: at the start, the schema
    /// admits no value. (Computes the mask.)
    func admitsNothing() -> Bool {
        computeMask()
        return !matcher.isComplete && mask.allSatisfy { $0 == 0 }
    }

    /// The tokens of a shortest completion from the current state ([] when complete), or nil
    /// when the planner could not find one.
    func completionPlan() -> [Int32]? {
        guard let bytes = planner.shortestCompletion(of: matcher) else { return nil }
        return spell(bytes)
    }

    /// A cheap upper bound on the tokens a completion needs (bytes of the shortest completion:
    /// every byte can be its own token); nil when unknown.
    func completionBound() -> Int? {
        planner.shortestCompletionLength(of: matcher)
    }

    /// Accepts `ids` into the matcher; false (matcher unchanged) if any is rejected.
    func accept(_ ids: [Int32]) -> Bool {
        var n = 0
        for t in ids {
            guard matcher.accept(token: Int(t)) else {
                matcher.rollback(n)
                return false
            }
            n += 1
        }
        return true
    }

    /// Builds the per-byte token table for a tokenizer over `size` ids.
    static func byteTokens(tokenizer: Tokenizer, size: Int) -> [Int32] {
        var table = [Int32](repeating: -1, count: 256)
        for id in 0..<min(size, tokenizer.vocabularySize) {
            let id32 = Int32(id)
            if tokenizer.isControl(id32) { continue }
            tokenizer.withTokenBytes(id32) { bytes in
                if bytes.count == 1, table[Int(bytes[0])] < 0 { table[Int(bytes[0])] = id32 }
            }
        }
        return table
    }
}
