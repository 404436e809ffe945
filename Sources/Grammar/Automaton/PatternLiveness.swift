import LoomJSON

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
        if dfa.isTotal { return true }
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
            for (b, to) in PatternLiveness.utf8Next[at].enumerated() where to >= 0 {
                let t = dfa.next(q, UInt8(b))
                let next = Int(t) * PatternLiveness.positions + Int(to)
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

    /// Per UTF-8 position (see `position(need:lo:hi:)`), the position each byte leads to (-1: the
    /// byte cannot come there), followed from every lead byte `UTF8LeadByte` knows.
    static let utf8Next: [[Int8]] = {
        var table = [[Int8]](repeating: [Int8](repeating: -1, count: 256), count: positions)
        for b in 0..<256 {
            guard let lead = UTF8LeadByte(UInt8(b)) else { continue }
            var need = Int32(lead.continuationCount)
            var range = lead.firstContinuation
            var at = position(need: need, lo: Int32(range.lowerBound), hi: Int32(range.upperBound))
            table[0][b] = Int8(at)
            while need > 0 {
                need -= 1
                let next = position(need: need, lo: 0x80, hi: 0xBF)
                for c in range { table[at][Int(c)] = Int8(next) }
                at = next
                range = 0x80...0xBF
            }
        }
        return table
    }()
    static let positions = 8
}
