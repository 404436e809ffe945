/// Whether several string frames read at the same place take, together, every string: then the
/// union of their isolated masks is the plain string's mask, and no walk is needed.
///
/// An object key under `patternProperties` and `additionalProperties` is a set of frames (one per
/// pattern, one for "any other name") whose languages cover every name between them, yet each
/// frame alone can die, so each walked the whole trie. Together they cannot all die: a breadth-
/// first search over the frames' joint pattern states, following the UTF-8 encodings of
/// characters (`PatternLiveness`'s positions), looks for a continuation that kills every frame,
/// and finds none. The search is capped; running out of it answers no (the frames are then walked).
enum JointStringLiveness {
    /// Joint states the search may visit.
    static let maxStates = 4096

    /// True when, from these frames' states, every continuation of characters keeps at least one
    /// frame live. The frames must stand at the same place between or inside a character (the
    /// caller checks their string states agree), with no `maxLength` a token could reach.
    static func isUniversal(_ frames: [(spec: StringWalkSpec, state: StringWalkState)]) -> Bool {
        guard let first = frames.first, first.state.phase == 1 else { return false }
        // A frame without patterns never dies.
        if frames.contains(where: { $0.spec.dfaCount == 0 }) { return true }
        let lanes = frames.count
        // A joint state: every frame's pattern states (4 slots each, -1 once the frame died),
        // then the UTF-8 position.
        var start = [Int32](repeating: -1, count: lanes * 4 + 1)
        for (k, f) in frames.enumerated() {
            for j in 0..<f.spec.dfaCount { start[k * 4 + j] = f.state.dfa[j] }
        }
        start[lanes * 4] = Int32(PatternLiveness.position(need: first.state.need, lo: first.state.lo, hi: first.state.hi))
        var seen: Set<[Int32]> = [start]
        var work = [start]
        while let cur = work.popLast() {
            let at = Int(cur[lanes * 4])
            for (b, to) in PatternLiveness.utf8Next[at].enumerated() where to >= 0 {
                var next = cur
                next[lanes * 4] = Int32(to)
                var anyLive = false
                for (k, f) in frames.enumerated() {
                    let base = k * 4
                    // A frame whose first slot is -1 has died.
                    if cur[base] < 0 { continue }
                    var live = true
                    for j in 0..<f.spec.dfaCount {
                        let t = f.spec.table(j)[Int(cur[base + j]) &* 256 &+ b]
                        if t < 0 { live = false; break }
                        next[base + j] = t
                    }
                    if live {
                        anyLive = true
                    } else {
                        for j in 0..<4 { next[base + j] = -1 }
                    }
                }
                if !anyLive { return false }
                if seen.insert(next).inserted {
                    if seen.count > maxStates { return false }
                    work.append(next)
                }
            }
        }
        return true
    }
}
