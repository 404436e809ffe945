#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The lazily built deterministic automaton behind a matcher.
///
/// A matcher state is a *configuration*: the set of parser stacks still alive, each stack a
/// hash-consed chain of frames `(node, state)`. Because stacks and configurations are interned,
/// the same configuration reached twice gets the same id, and `step(cfg, byte)` is memoised in a
/// flat table (`cfg * 256 + byte`). After warm-up a token is accepted, and a whole token trie is
/// walked, with one table load per byte: no allocation, no hashing, no reference counting.
/// Misses fall back to the slow path here, which expands stacks (calls, returns, repetition) with
/// tail-call elimination so right-recursive grammars keep bounded stacks.
///
/// The tables are stored properties marked `@exclusivity(unchecked)`: the slow path touches them
/// a few dozen times per interned configuration, and runtime exclusivity checks cost an eighth
/// of a cold mask. An automaton is confined to one thread at a time (see `GrammarMatcher`) and
/// its methods never hold an access to a table across a call that mutates the same table.
final class GrammarAutomaton {
    let grammar: Grammar
    let nodes: [GrammarNode]
    let dfas: [ByteDFA]

    // Stacks: id 0 is the empty stack; id 1 a dead-end parent for isolated string frames.
    @exclusivity(unchecked) private(set) var stNode: [Int32] = [-1, -2]
    @exclusivity(unchecked) private(set) var stState: [Int32] = [0, 0]
    @exclusivity(unchecked) private(set) var stParent: [Int32] = [-1, -1]
    static let sentinel: Int32 = 1
    /// Top-frame groups of the configurations with many stacks that have stepped (`topGroups`).
    @exclusivity(unchecked) private var groupsOf: [Int32: TopGroups] = [:]
    /// Per configuration: the isolated-string configuration (-1 none, -2 not computed).
    @exclusivity(unchecked) private var isolated: [Int32] = []
    @exclusivity(unchecked) private var stackIds = InternTable(capacity: 1024)
    /// Per stack: the `closure` call that last visited it (`visitEpoch`), so a closure's visited
    /// set is a comparison, not a hash set built per call.
    @exclusivity(unchecked) private var visitedIn: [UInt32] = [0, 0]
    @exclusivity(unchecked) private var visitEpoch: UInt32 = 0

    // Node-private states (strings, numbers, objects, arrays) interned to Int32.
    @exclusivity(unchecked) private(set) var aux: [[Int32]] = []
    @exclusivity(unchecked) private var auxIds = InternTable(capacity: 1024)

    // Configurations.
    @exclusivity(unchecked) private(set) var cfgReady: [[Int32]] = []
    @exclusivity(unchecked) private(set) var cfgAccept: [Bool] = []
    @exclusivity(unchecked) private var cfgIds = InternTable(capacity: 1024)

    /// `cfg * 256 + byte` → next cfg; -1 dead, -2 not yet computed. Address space for every
    /// configuration the automaton may ever have is reserved up front (pages are only committed
    /// as rows are written), so the table never moves: growing it by copying cost tens of
    /// milliseconds in the middle of a mask once automata reached tens of thousands of states.
    let trans: UnsafeMutablePointer<Int32>
    private let transBytes: Int
    private let transMapped: Bool
    /// Configurations the table has room for.
    private let configurationLimit: Int

    /// The configuration before any input.
    private(set) var start: Int32 = -1

    /// Upper bound on stacks visited by one closure (a safety net; left recursion is refused at
    /// compile time). Exceeding it makes the transition dead, which can only reject.
    static let closureBudget = 50_000
    /// Upper bound on stack expansions over the automaton's lifetime (a few seconds of work).
    static let workBudget = 5_000_000
    /// Stack expansions done so far.
    @exclusivity(unchecked) private(set) var work_ = 0
    /// Upper bound on configurations per automaton (each costs a 1 KiB transition row).
    static let maxConfigurations = 1 << 20


    /// Per DFA: which states can still die (analysed on first use).
    @exclusivity(unchecked) private var liveness: [PatternLiveness?] = []
    /// Whether some character keeps several patterns live together, by their ids then states.
    @exclusivity(unchecked) var jointScalarLive: [[Int32]: Bool] = [:]
    /// Pattern transition tables copied to stable memory for allocation-free walks (on first use).
    @exclusivity(unchecked) private var dfaTables: [UnsafeMutablePointer<Int32>?] = []
    /// Per pattern, `dfaLoops` (on first use).
    @exclusivity(unchecked) private var dfaLoopTables: [UnsafeMutablePointer<UInt16>?] = []

    /// Patterns joined at mask time (`unionFrame`), numbered after the grammar's `dfas`.
    @exclusivity(unchecked) var unionDFAs: [ByteDFA] = []
    /// The joins built so far, by the frames' pattern ids.
    @exclusivity(unchecked) var unions: [[Int32]: [PatternUnion]] = [:]

    /// Pattern `d`: one of the grammar's, or a join built at mask time.
    func pattern(_ d: Int32) -> ByteDFA {
        Int(d) < dfas.count ? dfas[Int(d)] : unionDFAs[Int(d) - dfas.count]
    }

    /// The transition table of pattern `d` (`state * 256 + byte` → state or -1), at a fixed address.
    func dfaTable(_ d: Int32) -> UnsafeMutablePointer<Int32> {
        GrammarAutomaton.fixedCopy(&dfaTables, d) { pattern(d).trans }
    }

    /// Per state of pattern `d`, the `ByteRunClass` classes it loops on, at a fixed address.
    func dfaLoops(_ d: Int32) -> UnsafePointer<UInt16> {
        UnsafePointer(GrammarAutomaton.fixedCopy(&dfaLoopTables, d) { ByteRunClass.selfLoops(pattern(d)) })
    }

    /// Entry `d` of a per-pattern table kept at a fixed address, made by `make` on first use.
    private static func fixedCopy<T>(_ tables: inout [UnsafeMutablePointer<T>?], _ d: Int32,
                                     _ make: () -> [T]) -> UnsafeMutablePointer<T> {
        if tables.count <= Int(d) { tables.append(contentsOf: repeatElement(nil, count: Int(d) + 1 - tables.count)) }
        if let t = tables[Int(d)] { return t }
        let src = make()
        let t = UnsafeMutablePointer<T>.allocate(capacity: max(src.count, 1))
        t.initialize(from: src, count: src.count)
        tables[Int(d)] = t
        return t
    }

    /// What pattern `d`'s states still constrain (see `PatternLiveness`).
    func patternLiveness(_ d: Int32) -> PatternLiveness {
        if liveness.isEmpty { liveness = Array(repeating: nil, count: dfas.count) }
        if let l = liveness[Int(d)] { return l }
        let l = PatternLiveness(dfas[Int(d)])
        liveness[Int(d)] = l
        return l
    }

    /// Whether pattern `k` of `spec` can no longer die in string aux state `a`: its state is in
    /// slot 8 + k, and slots 1–3 say where inside a character's encoding the frame stands.
    func patternIsUniversal(_ spec: StringSpec, _ k: Int, in a: [Int32]) -> Bool {
        patternLiveness(spec.dfas[k]).isUniversal(a[8 + k], at: PatternLiveness.position(need: a[1], lo: a[2], hi: a[3]))
    }

    /// Trie subtrees isolated string walks have taken, shared across pattern states.
    let stringSubtrees = StringSubtreeMemo()

    /// The longest token of the vocabulary the masks are computed over (set by the matcher before
    /// the first mask; isolated string states are canonicalised relative to it).
    var isolationTokenBytes = Int(Int32.max / 2)

    // Number slices (see GrammarAutomaton+NumberSlices.swift).
    /// Per configuration: index into `numberSlices`, -1 when it has no sliceable number frame, -2 not computed.
    @exclusivity(unchecked) var sliceIndex: [Int32] = []
    @exclusivity(unchecked) var numberSlices: [NumberSlice] = []
    /// Per parent stack: whether nothing after the number frame returns to it can start with a number byte.
    @exclusivity(unchecked) var followAvoidsNumberBytes: [Int32: Bool] = [:]

    init(_ grammar: Grammar) {
        self.grammar = grammar
        nodes = grammar.nodes
        dfas = grammar.dfas
        let want = GrammarAutomaton.maxConfigurations * 256 * MemoryLayout<Int32>.stride
        if let p = mmap(nil, want, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0),
           p != UnsafeMutableRawPointer(bitPattern: -1) {
            trans = p.bindMemory(to: Int32.self, capacity: want / 4)
            transBytes = want
            transMapped = true
            configurationLimit = GrammarAutomaton.maxConfigurations
        } else {
            // No address space to reserve: a smaller fixed table (the limit only makes masks reject).
            configurationLimit = 1 << 14
            trans = .allocate(capacity: configurationLimit * 256)
            transBytes = configurationLimit * 256 * 4
            transMapped = false
        }
        var ready: [Int32] = [], accept = false
        let s = push(grammar.root, initialState(grammar.root), 0)
        closure([s], &ready, &accept)
        start = internCfg(ready, accept)
    }

    deinit {
        for t in dfaTables { t?.deallocate() }
        for t in dfaLoopTables { t?.deallocate() }
        if transMapped { munmap(UnsafeMutableRawPointer(trans), transBytes) } else { trans.deallocate() }
    }

    var configurationCount: Int { cfgReady.count }

    /// Approximate bytes this automaton holds: a committed transition row per configuration
    /// (the reservation behind them costs address space, not memory), its ready stacks, the
    /// interned stacks and node states, and their hash tables.
    var retainedBytes: Int {
        var bytes = cfgReady.count * (256 * MemoryLayout<Int32>.stride + 64)
        for r in cfgReady { bytes += r.count * MemoryLayout<Int32>.stride }
        bytes += stNode.count * 3 * MemoryLayout<Int32>.stride * 3
        for a in aux { bytes += 64 + a.count * MemoryLayout<Int32>.stride * 2 }
        for (_, g) in groupsOf { bytes += 64 + (g.nodes.count * 3 + g.stacks.count + 1) * MemoryLayout<Int32>.stride }
        for u in unionDFAs { bytes += u.trans.count * MemoryLayout<Int32>.stride }
        return bytes + stringSubtrees.retainedBytes
    }

    // MARK: - Interning

    @inline(__always) func push(_ node: Int32, _ state: Int32, _ parent: Int32) -> Int32 {
        let h = InternTable.hash(node, state, parent)
        if let id = stackIds.find(h, { stNode[Int($0)] == node && stState[Int($0)] == state && stParent[Int($0)] == parent }) {
            return id
        }
        let id = Int32(stNode.count)
        stNode.append(node)
        stState.append(state)
        stParent.append(parent)
        visitedIn.append(0)
        stackIds.insert(id, hash: h)
        return id
    }

    func internAux(_ a: [Int32]) -> Int32 {
        let h = InternTable.hash(a, seed: 0)
        if let id = auxIds.find(h, { aux[Int($0)] == a }) { return id }
        let id = Int32(aux.count)
        aux.append(a)
        auxIds.insert(id, hash: h)
        return id
    }

    func internCfg(_ ready: [Int32], _ accept: Bool) -> Int32 {
        if ready.isEmpty && !accept { return -1 }
        let h = InternTable.hash(ready, seed: accept ? 1 : 2)
        if let id = cfgIds.find(h, { cfgAccept[Int($0)] == accept && cfgReady[Int($0)] == ready }) { return id }
        // Memory guard: a runaway grammar stops growing (and can then only reject, never admit).
        if cfgReady.count >= configurationLimit { return -1 }
        let id = Int32(cfgReady.count)
        cfgReady.append(ready)
        cfgAccept.append(accept)
        cfgIds.insert(id, hash: h)
        (trans + Int(id) * 256).initialize(repeating: -2, count: 256)
        return id
    }

    // MARK: - Slow path

    /// Expands stacks until every live one has a byte-consuming frame on top (those are `ready`);
    /// reaching the empty stack means the input so far is a complete sentence.
    func closure(_ roots: [Int32], _ ready: inout [Int32], _ accept: inout Bool) {
        visitEpoch &+= 1
        if visitEpoch == 0 {
            // Wrapped: stamps from 2^32 closures ago must not read as this one's.
            for i in visitedIn.indices { visitedIn[i] = 0 }
            visitEpoch = 1
        }
        let epoch = visitEpoch
        var work = roots
        var budget = GrammarAutomaton.closureBudget
        while let s = work.popLast() {
            if s == 0 { accept = true; continue }
            if s == GrammarAutomaton.sentinel { continue }
            if visitedIn[Int(s)] == epoch { continue }
            visitedIn[Int(s)] = epoch
            budget -= 1
            work_ &+= 1
            if budget < 0 { ready.removeAll(); accept = false; return }
            let node = stNode[Int(s)], state = stState[Int(s)], parent = stParent[Int(s)]
            if canConsume(node, state) { ready.append(s) }
            forEachMove(node, state) { move in
                switch move {
                case .done:
                    work.append(parent)
                case .call(let child, let ret):
                    let base = isFinalOnly(node, ret) ? parent : push(node, ret, parent)
                    work.append(push(child, initialState(child), base))
                }
            }
        }
        ready.sort()
    }

    /// Computes and records the transition of `cfg` on `byte`.
    @inline(never)
    func step(_ cfg: Int32, _ byte: UInt8) -> Int32 {
        if work_ > GrammarAutomaton.workBudget {
            // Exhausted by a pathologically ambiguous grammar: stop exploring (can only reject).
            trans[Int(cfg) &* 256 &+ Int(byte)] = -1
            return -1
        }
        var roots: [Int32] = []
        let stacks = cfgReady[Int(cfg)]
        if stacks.count >= groupedStepMinimum {
            groupedSteps &+= 1
            // Many stacks under few distinct top frames (an object key where every branch of a
            // `oneOf` and every remaining property has its own stack): consume once per frame.
            let g = topGroups(cfg)
            for k in 0..<g.nodes.count {
                let ns = consume(g.nodes[k], g.states[k], byte)
                if ns < 0 { continue }
                for i in Int(g.start[k])..<Int(g.start[k + 1]) { roots.append(push(g.nodes[k], ns, stParent[Int(g.stacks[i])])) }
            }
        } else {
            for s in stacks {
                let ns = consume(stNode[Int(s)], stState[Int(s)], byte)
                if ns >= 0 { roots.append(push(stNode[Int(s)], ns, stParent[Int(s)])) }
            }
        }
        var ready: [Int32] = [], accept = false
        if !roots.isEmpty { closure(roots, &ready, &accept) }
        let next = internCfg(ready, accept)
        trans[Int(cfg) &* 256 &+ Int(byte)] = next
        return next
    }

    /// Configurations with at least this many ready stacks step by distinct top frame (a
    /// variable so that tests can compare both ways of stepping).
    var groupedStepMinimum = 64
    /// Steps taken by top frame so far (tests read it to see the grouping at work).
    private(set) var groupedSteps = 0

    /// A configuration's ready stacks grouped by their top frame `(node, state)`.
    struct TopGroups {
        var nodes: [Int32] = [], states: [Int32] = []
        /// Group `k`'s stacks are `stacks[start[k] ..< start[k + 1]]`.
        var start: [Int32] = [0]
        var stacks: [Int32] = []
    }

    /// `cfg`'s ready stacks grouped by top frame (built on first use).
    func topGroups(_ cfg: Int32) -> TopGroups {
        if let g = groupsOf[cfg] { return g }
        let ready = cfgReady[Int(cfg)]
        let order = ready.sorted { (stNode[Int($0)], stState[Int($0)]) < (stNode[Int($1)], stState[Int($1)]) }
        var g = TopGroups()
        for s in order {
            let node = stNode[Int(s)], state = stState[Int(s)]
            if g.nodes.last != node || g.states.last != state {
                if !g.nodes.isEmpty { g.start.append(Int32(g.stacks.count)) }
                g.nodes.append(node)
                g.states.append(state)
            }
            g.stacks.append(s)
        }
        g.start.append(Int32(g.stacks.count))
        groupsOf[cfg] = g
        return g
    }

    /// The transition, computing it if needed.
    @inline(__always) func next(_ cfg: Int32, _ byte: UInt8) -> Int32 {
        let t = trans[Int(cfg) &* 256 &+ Int(byte)]
        return t == -2 ? step(cfg, byte) : t
    }

    /// For a configuration that is a single JSON-string frame inside the string, the configuration of
    /// that frame alone over a dead-end parent (its mask = the tokens that stay inside); else -1.
    func isolatedString(_ c: Int32) -> Int32 {
        let i = Int(c)
        if i < isolated.count, isolated[i] != -2 { return isolated[i] }
        if isolated.count < cfgReady.count { isolated.append(contentsOf: repeatElement(-2, count: cfgReady.count - isolated.count)) }
        var result: Int32 = -1
        if !cfgAccept[i] {
            // Every live frame must be one that only a `"` byte can leave: string content, or a
            // literal (an object key) whose remaining bytes contain `"`.
            var frames: [Int32] = []
            for s in cfgReady[i] {
                let node = stNode[Int(s)], st = stState[Int(s)]
                if stParent[Int(s)] == GrammarAutomaton.sentinel { frames.removeAll(); break }
                var ok = false
                switch nodes[Int(node)] {
                case .string:
                    let phase = aux[Int(st)][0]
                    ok = phase != 0 && phase != 7
                case .literal(let b):
                    ok = Int(st) < b.count && b[Int(st)...].contains(0x22)
                default: ok = false
                }
                if !ok { frames.removeAll(); break }
                frames.append(push(node, isolatedStringState(node, st), GrammarAutomaton.sentinel))
            }
            if !frames.isEmpty {
                frames.sort()
                var unique: [Int32] = []
                for f in frames where unique.last != f { unique.append(f) }
                result = internCfg(unique, false)
            }
        }
        if isolated.count < cfgReady.count { isolated.append(contentsOf: repeatElement(-2, count: cfgReady.count - isolated.count)) }
        isolated[i] = result
        return result
    }

    /// A representative of string state `st` for isolated walks. Isolated, a string never closes,
    /// so a length counted only toward `minLength` does not matter, and with `maxLength` only a
    /// remaining budget below the longest token's byte count does (a token has no more code points
    /// than bytes). Counting strings otherwise made every token read a fresh full-vocabulary walk.
    private func isolatedStringState(_ node: Int32, _ st: Int32) -> Int32 {
        guard case .string(let spec) = nodes[Int(node)] else { return st }
        let lengthSlot = 7  // `sLen` in the string aux layout
        var a = aux[Int(st)]
        if spec.maxLength < 0 {
            a[lengthSlot] = Int32(spec.minLength)
        } else if spec.maxLength - Int(a[lengthSlot]) > isolationTokenBytes + 1 {
            a[lengthSlot] = Int32(spec.maxLength - isolationTokenBytes - 1)
        }
        return internAux(a)
    }

    /// For an isolated configuration that is one literal frame (an object key's name), the bytes
    /// it still needs; else nil. Isolated, it takes exactly the tokens that are proper prefixes of them.
    func isolatedLiteral(_ c: Int32) -> ArraySlice<UInt8>? {
        let ready = cfgReady[Int(c)]
        guard ready.count == 1, !cfgAccept[Int(c)] else { return nil }
        let s = Int(ready[0])
        guard stParent[s] == GrammarAutomaton.sentinel, case .literal(let b) = nodes[Int(stNode[s])],
              Int(stState[s]) < b.count else { return nil }
        return b[Int(stState[s])...]
    }

    /// The single-frame configurations of a multi-frame isolated configuration (empty if single).
    func isolatedComponents(_ iso: Int32) -> [Int32] {
        let ready = cfgReady[Int(iso)]
        if ready.count < 2 { return [] }
        return ready.map { internCfg([$0], false) }
    }

    /// A key identifying an isolated configuration across grammars: one plain string frame (no
    /// DFAs that can reject), described by its state and remaining length budget. nil otherwise.
    func sharedKey(_ iso: Int32, maxTokenBytes: Int) -> [Int32]? {
        let ready = cfgReady[Int(iso)]
        guard ready.count == 1 else { return nil }
        let s = ready[0]
        // Patterns that can no longer die (such as "key not in this set", or `^/` once the slash
        // is written) only matter when the string closes, which needs a `"`: the isolated mask
        // is that of the plain string.
        guard case .string(let spec) = nodes[Int(stNode[Int(s)])] else { return nil }
        let a = aux[Int(stState[Int(s)])]
        for k in spec.dfas.indices where !patternIsUniversal(spec, k, in: a) { return nil }
        // Isolated, the string can never close, so `minLength` and a length counted only toward it
        // do not matter; with `maxLength` only the remaining budget does, and no token holds more
        // code points than bytes. Keyed this way, every schema's plain strings share a few masks.
        // A budget no token can exhaust admits what no bound does: both share the unbounded key.
        var budget: Int32 = -1
        if !GrammarAutomaton.lengthOutOfReach(maxLength: spec.maxLength, length: Int(a[7]), maxTokenBytes: maxTokenBytes) {
            budget = Int32(spec.maxLength - Int(a[7]))
        }
        return GrammarAutomaton.plainStringKey(a.prefix(7), budget: budget, tracksValue: spec.tracksValue)
    }

    /// Among the single-frame parts of an isolated configuration, a string frame with no pattern
    /// that can die (`ByteDFA.isTotal`) and no `maxLength` a token can reach, when every other
    /// string frame stands at the same place (same phase, UTF-8 position and escape state) and
    /// decodes its value alike. That frame then
    /// takes every token any of them takes — patterns and length bounds only remove tokens — so
    /// the strings' union is its mask, and nothing about the others' patterns needs analysing.
    /// Returns that part, and the parts that are not string frames (literal names), which still count.
    func coveringPlainPart(_ parts: [Int32], maxTokenBytes: Int) -> (cover: Int32, others: [Int32])? {
        var cover: Int32?
        var others: [Int32] = []
        var place: ArraySlice<Int32>?
        var tracks: Bool?
        for p in parts {
            let ready = cfgReady[Int(p)]
            guard ready.count == 1 else { return nil }
            let s = Int(ready[0])
            guard case .string(let spec) = nodes[Int(stNode[s])] else {
                others.append(p)
                continue
            }
            let a = aux[Int(stState[s])]
            if place == nil { place = a.prefix(7) } else if a.prefix(7) != place! { return nil }
            if tracks == nil { tracks = spec.tracksValue } else if spec.tracksValue != tracks! { return nil }
            if cover == nil, spec.dfas.allSatisfy({ dfas[Int($0)].isTotal }),
               GrammarAutomaton.lengthOutOfReach(maxLength: spec.maxLength, length: Int(a[7]), maxTokenBytes: maxTokenBytes) {
                cover = p
            }
        }
        return cover.map { ($0, others) }
    }

    /// Whether a string's `maxLength` (-1: none) is beyond what one token can reach from `length`
    /// characters: no token holds more characters than bytes, so such a bound removes nothing.
    static func lengthOutOfReach(maxLength: Int, length: Int, maxTokenBytes: Int) -> Bool {
        maxLength < 0 || maxLength - length > maxTokenBytes
    }

    /// The shared-mask key of a plain string frame: the string aux slots before the length (phase,
    /// UTF-8 position, escape state), the remaining `maxLength` budget (-1: none a token can reach),
    /// and whether the frame decodes its value (which also validates surrogate pairs in `\u` escapes).
    static func plainStringKey(_ slots: some Sequence<Int32>, budget: Int32, tracksValue: Bool) -> [Int32] {
        Array(slots) + [budget, tracksValue ? 1 : 0]
    }

    /// The configuration after `bytes`, or -1.
    func run(_ cfg: Int32, _ bytes: some Sequence<UInt8>) -> Int32 {
        var c = cfg
        for b in bytes {
            c = next(c, b)
            if c < 0 { return -1 }
        }
        return c
    }
}

extension GrammarAutomaton {
    /// A stack as text, top first (for debugging).
    func describe(_ s: Int32) -> String {
        var parts: [String] = []
        var cur = s
        while cur > 0 {
            let n = stNode[Int(cur)], st = stState[Int(cur)]
            if n < 0 { parts.append("sentinel"); break }
            var kind = "\(nodes[Int(n)])".prefix(30)
            if case .object = nodes[Int(n)] { kind = "object" }
            let state: String
            switch nodes[Int(n)] {
            case .object, .array, .string, .number: state = "\(aux[Int(st)])"
            default: state = "\(st)"
            }
            parts.append("n\(n)[\(kind)]@\(state)")
            cur = stParent[Int(cur)]
        }
        return parts.joined(separator: " < ")
    }
}
