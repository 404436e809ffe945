import FuzzSupport
import Grammar

/// A `GrammarMatcher` whose every answer is cross-checked: the mask against per-token
/// `isAllowed`, `accept` against the mask, rollback and fork against remembered masks, forced
/// bytes against the mask, and a cold matcher replaying the same steps against the warm one.
public final class CheckedMatcher {
    /// One accepted step, for replay.
    enum Step { case token(Int), bytes([UInt8]) }

    public let grammar: Grammar
    public let matcher: GrammarMatcher
    let vocabulary: GrammarVocabulary
    /// The mask after each accepted step (index = `acceptedCount`).
    var masks: [[UInt64]] = []
    var steps: [Step] = []

    /// A checked matcher at the start of `grammar` over the small vocabulary.
    public init(_ grammar: Grammar) {
        self.grammar = grammar
        vocabulary = SmallVocabulary.vocabulary
        matcher = GrammarMatcher(grammar: grammar, vocabulary: vocabulary)
        masks = [checkedMask()]
    }

    static func bit(_ mask: [UInt64], _ t: Int) -> Bool { mask[t >> 6] & (1 << UInt64(t & 63)) != 0 }

    /// The current mask, after checking it token by token.
    func checkedMask() -> [UInt64] {
        // Sized first: `&array` binds to the pointer overload of `mask(into:)`, which never resizes.
        var mask = [UInt64](repeating: 0, count: matcher.maskWordCount)
        matcher.mask(into: &mask)
        let n = vocabulary.size
        for t in 0..<n {
            let inMask = Self.bit(mask, t)
            if inMask != matcher.isAllowed(token: t) {
                FuzzEntry.violation("mask says \(inMask) but isAllowed says \(!inMask) for token \(t) \(SmallVocabulary.tokens[t]) after \(steps)")
            }
        }
        if Self.bit(mask, SmallVocabulary.endOfGeneration) != matcher.isComplete {
            FuzzEntry.violation("end-of-generation bit \(Self.bit(mask, SmallVocabulary.endOfGeneration)) but isComplete \(matcher.isComplete)")
        }
        if Self.bit(mask, SmallVocabulary.control) { FuzzEntry.violation("empty control token allowed") }
        for t in n..<(mask.count * 64) where Self.bit(mask, t) { FuzzEntry.violation("bit \(t) set past the vocabulary") }
        if !matcher.isLive && mask.contains(where: { $0 != 0 }) { FuzzEntry.violation("dead or terminated matcher allows tokens") }
        return mask
    }

    /// The allowed token ids of the current mask.
    var allowed: [Int] {
        let mask = masks[masks.count - 1]
        return (0..<vocabulary.size).filter { Self.bit(mask, $0) }
    }

    /// Accepts an allowed token chosen by `choice` (no-op when nothing is allowed); returns false then.
    @discardableResult
    public func acceptAllowed(_ choice: Int, preferContent: Bool = true) -> Bool {
        var candidates = allowed
        if preferContent, candidates.count > 1 { candidates.removeAll { $0 == SmallVocabulary.endOfGeneration } }
        guard !candidates.isEmpty else { return false }
        return accept(candidates[choice % candidates.count])
    }

    /// Offers `token` and checks the answer against the mask; returns whether it was accepted.
    @discardableResult
    public func accept(_ token: Int) -> Bool {
        let before = masks[masks.count - 1]
        let expected = token >= 0 && token < vocabulary.size && Self.bit(before, token)
        let got = matcher.accept(token: token)
        if got != expected { FuzzEntry.violation("accept(\(token)) returned \(got), mask said \(expected) after \(steps)") }
        if got {
            steps.append(.token(token))
            masks.append(checkedMask())
        } else if checkedMask() != before {
            FuzzEntry.violation("a refused token changed the state")
        }
        if matcher.acceptedCount != steps.count { FuzzEntry.violation("acceptedCount \(matcher.acceptedCount) != \(steps.count)") }
        return got
    }

    /// Accepts the forced bytes as one step, after checking every allowed token agrees with them.
    public func acceptForced() {
        let forced = matcher.forcedBytes(limit: 64)
        guard !forced.isEmpty else { return }
        for t in allowed where t != SmallVocabulary.endOfGeneration {
            let b = SmallVocabulary.tokens[t]
            if !zip(b, forced).allSatisfy({ $0 == $1 }) {
                FuzzEntry.violation("token \(t) \(b) is allowed but the forced bytes are \(forced)")
            }
        }
        guard matcher.accept(bytes: forced) else { FuzzEntry.violation("forced bytes \(forced) were refused") }
        steps.append(.bytes(forced))
        masks.append(checkedMask())
    }

    /// Undoes `k` steps and checks the mask is the one remembered at that depth.
    public func rollback(_ k: Int) {
        let n = min(k, steps.count)
        matcher.rollback(k)
        steps.removeLast(n)
        masks.removeLast(n)
        if checkedMask() != masks[masks.count - 1] { FuzzEntry.violation("rollback(\(k)) did not restore the mask") }
    }

    /// Checks a fork answers like the original.
    public func checkFork() {
        let f = matcher.fork()
        var m = [UInt64](repeating: 0, count: f.maskWordCount)
        f.mask(into: &m)
        if m != masks[masks.count - 1] { FuzzEntry.violation("a fork has a different mask") }
    }

    /// Checks a matcher with cold caches, replaying the same steps, reaches the same mask.
    public func checkReplay() {
        let cold = GrammarMatcher(grammar: grammar, vocabulary: vocabulary)
        for s in steps {
            let ok: Bool
            switch s {
            case .token(let t): ok = cold.accept(token: t)
            case .bytes(let b): ok = cold.accept(bytes: b)
            }
            if !ok { FuzzEntry.violation("a cold matcher refused step \(s) of \(steps)") }
        }
        var m = [UInt64](repeating: 0, count: cold.maskWordCount)
        cold.mask(into: &m)
        if m != masks[masks.count - 1] { FuzzEntry.violation("a cold matcher's mask differs after \(steps)") }
    }

    /// A seeded walk of up to `count` allowed tokens with the checks above, for compiler targets.
    public static func walk(_ grammar: Grammar, seed: UInt64, count: Int) {
        let m = CheckedMatcher(grammar)
        var state = seed
        func next() -> Int {
            state &+= 0x9E37_79B9_7F4A_7C15
            var z = state
            z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
            z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
            return Int(truncatingIfNeeded: (z ^ (z >> 31)) >> 1)
        }
        for i in 0..<count {
            if i == count / 2 { m.acceptForced() } else if !m.acceptAllowed(next()) { break }
        }
        m.checkFork()
        m.checkReplay()
    }
}

/// FNV-1a of the input, to seed walks deterministically from it.
public func fuzzHash(_ bytes: [UInt8]) -> UInt64 {
    var h: UInt64 = 0xCBF2_9CE4_8422_2325
    for b in bytes { h = (h ^ UInt64(b)) &* 0x100_0000_01B3 }
    return h
}

/// Deepest bracket nesting in `bytes` (`[{(`), a cheap bound on how deep a parser may recurse.
public func bracketDepth(_ bytes: [UInt8]) -> Int {
    var depth = 0, deepest = 0
    for b in bytes {
        switch b {
        case 0x5B, 0x7B, 0x28: depth += 1; deepest = max(deepest, depth)
        case 0x5D, 0x7D, 0x29: depth = max(0, depth - 1)
        default: break
        }
    }
    return deepest
}
