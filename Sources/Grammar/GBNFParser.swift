/// llama.cpp's GBNF grammar format, compiled to the grammar IR.
///
/// Rules are `name ::= alternatives`; elements are `"literals"`, `[classes]` (with `^`, ranges and
/// `\x \u \U \n \r \t` escapes), `.`, rule names and `( groups )`, with the postfix operators
/// `* + ? {m} {m,} {m,n}`; `#` starts a comment. Classes and `.` are over Unicode code points and
/// compile to UTF-8 byte automata. The start rule is `root`.
struct GBNFParser {
    private let s: [UInt32]
    private var i = 0
    private var b = GrammarBuilder()
    private var ruleIds: [String: Int32] = [:]
    private var defined: Set<String> = []
    private var referencedAt: [String: Int] = [:]
    private var classCache: [CharClass: Int32] = [:]
    /// Parenthesised groups open around the parser (it recurses into each).
    private var depth = 0
    /// Deepest group nesting accepted.
    static let maximumNesting = 64
    /// Looked up once nesting gets deep (finding a thread's stack can cost tens of microseconds).
    private var stack: StackGuard?

    init(_ text: String) { s = text.unicodeScalars.map(\.value) }

    private func fail(_ why: String) -> GrammarError {
        // Report a line:column position as the pointer.
        var line = 1, col = 1
        for k in 0..<min(i, s.count) { if s[k] == 0x0A { line += 1; col = 1 } else { col += 1 } }
        return GrammarError(.syntax, keyword: "gbnf", pointer: "\(line):\(col)", why)
    }

    static func compile(_ text: String) throws(GrammarError) -> Grammar {
        var p = GBNFParser(text)
        return try p.parseAll()
    }

    private mutating func parseAll() throws(GrammarError) -> Grammar {
        skipSpace()
        while i < s.count {
            let name = try identifier()
            skipSpace()
            guard match("::=") else { throw fail("expected '::=' after rule name '\(name)'") }
            if defined.contains(name) { throw fail("rule '\(name)' defined twice") }
            defined.insert(name)
            let id = ruleId(name)
            let body = try alternates()
            b.define(id, .seq([body]))
            skipSpace()
        }
        for (name, at) in referencedAt where !defined.contains(name) {
            i = at
            throw fail("undefined rule '\(name)'")
        }
        guard let root = ruleIds["root"], defined.contains("root") else { throw fail("no 'root' rule") }
        return try b.finish(root: root, what: "gbnf")
    }

    private mutating func ruleId(_ name: String) -> Int32 {
        if let id = ruleIds[name] { return id }
        let id = b.placeholder()
        ruleIds[name] = id
        return id
    }

    private func isWordChar(_ c: UInt32) -> Bool {
        (c >= 0x30 && c <= 0x39) || (c >= 0x41 && c <= 0x5A) || (c >= 0x61 && c <= 0x7A) || c == 0x2D || c == 0x5F
    }

    private mutating func skipSpace() {
        while i < s.count {
            let c = s[i]
            if c == 0x20 || c == 0x09 || c == 0x0A || c == 0x0D { i += 1; continue }
            if c == 0x23 { while i < s.count, s[i] != 0x0A { i += 1 }; continue }
            break
        }
    }

    private mutating func match(_ lit: String) -> Bool {
        let u = lit.unicodeScalars.map(\.value)
        guard i + u.count <= s.count, Array(s[i..<(i + u.count)]) == u else { return false }
        i += u.count
        return true
    }

    private mutating func identifier() throws(GrammarError) -> String {
        let start = i
        while i < s.count, isWordChar(s[i]) { i += 1 }
        guard i > start else { throw fail("expected a rule name") }
        return String(String.UnicodeScalarView(s[start..<i].compactMap(Unicode.Scalar.init)))
    }

    /// True when the upcoming text is `name ::=` (the start of the next rule).
    private func atRuleStart() -> Bool {
        var j = i
        while j < s.count, isWordChar(s[j]) { j += 1 }
        guard j > i else { return false }
        while j < s.count, s[j] == 0x20 || s[j] == 0x09 || s[j] == 0x0A || s[j] == 0x0D { j += 1 }
        return j + 3 <= s.count && s[j] == 0x3A && s[j + 1] == 0x3A && s[j + 2] == 0x3D
    }

    private mutating func alternates() throws(GrammarError) -> Int32 {
        var alts = [try sequence()]
        while true {
            skipSpace()
            guard i < s.count, s[i] == 0x7C else { break }
            i += 1
            alts.append(try sequence())
        }
        return alts.count == 1 ? alts[0] : b.add(.alt(alts))
    }

    private mutating func sequence() throws(GrammarError) -> Int32 {
        var items: [Int32] = []
        while true {
            skipSpace()
            guard i < s.count else { break }
            let c = s[i]
            if c == 0x7C || c == 0x29 { break }
            if atRuleStart() { break }
            var item: Int32
            switch c {
            case 0x22:
                i += 1
                var bytes: [UInt8] = []
                while true {
                    guard i < s.count else { throw fail("unterminated string literal") }
                    if s[i] == 0x22 { i += 1; break }
                    let cp = try char()
                    bytes.append(contentsOf: CharClass.utf8(cp))
                }
                item = b.add(.literal(bytes))
            case 0x5B:
                item = try charClass()
            case 0x2E:
                i += 1
                item = classNode(.any)
            case 0x28:
                i += 1
                depth += 1
                if depth > 16 && stack == nil { stack = StackGuard() }
                if depth > GBNFParser.maximumNesting || stack?.hasRoom() == false {
                    throw GrammarError(.limit, keyword: "gbnf", pointer: fail("").pointer,
                                       "groups nested deeper than \(GBNFParser.maximumNesting)")
                }
                item = try alternates()
                depth -= 1
                skipSpace()
                guard i < s.count, s[i] == 0x29 else { throw fail("expected ')'") }
                i += 1
            default:
                guard isWordChar(c) else { throw fail("unexpected character '\(String(UnicodeScalar(c).map { Character($0) } ?? "?"))'") }
                let at = i
                let name = try identifier()
                if referencedAt[name] == nil { referencedAt[name] = at }
                item = ruleId(name)
            }
            // Postfix operators bind to the element just parsed.
            while i < s.count {
                let p = s[i]
                if p == 0x2A { i += 1; item = b.add(.rep(item, min: 0, max: -1)) }
                else if p == 0x2B { i += 1; item = b.add(.rep(item, min: 1, max: -1)) }
                else if p == 0x3F { i += 1; item = b.add(.rep(item, min: 0, max: 1)) }
                else if p == 0x7B {
                    i += 1
                    skipSpace()
                    let lo = try number()
                    var hi = lo
                    skipSpace()
                    if i < s.count, s[i] == 0x2C {
                        i += 1
                        skipSpace()
                        hi = i < s.count && s[i] >= 0x30 && s[i] <= 0x39 ? try number() : -1
                        skipSpace()
                    }
                    guard i < s.count, s[i] == 0x7D else { throw fail("expected '}'") }
                    i += 1
                    if hi >= 0 && hi < lo { throw fail("repetition bounds out of order") }
                    item = b.add(.rep(item, min: Int32(lo), max: Int32(hi)))
                } else { break }
            }
            items.append(item)
        }
        return items.count == 1 ? items[0] : b.add(.seq(items))
    }

    private mutating func number() throws(GrammarError) -> Int {
        var v = 0, any = false
        while i < s.count, s[i] >= 0x30, s[i] <= 0x39 {
            v = v * 10 + Int(s[i] - 0x30)
            if v > 100_000 { throw fail("repetition count too large") }
            i += 1
            any = true
        }
        guard any else { throw fail("expected a number") }
        return v
    }

    private mutating func hex(_ n: Int) throws(GrammarError) -> UInt32 {
        var v: UInt32 = 0
        for _ in 0..<n {
            guard i < s.count else { throw fail("truncated escape") }
            let c = s[i]
            let d: UInt32
            switch c {
            case 0x30...0x39: d = c - 0x30
            case 0x41...0x46: d = c - 0x41 + 10
            case 0x61...0x66: d = c - 0x61 + 10
            default: throw fail("invalid hex digit in escape")
            }
            v = v * 16 + d
            i += 1
        }
        return v
    }

    /// One character of a literal or class, with escapes.
    private mutating func char() throws(GrammarError) -> UInt32 {
        let c = s[i]
        i += 1
        guard c == 0x5C else { return c }
        guard i < s.count else { throw fail("trailing backslash") }
        let e = s[i]
        i += 1
        switch e {
        case 0x78: return try hex(2)
        case 0x75: return try hex(4)
        case 0x55: return try hex(8)
        case 0x74: return 0x09
        case 0x72: return 0x0D
        case 0x6E: return 0x0A
        case 0x5C, 0x22, 0x5B, 0x5D, 0x2D, 0x5E: return e
        default: throw fail("unknown escape")
        }
    }

    private mutating func charClass() throws(GrammarError) -> Int32 {
        i += 1
        var negate = false
        if i < s.count, s[i] == 0x5E { negate = true; i += 1 }
        var set = CharClass()
        while true {
            guard i < s.count else { throw fail("unterminated character class") }
            if s[i] == 0x5D { i += 1; break }
            let lo = try char()
            if i + 1 < s.count, s[i] == 0x2D, s[i + 1] != 0x5D {
                i += 1
                let hi = try char()
                if hi < lo { throw fail("class range out of order") }
                set.add(lo...hi)
            } else {
                set.add(lo...lo)
            }
        }
        return classNode(negate ? set.inverted : set)
    }

    private mutating func classNode(_ c: CharClass) -> Int32 {
        if let id = classCache[c] { return id }
        let id: Int32
        if let last = c.ranges.last, last.upperBound < 0x80 {
            var set = ByteSet()
            for r in c.ranges { for x in r { set.insert(UInt8(x)) } }
            id = b.add(.bytes(set))
        } else {
            var nfa = ByteNFA()
            // A single character class cannot exceed the limits; failure here is a bug guard.
            let dfa: ByteDFA? = try? {
                let a = try nfa.newState(), z = try nfa.newState()
                try nfa.addClass(c, from: a, to: z)
                return try nfa.determinize(start: a, accept: z)
            }()
            id = dfa.map { b.add(.dfa(b.addDFA($0))) } ?? b.add(.fail)
        }
        classCache[c] = id
        return id
    }
}

extension Grammar {
    /// Compiles a llama.cpp GBNF grammar (start rule `root`).
    public convenience init(gbnf text: String) throws(GrammarError) {
        let g = try GBNFParser.compile(text)
        self.init(nodes: g.nodes, dfas: g.dfas, root: g.root, warnings: g.warnings)
    }

    /// Compiles a regular expression (ECMAScript syntax); the whole output must match it.
    public convenience init(regex pattern: String) throws(GrammarError) {
        let dfa = try RegexCompiler.compile(pattern, mode: .fullMatch, keyword: "regex", pointer: "")
        var b = GrammarBuilder()
        let root = dfa.isEmpty ? b.add(.fail) : b.add(.dfa(b.addDFA(dfa)))
        let g = try b.finish(root: root, what: "regex")
        self.init(nodes: g.nodes, dfas: g.dfas, root: g.root, warnings: [])
    }
}
