// Grammar: JSON Schema, GBNF and regex compiled to per-token masks over a vocabulary.
// It never imports Engine: it sees token byte strings and produces packed UInt64 masks
// (token i allowed iff bit i % 64 of word i / 64 is set).

/// A compiled grammar: immutable, `Sendable`, shareable between any number of matchers.
///
/// Build one with `Grammar(jsonSchema:)`, `Grammar(gbnf:)` or `Grammar(regex:)`, then run it with
/// a `GrammarMatcher` over a `GrammarVocabulary`.
public final class Grammar: Sendable, CustomStringConvertible {
    let nodes: [GrammarNode]
    let dfas: [ByteDFA]
    let root: Int32
    /// Constraints that lenient mode ignored (empty in strict mode).
    public let warnings: [String]

    init(nodes: [GrammarNode], dfas: [ByteDFA], root: Int32, warnings: [String]) {
        self.nodes = nodes
        self.dfas = dfas
        self.root = root
        self.warnings = warnings
    }

    /// Number of nodes in the grammar (a size measure for reports).
    public var nodeCount: Int { nodes.count }

    /// The grammar in a GBNF-like notation (one rule per node reachable from the root).
    public var description: String {
        var out = ""
        var seen = Set<Int32>()
        var work = [root]
        func name(_ n: Int32) -> String { n == root ? "root" : "n\(n)" }
        func lit(_ b: [UInt8]) -> String {
            var s = "\""
            for c in b {
                switch c {
                case 0x22: s += "\\\""
                case 0x5C: s += "\\\\"
                case 0x0A: s += "\\n"
                case 0x20...0x7E: s += String(UnicodeScalar(c))
                default: s += "\\x" + (c < 16 ? "0" : "") + String(c, radix: 16)
                }
            }
            return s + "\""
        }
        while let n = work.popLast() {
            guard seen.insert(n).inserted else { continue }
            let body: String
            var kids: [Int32] = []
            switch nodes[Int(n)] {
            case .fail: body = "[]  # empty language"
            case .literal(let b): body = lit(b)
            case .bytes(let s):
                var parts: [String] = []
                var b = 0
                while b < 256 {
                    if s.contains(UInt8(b)) {
                        var e = b
                        while e + 1 < 256, s.contains(UInt8(e + 1)) { e += 1 }
                        parts.append(e == b ? String(format2: b) : String(format2: b) + "-" + String(format2: e))
                        b = e + 1
                    } else { b += 1 }
                }
                body = "[" + parts.joined() + "]"
            case .dfa(let d): body = "/dfa\(d): \(dfas[Int(d)].stateCount) states/"
            case .seq(let xs): kids = xs; body = xs.isEmpty ? "\"\"" : xs.map(name).joined(separator: " ")
            case .alt(let xs): kids = xs; body = xs.map(name).joined(separator: " | ")
            case .rep(let x, let lo, let hi):
                kids = [x]
                body = "\(name(x)){\(lo),\(hi < 0 ? "" : String(hi))}"
            case .string(let s):
                kids = []
                body = "json-string{len \(s.minLength)..\(s.maxLength < 0 ? "" : String(s.maxLength))\(s.dfas.isEmpty ? "" : ", dfa " + s.dfas.map(String.init).joined(separator: "&"))}"
            case .number(let s):
                var parts: [String] = []
                if s.integer != .any { parts.append("integer") }
                if let m = s.minimum { parts.append((s.minimumExclusive ? ">" : ">=") + m.text) }
                if let m = s.maximum { parts.append((s.maximumExclusive ? "<" : "<=") + m.text) }
                for m in s.multipleOf { parts.append("multipleOf " + m.text) }
                if !s.excluded.isEmpty { parts.append("not " + s.excluded.map(\.text).joined(separator: ",")) }
                if let a = s.allowed { parts.append("in " + a.map(\.text).joined(separator: ",")) }
                body = "json-number{\(parts.joined(separator: ", "))}"
            case .object(let o):
                kids = o.members + o.extraMembers + o.witnessDeclaredNodes + o.witnessExtraMembers
                var parts = ["members: " + o.members.map(name).joined(separator: " ")]
                if !o.required.isEmpty { parts.append("required: " + o.required.map { name(o.members[$0]) }.joined(separator: " ")) }
                if !o.extraMembers.isEmpty { parts.append("extra: " + o.extraMembers.map(name).joined(separator: " ")) }
                if o.needsWitness {
                    parts.append("some member of: " + (o.witnessDeclaredNodes + o.witnessExtraMembers).map(name).joined(separator: " "))
                }
                if o.minProperties > 0 || o.maxProperties >= 0 { parts.append("count \(o.minProperties)..\(o.maxProperties < 0 ? "" : String(o.maxProperties))") }
                body = "json-object{" + parts.joined(separator: "; ") + "}"
            case .array(let a):
                kids = a.prefix + (a.items.map { [$0] } ?? []) + (a.uniqueChoices ?? [])
                var parts: [String] = []
                if !a.prefix.isEmpty { parts.append("prefix: " + a.prefix.map(name).joined(separator: " ")) }
                if let i = a.items { parts.append("items: " + name(i)) }
                if let u = a.uniqueChoices { parts.append("unique of: " + u.map(name).joined(separator: " ")) }
                parts.append("count \(a.minItems)..\(a.maxItems < 0 ? "" : String(a.maxItems))")
                body = "json-array{" + parts.joined(separator: "; ") + "}"
            }
            out += "\(name(n)) ::= \(body)\n"
            for k in kids.reversed() where !seen.contains(k) { work.append(k) }
        }
        return out
    }
}

extension String {
    fileprivate init(format2 b: Int) {
        if b >= 0x21 && b <= 0x7E && b != 0x5D && b != 0x5C && b != 0x2D {
            self = String(UnicodeScalar(UInt8(b)))
        } else {
            self = "\\x" + (b < 16 ? "0" : "") + String(b, radix: 16)
        }
    }
}

extension ExactDecimal {
    var text: String {
        if isZero { return "0" }
        return (negative ? "-" : "") + digits.map(String.init).joined() + (exponent == 0 ? "" : "e\(exponent)")
    }
}

/// Collects nodes while a front end compiles; `finish` checks the result can run.
struct GrammarBuilder {
    private(set) var nodes: [GrammarNode] = []
    private(set) var dfas: [ByteDFA] = []
    private var nodeIds: [GrammarNode: Int32] = [:]
    private var dfaIds: [ByteDFA: Int32] = [:]
    var warnings: [String] = []

    /// Adds a node, sharing an identical existing one.
    mutating func add(_ n: GrammarNode) -> Int32 {
        // A DFA with no live state (GBNF's `[]`) has no start state for the automaton to run:
        // it is the empty language.
        if case .dfa(let d) = n, dfas[Int(d)].isEmpty { return add(.fail) }
        if let id = nodeIds[n] { return id }
        let id = Int32(nodes.count)
        nodes.append(n)
        nodeIds[n] = id
        return id
    }

    /// A node to be defined later (recursion).
    mutating func placeholder() -> Int32 {
        // `.alt([])` (not `.fail`): an undefined placeholder must not look like the empty language.
        nodes.append(.alt([]))
        return Int32(nodes.count - 1)
    }

    mutating func define(_ id: Int32, _ n: GrammarNode) { nodes[Int(id)] = n }

    mutating func addDFA(_ d: ByteDFA) -> Int32 {
        if let id = dfaIds[d] { return id }
        let id = Int32(dfas.count)
        dfas.append(d)
        dfaIds[d] = id
        return id
    }

    func dfa(_ id: Int32) -> ByteDFA { dfas[Int(id)] }

    /// True when the node is `.fail` or a chain of one-element sequences/alternatives ending in it.
    func isEmptyLanguage(_ id: Int32) -> Bool {
        var cur = id
        for _ in 0..<64 {
            switch nodes[Int(cur)] {
            case .fail: return true
            case .seq(let xs) where xs.count == 1: cur = xs[0]
            case .alt(let xs) where xs.count == 1: cur = xs[0]
            default: return false
            }
        }
        return false
    }

    mutating func literal(_ s: String) -> Int32 { add(.literal(Array(s.utf8))) }
    mutating func seq(_ xs: [Int32]) -> Int32 { xs.count == 1 ? xs[0] : add(.seq(xs)) }
    mutating func alt(_ xs: [Int32]) -> Int32 {
        let live = xs.filter { nodes[Int($0)] != .fail }
        if live.isEmpty { return add(.fail) }
        return live.count == 1 ? live[0] : add(.alt(live))
    }

    /// Which nodes can derive the empty string.
    func nullable() -> [Bool] {
        var n = [Bool](repeating: false, count: nodes.count)
        var changed = true
        while changed {
            changed = false
            for (i, node) in nodes.enumerated() where !n[i] {
                let v: Bool
                switch node {
                case .literal(let b): v = b.isEmpty
                case .dfa(let d): v = !dfas[Int(d)].isEmpty && dfas[Int(d)].accepting[0]
                case .seq(let xs): v = xs.allSatisfy { n[Int($0)] }
                case .alt(let xs): v = xs.contains { n[Int($0)] }
                case .rep(let x, let lo, _): v = lo == 0 || n[Int(x)]
                default: v = false
                }
                if v { n[i] = true; changed = true }
            }
        }
        return n
    }

    /// Fails on left recursion: a node that can call itself before consuming a byte would make the
    /// matcher's stack grow without input.
    func finish(root: Int32, what: String) throws(GrammarError) -> Grammar {
        let nul = nullable()
        var edges = [[Int32]](repeating: [], count: nodes.count)
        for (i, node) in nodes.enumerated() {
            switch node {
            case .seq(let xs):
                for x in xs {
                    edges[i].append(x)
                    if !nul[Int(x)] { break }
                }
            case .alt(let xs): edges[i] = xs
            case .rep(let x, _, let hi) where hi != 0: edges[i] = [x]
            default: break
            }
        }
        // Iterative DFS colouring.
        var colour = [UInt8](repeating: 0, count: nodes.count)
        for s in 0..<nodes.count where colour[s] == 0 {
            var stack: [(Int, Int)] = [(s, 0)]
            colour[s] = 1
            while let (v, k) = stack.last {
                if k < edges[v].count {
                    stack[stack.count - 1].1 += 1
                    let w = Int(edges[v][k])
                    if colour[w] == 1 {
                        throw GrammarError(.limit, keyword: what, pointer: "", "left recursion: a rule can reach itself without consuming input")
                    }
                    if colour[w] == 0 { colour[w] = 1; stack.append((w, 0)) }
                } else {
                    colour[v] = 2
                    stack.removeLast()
                }
            }
        }
        return Grammar(nodes: nodes, dfas: dfas, root: root, warnings: warnings)
    }
}
