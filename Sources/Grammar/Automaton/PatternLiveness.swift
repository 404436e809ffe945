/// Per-state facts about a string pattern's DFA that masks ask again and again: whether the
/// pattern can still die from a state, and whether one more character can keep it alive.
///
/// String content reaches a pattern as the UTF-8 of whole scalars (raw characters, and escapes
/// decoded), so both questions range over scalar sequences, not arbitrary bytes: a state that
/// rejects a stray continuation byte but takes every character is still *universal*. From a
/// universal state the pattern no longer constrains which tokens may follow inside the string
/// (only whether the string may close), so its isolated masks are those of a plain string, which
/// every schema shares. Patterns such as `^/`, `^[^/]` or an object key's "any other name" branch
/// spend almost all of their states there.
final class PatternLiveness {
    private let dfa: ByteDFA
    // Unchecked exclusivity, as in `GrammarAutomaton`, whose thread this belongs to.
    /// Per state and UTF-8 position (`state * 8 + position`): 1 when no way of finishing the
    /// current character and going on with any scalars leads the pattern to a dead transition,
    /// 0 when one does, -1 not yet asked.
    @exclusivity(unchecked) private var universal: [Int8]
    /// Per state: 1 when some scalar keeps the pattern live, 0 when none does, -1 not yet asked.
    @exclusivity(unchecked) private var oneScalarLive: [Int8]
    /// Per pair: the search that last saw it.
    @exclusivity(unchecked) private var seenIn: [UInt32]
    @exclusivity(unchecked) private var searches: UInt32 = 0

    init(_ dfa: ByteDFA) {
        self.dfa = dfa
        universal = Array(repeating: -1, count: dfa.stateCount * PatternLiveness.positions)
        oneScalarLive = Array(repeating: -1, count: dfa.stateCount)
        seenIn = Array(repeating: 0, count: dfa.stateCount * PatternLiveness.positions)
    }

    /// Whether the pattern can no longer die from `state` at UTF-8 `position` (see `position(need:lo:hi:)`).
    ///
    /// A depth-first search of the (state, position) pairs reachable from this one that stops at
    /// the first dead transition: most states of a constraining pattern refuse some byte at once,
    /// and only a universal state's search sees everything it reaches, all of which is then
    /// universal too and remembered.
    func isUniversal(_ state: Int32, at position: Int) -> Bool {
        let start = Int(state) * PatternLiveness.positions + position
        if universal[start] >= 0 { return universal[start] == 1 }
        // Stamps instead of a set: a universal search may see every pair of a large pattern.
        searches &+= 1
        let stamp = searches
        seenIn[start] = stamp
        var seen = [start]
        var work = [start]
        while let p = work.popLast() {
            if universal[p] == 1 { continue }
            let q = Int32(p / PatternLiveness.positions), at = p % PatternLiveness.positions
            for e in PatternLiveness.utf8Edges where e.from == at {
                for b in e.lo...e.hi {
                    let t = dfa.next(q, UInt8(b))
                    let next = Int(t) * PatternLiveness.positions + e.to
                    if t < 0 || universal[next] == 0 {
                        universal[start] = 0
                        return false
                    }
                    if seenIn[next] != stamp {
                        seenIn[next] = stamp
                        seen.append(next)
                        work.append(next)
                    }
                }
            }
        }
        for p in seen { universal[p] = 1 }
        return true
    }

    /// The UTF-8 position of a string frame that still needs `need` continuation bytes, the next
    /// one in `lo...hi` (the string aux slots 1–3).
    static func position(need: Int32, lo: Int32, hi: Int32) -> Int {
        switch need {
        case 0: return 0
        case 1: return 1
        case 2: return lo == 0xA0 ? 4 : hi == 0x9F ? 5 : 2
        default: return lo == 0x90 ? 6 : hi == 0x8F ? 7 : 3
        }
    }

    /// Whether some scalar (its whole UTF-8 encoding) keeps the pattern live from `state`: the
    /// question a backslash asks before any escape is written. Memoised per state.
    func someScalarLive(from state: Int32) -> Bool {
        let q = Int(state)
        if isUniversal(state, at: 0) { return true }
        if oneScalarLive[q] >= 0 { return oneScalarLive[q] == 1 }
        let dfa = self.dfa
        let live = someScalarIsLive(0, 0x10FFFF, from: state) { s, b in
            let t = dfa.next(s, b)
            return t >= 0 ? t : nil
        }
        oneScalarLive[q] = live ? 1 : 0
        return live
    }

    /// Positions inside a UTF-8 encoding, with the bytes each takes and where they lead: 0 is
    /// between scalars; 1, 2, 3 need that many more continuation bytes; 4–7 follow the lead bytes
    /// E0, ED, F0 and F4, whose first continuation byte is narrower (no overlong forms, no
    /// surrogates, nothing past U+10FFFF).
    private static let utf8Edges: [(from: Int, lo: Int, hi: Int, to: Int)] = [
        (0, 0x00, 0x7F, 0), (0, 0xC2, 0xDF, 1), (0, 0xE0, 0xE0, 4), (0, 0xE1, 0xEC, 2), (0, 0xED, 0xED, 5),
        (0, 0xEE, 0xEF, 2), (0, 0xF0, 0xF0, 6), (0, 0xF1, 0xF3, 3), (0, 0xF4, 0xF4, 7),
        (1, 0x80, 0xBF, 0), (2, 0x80, 0xBF, 1), (3, 0x80, 0xBF, 2),
        (4, 0xA0, 0xBF, 1), (5, 0x80, 0x9F, 1), (6, 0x90, 0xBF, 2), (7, 0x80, 0x8F, 2),
    ]
    private static let positions = 8
}
