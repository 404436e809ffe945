import LoomJSON

// Grammar composition: building a grammar out of compiled grammars (sequence, choice, repetition)
// plus the two leaves composition needs that the front ends do not offer — an exact literal and
// "any text that never contains these strings". Tool calling is the motivating user: free text OR
// a call envelope whose arguments are a JSON-Schema grammar.

extension Grammar {
    /// The grammar accepting exactly `text` (its UTF-8 bytes).
    public convenience init(literal text: String) {
        var b = GrammarBuilder()
        let root = b.literal(text)
        self.init(nodes: b.nodes, dfas: b.dfas, root: root, warnings: [])
    }

    /// The grammar accepting only the empty string.
    public static var empty: Grammar { Grammar(literal: "") }

    /// Concatenation: the output is a sentence of `parts[0]`, then of `parts[1]`, and so on.
    /// An empty list accepts only the empty string.
    public static func sequence(_ parts: [Grammar]) throws(GrammarError) -> Grammar {
        try compose(parts, what: "sequence") { b, roots in b.seq(roots.isEmpty ? [b.literal("")] : roots) }
    }

    /// Alternation: the output is a sentence of any one of `choices`. An empty list is the empty language.
    public static func choice(_ choices: [Grammar]) throws(GrammarError) -> Grammar {
        try compose(choices, what: "choice") { b, roots in b.alt(roots) }
    }

    /// `part` zero or one time.
    public static func optional(_ part: Grammar) throws(GrammarError) -> Grammar {
        try repetition(part, minimum: 0, maximum: 1)
    }

    /// `part` repeated `minimum...maximum` times (`maximum` nil: unbounded).
    public static func repetition(_ part: Grammar, minimum: Int, maximum: Int?) throws(GrammarError) -> Grammar {
        guard minimum >= 0, maximum.map({ $0 >= minimum }) ?? true,
              minimum <= Int(Int32.max), (maximum ?? 0) <= Int(Int32.max) else {
            throw GrammarError(.syntax, keyword: "repetition", pointer: "",
                               "invalid repetition bounds \(minimum)...\(maximum.map(String.init) ?? "")")
        }
        return try compose([part], what: "repetition") { b, roots in
            b.add(.rep(roots[0], min: Int32(minimum), max: maximum.map(Int32.init) ?? -1))
        }
    }

    /// Any valid UTF-8 text (possibly empty) that contains none of `forbidden` as a substring.
    ///
    /// This is how free text is kept from starting a structure by accident: with the tool-call
    /// opener forbidden, a call can begin only where the composed grammar puts one. Empty strings
    /// in `forbidden` are ignored. `maximumBytes` bounds the text's length when given.
    public static func text(excluding forbidden: [String], maximumBytes: Int? = nil) throws(GrammarError) -> Grammar {
        let words = forbidden.map { Array($0.utf8) }.filter { !$0.isEmpty }
        var dfa = ByteDFA.utf8Text(excluding: words)
        if let maximumBytes {
            guard maximumBytes >= 0 else {
                throw GrammarError(.syntax, keyword: "text", pointer: "", "negative maximumBytes")
            }
            guard dfa.stateCount * (maximumBytes + 1) <= 1 << 16 else {
                throw GrammarError(.limit, keyword: "text", pointer: "", "text length bound \(maximumBytes) is too large")
            }
            dfa = dfa.bounded(maximumBytes)
        }
        var b = GrammarBuilder()
        let root = b.add(.dfa(b.addDFA(dfa)))
        return try b.finish(root: root, what: "text")
    }

    /// Copies every part into one builder and lets `join` combine their roots.
    private static func compose(_ parts: [Grammar], what: String,
                                _ join: (inout GrammarBuilder, [Int32]) -> Int32) throws(GrammarError) -> Grammar {
        var b = GrammarBuilder()
        var roots: [Int32] = []
        for part in parts { roots.append(b.embed(part)) }
        let root = join(&b, roots)
        // A wrapper node keeps the root distinct from any embedded node (roots are never shared).
        let top = b.add(.seq([root]))
        b.warnings = parts.flatMap(\.warnings)
        return try b.finish(root: top, what: what)
    }
}

extension GrammarBuilder {
    /// Appends all of `g`'s nodes and automata, renumbered, and returns the id of its root.
    ///
    /// Nodes are appended verbatim (not hash-shared) so recursive rules keep their shape; automata
    /// are shared when identical.
    mutating func embed(_ g: Grammar) -> Int32 {
        let dfaMap = g.dfas.map { addDFA($0) }
        let base = Int32(nodes.count)
        for _ in g.nodes { _ = placeholder() }
        func n(_ x: Int32) -> Int32 { x + base }
        for (i, node) in g.nodes.enumerated() {
            let mapped: GrammarNode
            switch node {
            case .fail, .literal, .bytes, .number: mapped = node
            case .dfa(let d): mapped = .dfa(dfaMap[Int(d)])
            case .seq(let xs): mapped = .seq(xs.map(n))
            case .alt(let xs): mapped = .alt(xs.map(n))
            case .rep(let x, let lo, let hi): mapped = .rep(n(x), min: lo, max: hi)
            case .string(var s):
                s.dfas = s.dfas.map { dfaMap[Int($0)] }
                mapped = .string(s)
            case .object(var o):
                o.members = o.members.map(n)
                o.extraMembers = o.extraMembers.map(n)
                o.witnessDeclaredNodes = o.witnessDeclaredNodes.map(n)
                o.witnessExtraMembers = o.witnessExtraMembers.map(n)
                mapped = .object(o)
            case .array(var a):
                a.prefix = a.prefix.map(n)
                a.items = a.items.map(n)
                a.uniqueChoices = a.uniqueChoices?.map(n)
                a.containsPrefix = a.containsPrefix.map(n)
                a.containsItems = a.containsItems.map(n)
                mapped = .array(a)
            }
            define(base + Int32(i), mapped)
        }
        return n(g.root)
    }
}

extension ByteDFA {
    /// The same language cut to strings of at most `n` bytes: a product with a byte counter.
    func bounded(_ n: Int) -> ByteDFA {
        let states = stateCount
        var trans = [Int32](repeating: -1, count: states * (n + 1) * 256)
        var acc = [Bool](repeating: false, count: states * (n + 1))
        for len in 0...n {
            for s in 0..<states {
                let me = len * states + s
                acc[me] = accepting[s]
                guard len < n else { continue }
                for byte in 0..<256 {
                    let t = next(Int32(s), UInt8(byte))
                    if t >= 0 { trans[me * 256 + byte] = Int32((len + 1) * states + Int(t)) }
                }
            }
        }
        return ByteDFA(rawTrans: trans, rawAccepting: acc)
    }

    /// Valid UTF-8 text containing none of `words`: the product of a UTF-8 validator and an
    /// Aho–Corasick automaton over the words, where reaching any word's end is dead.
    static func utf8Text(excluding words: [[UInt8]]) -> ByteDFA {
        // Aho–Corasick goto/fail over the words, completed into a full transition table.
        var goto: [[Int32]] = [[Int32](repeating: -1, count: 256)]
        var hit: [Bool] = [false]
        for w in words {
            var s = 0
            for c in w {
                if goto[s][Int(c)] < 0 {
                    goto[s][Int(c)] = Int32(goto.count)
                    goto.append([Int32](repeating: -1, count: 256))
                    hit.append(false)
                }
                s = Int(goto[s][Int(c)])
            }
            hit[s] = true
        }
        var fail = [Int](repeating: 0, count: goto.count)
        var delta = goto
        var queue: [Int] = []
        for c in 0..<256 {
            if goto[0][c] < 0 { delta[0][c] = 0 } else { queue.append(Int(goto[0][c])) }
        }
        var k = 0
        while k < queue.count {
            let s = queue[k]
            k += 1
            hit[s] = hit[s] || hit[fail[s]]
            for c in 0..<256 {
                let t = goto[s][c]
                if t >= 0 {
                    fail[Int(t)] = Int(delta[fail[s]][c])
                    queue.append(Int(t))
                    delta[s][c] = t
                } else {
                    delta[s][c] = delta[fail[s]][c]
                }
            }
        }
        // UTF-8 validator states: 0 start (accepting); 1/2/3 need that many continuation bytes
        // (80-BF); 4...7 need the narrowed first continuation of E0, ED, F0 or F4 (`UTF8LeadByte`),
        // then 1 or 2 more.
        let narrowed: [(first: ClosedRange<UInt8>, then: Int)] = [(0xA0...0xBF, 1), (0x80...0x9F, 1), (0x90...0xBF, 2), (0x80...0x8F, 2)]
        func utf8(_ u: Int, _ b: Int) -> Int {
            let byte = UInt8(b)
            switch u {
            case 0:
                guard let lead = UTF8LeadByte(byte) else { return -1 }
                if let i = narrowed.firstIndex(where: { $0.first == lead.firstContinuation && $0.then == lead.continuationCount - 1 }) {
                    return 4 + i
                }
                return lead.continuationCount
            case 1, 2, 3: return (0x80...0xBF).contains(byte) ? u - 1 : -1
            case 4...7: return narrowed[u - 4].first.contains(byte) ? narrowed[u - 4].then : -1
            default: return -1
            }
        }
        let acStates = delta.count
        let total = acStates * 8
        var trans = [Int32](repeating: -1, count: total * 256)
        var acc = [Bool](repeating: false, count: total)
        for a in 0..<acStates where !hit[a] {
            for u in 0..<8 {
                let me = a * 8 + u
                acc[me] = u == 0
                for b in 0..<256 {
                    let u2 = utf8(u, b)
                    let a2 = Int(delta[a][b])
                    if u2 >= 0 && !hit[a2] { trans[me * 256 + b] = Int32(a2 * 8 + u2) }
                }
            }
        }
        return ByteDFA(rawTrans: trans, rawAccepting: acc)
    }
}
