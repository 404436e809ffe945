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
    /// Per state and UTF-8 position (`state * 8 + position`): no way of finishing the current
    /// character and going on with any scalars leads the pattern to a dead transition.
    private let universal: [Bool]
    /// Per state: 1 when some scalar keeps the pattern live, 0 when none does, -1 not yet asked.
    private var oneScalarLive: [Int8]

    /// Patterns with more states are not analysed (every state reads as not universal): the
    /// analysis walks states × UTF-8 positions × bytes once, and such a pattern's isolated masks
    /// are walked in full anyway.
    static let maxStates = 4096

    init(_ dfa: ByteDFA) {
        self.dfa = dfa
        oneScalarLive = Array(repeating: -1, count: dfa.stateCount)
        universal = dfa.stateCount <= PatternLiveness.maxStates
            ? PatternLiveness.universalStates(dfa) : Array(repeating: false, count: dfa.stateCount * PatternLiveness.positions)
    }

    /// Whether the pattern can no longer die from `state` at UTF-8 `position` (see `position(need:lo:hi:)`).
    func isUniversal(_ state: Int32, at position: Int) -> Bool {
        universal[Int(state) * PatternLiveness.positions + position]
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

    /// A pair (state, position) is doomed when a byte the position takes is dead from the state,
    /// or leads to a doomed pair; universal pairs are the others. Doom spreads backwards from the
    /// dead transitions over the product's reversed edges.
    private static func universalStates(_ dfa: ByteDFA) -> [Bool] {
        let n = dfa.stateCount * positions
        var doomed = [Bool](repeating: false, count: n)
        var work: [Int32] = []
        // Reversed edges in compressed rows: count, then fill.
        var start = [Int32](repeating: 0, count: n + 1)
        for q in 0..<dfa.stateCount {
            for e in utf8Edges {
                let p = q * positions + e.from
                var last: Int32 = -2
                for b in e.lo...e.hi {
                    let t = dfa.next(Int32(q), UInt8(b))
                    if t < 0 {
                        if !doomed[p] { doomed[p] = true; work.append(Int32(p)) }
                    } else if t != last {
                        start[Int(t) * positions + e.to + 1] += 1
                        last = t
                    }
                }
            }
        }
        for i in 0..<n { start[i + 1] += start[i] }
        var fill = Array(start[0..<n])
        var from = [Int32](repeating: 0, count: Int(start[n]))
        for q in 0..<dfa.stateCount {
            for e in utf8Edges {
                let p = Int32(q * positions + e.from)
                var last: Int32 = -2
                for b in e.lo...e.hi {
                    let t = dfa.next(Int32(q), UInt8(b))
                    if t >= 0 && t != last {
                        let target = Int(t) * positions + e.to
                        from[Int(fill[target])] = p
                        fill[target] += 1
                        last = t
                    }
                }
            }
        }
        while let p = work.popLast() {
            for k in Int(start[Int(p)])..<Int(start[Int(p) + 1]) {
                let s = Int(from[k])
                if !doomed[s] { doomed[s] = true; work.append(Int32(s)) }
            }
        }
        return doomed.map { !$0 }
    }
}
