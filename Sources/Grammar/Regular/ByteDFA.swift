/// A deterministic automaton over bytes, trimmed so that every state can still reach acceptance.
///
/// Regex patterns, formats, GBNF character classes and "key not in this set" constraints all
/// become `ByteDFA`s. Trimming is what makes masks tight: a byte is allowed only if some
/// continuation can still be accepted, so a mask never admits a dead end.
struct ByteDFA: Sendable, Hashable {
    /// `state * 256 + byte` → next state, or -1 (dead).
    let trans: [Int32]
    /// Whether each state accepts.
    let accepting: [Bool]
    /// Whether each state has at least one live outgoing byte.
    let hasOutgoing: [Bool]
    /// Whether every state takes every byte: the pattern can never die, only decide whether the
    /// string may end (a key's "any name but these" is such a pattern).
    let isTotal: Bool
    /// A digest of the table (`InternTable`'s mix), so that interning a DFA (grammars keep one
    /// copy of each) hashes one word: hashing every transition through `Hasher` was a quarter of
    /// compiling schemas with many "key not in this set" patterns.
    private let digest: UInt32

    static func == (a: ByteDFA, b: ByteDFA) -> Bool {
        a.digest == b.digest && a.accepting == b.accepting && a.trans == b.trans
    }

    func hash(into hasher: inout Hasher) { hasher.combine(digest) }

    private static func digest(_ trans: [Int32], _ accepting: [Bool]) -> UInt32 {
        let accepted = accepting.indices.filter { accepting[$0] }.map { Int32($0) }
        return InternTable.hash(trans, seed: InternTable.hash(accepted, seed: 0))
    }

    /// Number of live states; 0 means the language is empty. The start state is 0.
    var stateCount: Int { accepting.count }
    var isEmpty: Bool { accepting.isEmpty }

    @inline(__always) func next(_ s: Int32, _ b: UInt8) -> Int32 { trans[Int(s) &* 256 &+ Int(b)] }

    /// True when the whole byte string is in the language.
    func matches(_ bytes: [UInt8]) -> Bool {
        guard !isEmpty else { return false }
        var s: Int32 = 0
        for b in bytes {
            s = next(s, b)
            if s < 0 { return false }
        }
        return accepting[Int(s)]
    }

    /// Builds from an untrimmed complete-or-partial table, dropping states that cannot reach acceptance
    /// and renumbering so that the start state is 0.
    init(rawTrans: [Int32], rawAccepting: [Bool]) {
        let n = rawAccepting.count
        // Reversed edges in compressed rows (one array, not an array per state): count, then fill.
        var start = [Int32](repeating: 0, count: n + 1)
        rawTrans.withUnsafeBufferPointer { raw in
            for i in 0..<(n * 256) where raw[i] >= 0 { start[Int(raw[i]) + 1] += 1 }
        }
        for s in 0..<n { start[s + 1] += start[s] }
        var fill = Array(start[0..<n])
        var from = [Int32](repeating: 0, count: Int(start[n]))
        rawTrans.withUnsafeBufferPointer { raw in
            for i in 0..<(n * 256) where raw[i] >= 0 {
                let t = Int(raw[i])
                from[Int(fill[t])] = Int32(i >> 8)
                fill[t] += 1
            }
        }
        var live = rawAccepting
        var work = (0..<n).filter { rawAccepting[$0] }
        while let s = work.popLast() {
            for k in Int(start[s])..<Int(start[s + 1]) {
                let p = Int(from[k])
                if !live[p] {
                    live[p] = true
                    work.append(p)
                }
            }
        }
        // Renumber live states reachable from the start in BFS order. (Raw buffers: these loops
        // run states × 256 times for every pattern and key set a schema compiles.)
        var newId = [Int32](repeating: -1, count: n)
        var order: [Int] = []
        if n > 0, live[0] {
            newId[0] = 0
            order.append(0)
            rawTrans.withUnsafeBufferPointer { raw in
                newId.withUnsafeMutableBufferPointer { ids in
                    var k = 0
                    while k < order.count {
                        let row = order[k] * 256
                        k += 1
                        for b in 0..<256 {
                            let t = Int(raw[row + b])
                            if t >= 0, ids[t] < 0, live[t] {
                                ids[t] = Int32(order.count)
                                order.append(t)
                            }
                        }
                    }
                }
            }
        }
        var trans = [Int32](repeating: -1, count: order.count * 256)
        var acc = [Bool](repeating: false, count: order.count)
        var out = [Bool](repeating: false, count: order.count)
        rawTrans.withUnsafeBufferPointer { raw in
            newId.withUnsafeBufferPointer { ids in
                trans.withUnsafeMutableBufferPointer { dst in
                    for (i, s) in order.enumerated() {
                        acc[i] = rawAccepting[s]
                        var any = false
                        for b in 0..<256 {
                            let t = Int(raw[s * 256 + b])
                            if t >= 0, ids[t] >= 0 {
                                dst[i * 256 + b] = ids[t]
                                any = true
                            }
                        }
                        out[i] = any
                    }
                }
            }
        }
        self.trans = trans
        self.isTotal = !trans.contains(-1)
        self.accepting = acc
        self.hasOutgoing = out
        digest = ByteDFA.digest(trans, acc)
    }

    /// The complement over all byte strings (callers intersect with valid UTF-8 elsewhere).
    var complement: ByteDFA {
        let n = stateCount
        let sink = Int32(n)
        var t = [Int32](repeating: sink, count: (n + 1) * 256)
        var acc = [Bool](repeating: true, count: n + 1)
        for s in 0..<n {
            acc[s] = !accepting[s]
            for b in 0..<256 {
                let x = trans[s * 256 + b]
                t[s * 256 + b] = x >= 0 ? x : sink
            }
        }
        return ByteDFA(rawTrans: t, rawAccepting: acc)
    }

    /// Every byte string except the given ones.
    static func excluding(_ words: [[UInt8]]) -> ByteDFA {
        // The words' trie; falling off it reaches an accepting sink.
        let (trie, terminal) = wordTrie(words)
        var t = trie
        let sink = Int32(terminal.count)
        for i in 0..<t.count where t[i] < 0 { t[i] = sink }
        t.append(contentsOf: repeatElement(sink, count: 256))
        return ByteDFA(rawTrans: t, rawAccepting: terminal.map { !$0 } + [true])
    }

    /// Exactly the given byte strings.
    static func words(_ words: [[UInt8]]) -> ByteDFA {
        let (t, terminal) = wordTrie(words)
        return ByteDFA(rawTrans: t, rawAccepting: terminal)
    }

    /// The trie of `words` as a transition table (-1 where no word continues) and, per state,
    /// whether a word ends there.
    private static func wordTrie(_ words: [[UInt8]]) -> (trans: [Int32], terminal: [Bool]) {
        var t: [Int32] = Array(repeating: -1, count: 256)
        var terminal: [Bool] = [false]
        for w in words {
            var s = 0
            for b in w {
                var x = t[s * 256 + Int(b)]
                if x < 0 {
                    x = Int32(terminal.count)
                    terminal.append(false)
                    t.append(contentsOf: repeatElement(-1, count: 256))
                    t[s * 256 + Int(b)] = x
                }
                s = Int(x)
            }
            terminal[s] = true
        }
        return (t, terminal)
    }

    /// Most state pairs `disjoint` explores: two 20,000-state DFAs have 400 million.
    static let maxDisjointPairs = 1_000_000

    /// True when no byte string is accepted by both; false also when that is not proved within
    /// `maxDisjointPairs` pairs (callers treat the two as overlapping, which is always sound).
    static func disjoint(_ a: ByteDFA, _ b: ByteDFA) -> Bool {
        if a.isEmpty || b.isEmpty { return true }
        var seen: Set<Int64> = [0]
        var work: [(Int32, Int32)] = [(0, 0)]
        while let (x, y) = work.popLast() {
            if seen.count > maxDisjointPairs { return false }
            if a.accepting[Int(x)] && b.accepting[Int(y)] { return false }
            for c in 0..<256 {
                let nx = a.trans[Int(x) * 256 + c], ny = b.trans[Int(y) * 256 + c]
                if nx >= 0, ny >= 0 {
                    let key = Int64(nx) << 32 | Int64(ny)
                    if seen.insert(key).inserted { work.append((nx, ny)) }
                }
            }
        }
        return true
    }
}

/// A Thompson NFA over bytes, determinised into a `ByteDFA`.
struct ByteNFA {
    var eps: [[Int32]] = []
    var edges: [[(ClosedRange<UInt8>, Int32)]] = []
    /// Guard against patterns like `(a{1000}){1000}`.
    static let maxStates = 200_000
    static let maxDFAStates = 20_000
    /// Most NFA states the subset construction may scan and close over in total (one to two
    /// seconds of work). The two caps above bound memory, not time: each DFA state can hold tens
    /// of thousands of NFA states, so the 19-byte `(\d{0,300}){0,300}` (90,000 NFA states) was
    /// still building DFA states after 90 s of CPU (docs/reliability.md, fuzzing finding 5). Every
    /// MaskBench pattern and format regex that compiled without this budget still does.
    static let maxDeterminizeWork = 100_000_000
    /// Most subset-construction work all the patterns of one schema may spend together, failed
    /// attempts included: the per-pattern cap alone let a schema with many hostile patterns (or
    /// patterns probed and dropped, as the `oneOf` proofs do) take a second per pattern.
    static let maxSchemaDeterminizeWork = 300_000_000

    mutating func newState() throws(GrammarError) -> Int32 {
        if eps.count >= ByteNFA.maxStates {
            throw GrammarError(.limit, keyword: "pattern", pointer: "", "regex expands to too many states")
        }
        eps.append([])
        edges.append([])
        return Int32(eps.count - 1)
    }

    /// Adds a path from `from` to `to` accepting exactly the UTF-8 encodings of the class.
    mutating func addClass(_ c: CharClass, from: Int32, to: Int32) throws(GrammarError) {
        for seq in c.utf8Sequences {
            var s = from
            for (k, r) in seq.enumerated() {
                let t = k == seq.count - 1 ? to : try newState()
                edges[Int(s)].append((r, t))
                s = t
            }
        }
    }

    mutating func addBytes(_ r: ClosedRange<UInt8>, from: Int32, to: Int32) {
        edges[Int(from)].append((r, to))
    }

    private func closure(_ set: inout [Int32], _ mark: inout [UInt32], _ stamp: UInt32) {
        var k = 0
        for s in set { mark[Int(s)] = stamp }
        while k < set.count {
            let s = set[k]
            k += 1
            for t in eps[Int(s)] where mark[Int(t)] != stamp {
                mark[Int(t)] = stamp
                set.append(t)
            }
        }
        set.sort()
    }

    /// Subset construction over byte equivalence classes.
    func determinize(start: Int32, accept: Int32) throws(GrammarError) -> ByteDFA {
        var unlimited = Int.max
        return try determinize(start: start, accept: accept, sharedBudget: &unlimited)
    }

    /// Subset construction, also charging its work against `sharedBudget` (on failure too).
    func determinize(start: Int32, accept: Int32, sharedBudget: inout Int) throws(GrammarError) -> ByteDFA {
        // Byte classes: bytes that no edge distinguishes behave identically.
        var boundary = [Bool](repeating: false, count: 257)
        boundary[0] = true
        boundary[256] = true
        for list in edges { for (r, _) in list { boundary[Int(r.lowerBound)] = true; boundary[Int(r.upperBound) + 1] = true } }
        var classStart: [Int] = []
        for b in 0..<256 where boundary[b] { classStart.append(b) }
        var classEnd: [Int] = []
        for (i, s) in classStart.enumerated() { classEnd.append(i + 1 < classStart.count ? classStart[i + 1] - 1 : 255); _ = s }

        var mark = [UInt32](repeating: 0, count: eps.count)
        var stamp: UInt32 = 1
        var startSet = [start]
        closure(&startSet, &mark, stamp)
        var ids: [[Int32]: Int32] = [startSet: 0]
        var sets: [[Int32]] = [startSet]
        var trans: [Int32] = []
        var acc: [Bool] = []
        var k = 0
        var work = 0
        let budgetAtStart = sharedBudget
        defer { sharedBudget = budgetAtStart - min(work, budgetAtStart) }
        while k < sets.count {
            let cur = sets[k]
            k += 1
            acc.append(cur.contains(accept))
            var row = [Int32](repeating: -1, count: 256)
            var curEdges = 0
            for s in cur { curEdges += edges[Int(s)].count }
            for (ci, lo) in classStart.enumerated() {
                let b = UInt8(lo)
                var next: [Int32] = []
                stamp &+= 1
                for s in cur {
                    for (r, t) in edges[Int(s)] where r.contains(b) && mark[Int(t)] != stamp {
                        mark[Int(t)] = stamp
                        next.append(t)
                    }
                }
                work += cur.count + curEdges
                if next.isEmpty { continue }
                stamp &+= 1
                closure(&next, &mark, stamp)
                // Closing over `next`, then hashing it to find its DFA state, costs its size again.
                work += 2 * next.count
                if work > ByteNFA.maxDeterminizeWork {
                    throw GrammarError(.limit, keyword: "pattern", pointer: "",
                                       "regex needs more than \(ByteNFA.maxDeterminizeWork) steps to determinize")
                }
                if work > budgetAtStart {
                    throw GrammarError(.limit, keyword: "pattern", pointer: "",
                                       "the schema's patterns need more than \(ByteNFA.maxSchemaDeterminizeWork) steps to determinize in all")
                }
                var id = ids[next]
                if id == nil {
                    if sets.count >= ByteNFA.maxDFAStates {
                        throw GrammarError(.limit, keyword: "pattern", pointer: "", "regex needs more than \(ByteNFA.maxDFAStates) DFA states")
                    }
                    id = Int32(sets.count)
                    ids[next] = id
                    sets.append(next)
                }
                for x in lo...classEnd[ci] { row[x] = id! }
            }
            trans.append(contentsOf: row)
        }
        // Every byte of a class moves every subset alike, so the classes are the byte groups.
        return ByteDFA(rawTrans: trans, rawAccepting: acc).minimized(byteGroups: classStart.map { UInt8($0) })
    }
}
