/// Several string frames standing at one place, joined into one frame whose pattern is the union
/// of theirs.
///
/// An object key under several `patternProperties` (or a pattern beside "any other name" that
/// excludes some names) is a set of frames, one per pattern, that do not cover every name between
/// them (`JointStringLiveness` fails), so their masks need a walk of the trie. Walked as separate
/// lanes each trie node advances every frame; joined, a node is one table load, and the joined
/// pattern is an ordinary pattern to the subtree memo, so the masks of later positions in the
/// same key share subtrees with earlier ones. The join is the product of the frames' patterns
/// (a frame dies when any of its own patterns does; the product dies when every frame has), trimmed
/// and minimised, built once per set of patterns from the first joint state seen.
struct PatternUnion {
    /// The joined pattern, numbered after the grammar's own (`GrammarAutomaton.pattern(_:)`).
    let id: Int32
    /// Joint states of the frames' patterns (each frame's slots, -1 once it died) → state of the join.
    let index: [[Int32]: Int32]
}

extension GrammarAutomaton {
    /// Product states a join may have before it is given up (the frames are then walked as lanes).
    static let maxUnionStates = 4096
    /// Joins built per set of patterns (each from a joint state no earlier join reached).
    static let maxUnionsPerKey = 4

    /// One frame that takes exactly the tokens that at least one of `frames` takes, or nil when the
    /// frames do not stand at the same place or their product is too large. The caller checked that
    /// no `maxLength` is within a token's reach and that the frames decode alike (`plainKey`).
    func unionFrame(_ frames: [(spec: StringWalkSpec, state: StringWalkState)]) -> (spec: StringWalkSpec, state: StringWalkState)? {
        var laneKey: [Int32] = []
        var joint: [Int32] = []
        for f in frames {
            laneKey.append(Int32(f.spec.dfaCount))
            for k in 0..<f.spec.dfaCount {
                laneKey.append(f.spec.dfaIds[k])
                joint.append(f.state.dfa[k])
            }
        }
        let built = unions[laneKey, default: []]
        var found = built.lazy.compactMap { u in u.index[joint].map { (id: u.id, state: $0) } }.first
        if found == nil, built.count < GrammarAutomaton.maxUnionsPerKey, let u = buildUnion(frames.map(\.spec), from: joint) {
            unions[laneKey, default: []].append(u)
            found = u.index[joint].map { (id: u.id, state: $0) }
        }
        guard let found else { return nil }
        var spec = StringWalkSpec()
        spec.tracksValue = frames[0].spec.tracksValue
        spec.dfaCount = 1
        spec.dfaIds[0] = found.id
        spec.tables.0 = UnsafePointer(dfaTable(found.id))
        spec.firstLoops = dfaLoops(found.id)
        var state = frames[0].state
        state.length = 0
        state.dfa = SIMD4(repeating: 0)
        state.dfa[0] = found.state
        return (spec, state)
    }

    /// The product of the frames' patterns from joint state `start`, as a minimal DFA registered
    /// among the automaton's patterns; nil when it has more than `maxUnionStates` states.
    private func buildUnion(_ specs: [StringWalkSpec], from start: [Int32]) -> PatternUnion? {
        // Slot ranges per frame in a joint state.
        var first: [Int] = [], count: [Int] = []
        for s in specs {
            first.append(first.isEmpty ? 0 : first.last! + count.last!)
            count.append(s.dfaCount)
        }
        // Bytes every pattern treats alike are explored once: the joint groups of their columns.
        var groupOf = [Int](repeating: 0, count: 256)
        var representatives: [UInt8] = []
        do {
            let perPattern = specs.flatMap { s in
                (0..<s.dfaCount).map { ByteDFA.columnGroups(s.table($0), stateCount: pattern(s.dfaIds[$0]).stateCount).groupOf }
            }
            var joint: [[Int]: Int] = [:]
            for b in 0..<256 {
                let key = perPattern.map { $0[b] }
                if let g = joint[key] {
                    groupOf[b] = g
                } else {
                    groupOf[b] = representatives.count
                    joint[key] = representatives.count
                    representatives.append(UInt8(b))
                }
            }
        }
        var groupTrans = [Int32](repeating: -1, count: representatives.count)
        var ids: [[Int32]: Int32] = [start: 0]
        var joints = [start]
        var rawTrans: [Int32] = []
        var rawAccepting: [Bool] = []
        var k = 0
        while k < joints.count {
            let cur = joints[k]
            k += 1
            var accepting = false
            for (f, s) in specs.enumerated() where count[f] == 0 || cur[first[f]] >= 0 {
                var all = true
                for j in 0..<count[f] where !pattern(s.dfaIds[j]).accepting[Int(cur[first[f] + j])] { all = false; break }
                if all { accepting = true; break }
            }
            rawAccepting.append(accepting)
            for (g, rep) in representatives.enumerated() {
                let b = Int(rep)
                var next = cur
                var anyLive = false
                for (f, s) in specs.enumerated() {
                    if count[f] == 0 { anyLive = true; continue }
                    if cur[first[f]] < 0 { continue }
                    var live = true
                    for j in 0..<count[f] {
                        let t = s.table(j)[Int(cur[first[f] + j]) &* 256 &+ b]
                        if t < 0 { live = false; break }
                        next[first[f] + j] = t
                    }
                    if live {
                        anyLive = true
                    } else {
                        for j in 0..<count[f] { next[first[f] + j] = -1 }
                    }
                }
                guard anyLive else {
                    groupTrans[g] = -1
                    continue
                }
                if let id = ids[next] {
                    groupTrans[g] = id
                } else {
                    if joints.count >= GrammarAutomaton.maxUnionStates { return nil }
                    ids[next] = Int32(joints.count)
                    groupTrans[g] = Int32(joints.count)
                    joints.append(next)
                }
            }
            for b in 0..<256 { rawTrans.append(groupTrans[groupOf[b]]) }
        }
        let dfa = ByteDFA(rawTrans: rawTrans, rawAccepting: rawAccepting).minimized(byteGroups: representatives)
        guard !dfa.isEmpty else { return nil }
        // Each raw state's state in the minimal DFA: walk both in step from their starts.
        var image = [Int32](repeating: -1, count: joints.count)
        image[0] = 0
        var work: [Int32] = [0]
        while let r = work.popLast() {
            let q = image[Int(r)]
            for b in 0..<256 {
                let rn = rawTrans[Int(r) * 256 + b]
                guard rn >= 0, image[Int(rn)] < 0 else { continue }
                let qn = dfa.next(q, UInt8(b))
                guard qn >= 0 else { continue }
                image[Int(rn)] = qn
                work.append(rn)
            }
        }
        var index: [[Int32]: Int32] = [:]
        for (r, j) in joints.enumerated() where image[r] >= 0 { index[j] = image[r] }
        let id = Int32(dfas.count + unionDFAs.count)
        unionDFAs.append(dfa)
        return PatternUnion(id: id, index: index)
    }
}
