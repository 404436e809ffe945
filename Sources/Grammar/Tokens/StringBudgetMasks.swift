/// For each remaining `maxLength` budget, the tokens whose characters fit it inside a JSON string.
///
/// An isolated string frame (one that can never close) admits a token exactly when the same frame
/// without a length bound admits it and the characters the token completes or starts fit the
/// budget: the budget only ever makes one step fail, and the count only grows along a token. So
/// the mask of every budget is the unbounded mask ANDed with one of these masks, instead of a
/// walk of the whole token trie per remaining length.
///
/// A token's count is what the string walk counts for it from the content phase: one per
/// character started — at its UTF-8 lead byte, or at the backslash of an escape — so a token that
/// ends inside a character or an escape counts it, and one that starts with continuation bytes
/// does not count them. This holds from the middle of a raw character too, because a token the
/// frame admits there starts with exactly the continuation bytes the character still needs. It
/// does not hold from inside an escape, which callers walk as before.
///
/// Counting an escape as it starts keeps every admitted prefix finishable: a backslash at a full
/// budget is refused, instead of opening an escape whose last byte no budget is left for.
///
/// A frame that does not decode its value counts each `\u` escape; one that decodes
/// (`StringSpec.tracksValue`: patterns or length bounds) makes a high surrogate wait for its low
/// half and counts the pair once, at the high half's backslash. The few tokens whose count differs
/// between the two are kept in every mask and cleared one by one (`exceptions`).
final class StringBudgetMasks: @unchecked Sendable {
    // @unchecked: written only in `init`; shared read-only by every matcher over the vocabulary.

    /// Number of `UInt64` words per mask.
    let words: Int
    /// Budgets below this have a mask; every token (but the exceptions) fits a larger budget.
    let limit: Int
    /// `limit` masks of `words` words: mask `r` holds the tokens counting at most `r`, and every exception.
    private let masks: UnsafeMutablePointer<UInt64>

    /// A token whose count depends on whether the frame tracks its decoded value.
    struct Exception {
        let token: Int
        let plain: Int32
        let tracked: Int32
    }
    let exceptions: [Exception]

    /// Counts every token of `tokens` and builds the masks over `(tokens.count + 63) / 64` words.
    init(tokens: [[UInt8]]) {
        words = (tokens.count + 63) / 64
        var plain = [Int32](repeating: 0, count: tokens.count)
        var exceptions: [Exception] = []
        var untracked = StringWalkSpec()
        untracked.maxLength = Int32.max
        var tracked = untracked
        tracked.tracksValue = true
        for (id, bytes) in tokens.enumerated() {
            let p = StringBudgetMasks.count(bytes, untracked)
            let t = StringBudgetMasks.count(bytes, tracked)
            plain[id] = p
            if p != t { exceptions.append(Exception(token: id, plain: p, tracked: t)) }
        }
        self.exceptions = exceptions
        let isException = Set(exceptions.map(\.token))
        var limit = 0
        for (id, c) in plain.enumerated() where !isException.contains(id) { limit = max(limit, Int(c)) }
        self.limit = limit
        let total = limit * words
        masks = .allocate(capacity: max(total, 1))
        masks.initialize(repeating: 0, count: max(total, 1))
        // Each token sets its bit in the mask of its own count, then each mask takes in the one
        // below it: mask `r` ends up with every count up to `r`.
        for (id, c) in plain.enumerated() {
            let first = isException.contains(id) ? 0 : Int(c)
            if first < limit { masks[first * words + (id >> 6)] |= 1 << UInt64(id & 63) }
        }
        if limit > 1 {
            for r in 1..<limit {
                let row = masks + r * words, below = masks + (r - 1) * words
                for w in 0..<words { row[w] |= below[w] }
            }
        }
    }

    deinit { masks.deallocate() }

    /// The count the string walk reaches over `bytes` from the content phase (leading continuation
    /// bytes skipped, see the type's comment); where the walk rejects a byte, the count so far
    /// (such a token is outside every mask it is ANDed with).
    static func count(_ bytes: [UInt8], _ spec: StringWalkSpec) -> Int32 {
        var i = 0
        while i < bytes.count, bytes[i] & 0xC0 == 0x80 { i += 1 }
        var s = StringWalkState.content
        while i < bytes.count, s.step(bytes[i], spec) { i += 1 }
        return s.length
    }

    /// Clears from `mask` (`words` words, a mask the string frame admits without a bound) the
    /// tokens that do not fit `budget` more characters.
    func restrict(_ mask: UnsafeMutablePointer<UInt64>, toBudget budget: Int, tracksValue: Bool) {
        precondition(budget >= 0, "negative length budget")
        if budget < limit {
            let row = masks + budget * words
            for w in 0..<words { mask[w] &= row[w] }
        }
        for e in exceptions where Int(tracksValue ? e.tracked : e.plain) > budget {
            mask[e.token >> 6] &= ~(1 << UInt64(e.token & 63))
        }
    }
}
