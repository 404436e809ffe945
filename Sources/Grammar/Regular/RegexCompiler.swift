/// ECMAScript regular expressions (the subset JSON Schema `pattern` uses) compiled to byte DFAs.
///
/// Supported: literals, `.`, classes `[...]`/`[^...]` with ranges and escapes, `\d \D \w \W \s \S`,
/// `\n \r \t \v \f \0 \xHH \uHHHH \u{H…} \cX`, identity escapes, groups `(…)`, `(?:…)`,
/// `(?<name>…)`, alternation, quantifiers `* + ? {m} {m,} {m,n}` (lazy forms have the same language),
/// and the anchors `^`/`$` at the edges of top-level alternatives. Lookaround, backreferences,
/// `\b`/`\B` and `\p{…}` are reported as unsupported rather than approximated.
indirect enum RegexNode: Sendable {
    case empty
    case chars(CharClass)
    case concat([RegexNode])
    case alt([RegexNode])
    case repeated(RegexNode, min: Int, max: Int?)
    case startAnchor
    case endAnchor
}

struct RegexParser {
    private let s: [UInt32]
    private var i = 0
    private let pointer: String
    private let keyword: String
    /// Group nesting so far: parsing, and every pass over the tree after it, recurse with it.
    private var depth = 0
    /// Deepest group nesting accepted (real patterns nest a handful of levels).
    static let maximumNesting = 64
    /// Looked up once nesting gets deep (finding a thread's stack can cost tens of microseconds).
    private var stack: StackGuard?

    init(_ pattern: String, keyword: String = "pattern", pointer: String = "") {
        s = pattern.unicodeScalars.map(\.value)
        self.keyword = keyword
        self.pointer = pointer
    }

    private func fail(_ why: String) -> GrammarError {
        GrammarError(.syntax, keyword: keyword, pointer: pointer, "regex: \(why) at offset \(i)")
    }
    private func unsupported(_ why: String) -> GrammarError {
        GrammarError(.unsupported, keyword: keyword, pointer: pointer, "regex: \(why)")
    }

    mutating func parse() throws(GrammarError) -> RegexNode {
        let n = try parseAlt()
        if i < s.count { throw fail("unbalanced ')'") }
        return n
    }

    private mutating func parseAlt() throws(GrammarError) -> RegexNode {
        var branches = [try parseConcat()]
        while i < s.count, s[i] == 0x7C {  // |
            i += 1
            branches.append(try parseConcat())
        }
        return branches.count == 1 ? branches[0] : .alt(branches)
    }

    private mutating func parseConcat() throws(GrammarError) -> RegexNode {
        var items: [RegexNode] = []
        while i < s.count, s[i] != 0x7C, s[i] != 0x29 {
            var atom = try parseAtom()
            atom = try parseQuantifiers(atom)
            items.append(atom)
        }
        return items.count == 1 ? items[0] : (items.isEmpty ? .empty : .concat(items))
    }

    private mutating func parseQuantifiers(_ atom: RegexNode) throws(GrammarError) -> RegexNode {
        var node = atom
        var stacked = 0
        while i < s.count {
            let c = s[i]
            var q: (Int, Int?)?
            if c == 0x2A { q = (0, nil); i += 1 }
            else if c == 0x2B { q = (1, nil); i += 1 }
            else if c == 0x3F { q = (0, 1); i += 1 }
            else if c == 0x7B, let b = tryBraces() { q = b }
            guard let (lo, hi) = q else { break }
            if case .startAnchor = node { throw unsupported("quantified anchor") }
            if case .endAnchor = node { throw unsupported("quantified anchor") }
            if let hi, hi < lo { throw fail("quantifier range out of order") }
            if i < s.count, s[i] == 0x3F { i += 1 }  // lazy: same language
            // Stacked quantifiers nest nodes without parentheses: bound them like groups.
            stacked += 1
            if stacked > 8 { throw GrammarError(.limit, keyword: keyword, pointer: pointer, "regex: more than 8 stacked quantifiers at offset \(i)") }
            node = .repeated(node, min: lo, max: hi)
        }
        return node
    }

    /// `{m}`, `{m,}`, `{m,n}`; anything else leaves `{` as a literal (Annex B).
    private mutating func tryBraces() -> (Int, Int?)? {
        var j = i + 1
        func number(_ j: inout Int) -> Int? {
            var v = 0, any = false
            while j < s.count, s[j] >= 0x30, s[j] <= 0x39 {
                v = min(v * 10 + Int(s[j] - 0x30), 1_000_000)
                j += 1
                any = true
            }
            return any ? v : nil
        }
        guard let lo = number(&j) else { return nil }
        var hi: Int? = lo
        if j < s.count, s[j] == 0x2C {
            j += 1
            hi = number(&j)
        }
        guard j < s.count, s[j] == 0x7D else { return nil }
        i = j + 1
        return (lo, hi)
    }

    private mutating func parseAtom() throws(GrammarError) -> RegexNode {
        let c = s[i]
        switch c {
        case 0x5E: i += 1; return .startAnchor
        case 0x24: i += 1; return .endAnchor
        case 0x2E: i += 1; return .chars(.dot)
        case 0x28:
            i += 1
            if i < s.count, s[i] == 0x3F {
                if i + 1 < s.count, s[i + 1] == 0x3A {
                    i += 2
                } else if i + 1 < s.count, s[i + 1] == 0x3C, i + 2 < s.count, s[i + 2] != 0x3D, s[i + 2] != 0x21 {
                    i += 2
                    while i < s.count, s[i] != 0x3E { i += 1 }
                    guard i < s.count else { throw fail("unterminated group name") }
                    i += 1
                } else {
                    throw unsupported("lookaround or inline flags")
                }
            }
            depth += 1
            defer { depth -= 1 }
            if depth > 16 && stack == nil { stack = StackGuard() }
            if depth > RegexParser.maximumNesting || stack?.hasRoom() == false {
                throw GrammarError(.limit, keyword: keyword, pointer: pointer,
                                   "regex: groups nested deeper than \(RegexParser.maximumNesting) at offset \(i)")
            }
            let inner = try parseAlt()
            guard i < s.count, s[i] == 0x29 else { throw fail("missing ')'") }
            i += 1
            return inner
        case 0x5B: return .chars(try parseClass())
        case 0x5C: return try parseEscape()
        case 0x2A, 0x2B, 0x3F: throw fail("nothing to repeat")
        case 0x7B:
            if tryBraces() != nil { throw fail("nothing to repeat") }
            i += 1
            return .chars(CharClass(scalar: c))
        default:
            i += 1
            return .chars(CharClass(scalar: c))
        }
    }

    private mutating func parseEscape() throws(GrammarError) -> RegexNode {
        i += 1
        guard i < s.count else { throw fail("trailing backslash") }
        let c = s[i]
        switch c {
        case 0x62, 0x42: throw unsupported("word-boundary assertion \\b/\\B")
        case 0x31...0x39: throw unsupported("backreference")
        case 0x70, 0x50: throw unsupported("Unicode property escape")
        default: return .chars(try classEscape(inClass: false))
        }
    }

    /// Parses the escape after a backslash (i points at the escaped character).
    private mutating func classEscape(inClass: Bool) throws(GrammarError) -> CharClass {
        let c = s[i]
        i += 1
        switch c {
        case 0x64: return .digit
        case 0x44: return CharClass.digit.inverted
        case 0x77: return .word
        case 0x57: return CharClass.word.inverted
        case 0x73: return .space
        case 0x53: return CharClass.space.inverted
        case 0x6E: return CharClass(scalar: 0x0A)
        case 0x72: return CharClass(scalar: 0x0D)
        case 0x74: return CharClass(scalar: 0x09)
        case 0x76: return CharClass(scalar: 0x0B)
        case 0x66: return CharClass(scalar: 0x0C)
        case 0x62 where inClass: return CharClass(scalar: 0x08)
        case 0x30: return CharClass(scalar: 0)
        case 0x63:
            if i < s.count, (0x41...0x5A).contains(s[i]) || (0x61...0x7A).contains(s[i]) {
                let v = s[i] % 32
                i += 1
                return CharClass(scalar: v)
            }
            return CharClass(scalar: 0x5C)  // Annex B: `\c` stays a backslash and `c`
        case 0x78:
            if let v = hex(2) { return CharClass(scalar: v) }
            return CharClass(scalar: 0x78)
        case 0x75:
            if i < s.count, s[i] == 0x7B {
                var j = i + 1, v: UInt32 = 0, n = 0
                while j < s.count, let d = hexDigit(s[j]) { v = v &* 16 &+ d; j += 1; n += 1 }
                if n > 0, n <= 6, j < s.count, s[j] == 0x7D, v <= 0x10FFFF { i = j + 1; return CharClass(scalar: v) }
                return CharClass(scalar: 0x75)
            }
            if let v = hex(4) {
                if (0xD800...0xDBFF).contains(v), i + 5 < s.count, s[i] == 0x5C, s[i + 1] == 0x75 {
                    let save = i
                    i += 2
                    if let lo = hex(4), (0xDC00...0xDFFF).contains(lo) {
                        return CharClass(scalar: 0x10000 + ((v - 0xD800) << 10) + (lo - 0xDC00))
                    }
                    i = save
                }
                if (0xD800...0xDFFF).contains(v) { throw unsupported("lone surrogate escape") }
                return CharClass(scalar: v)
            }
            return CharClass(scalar: 0x75)
        case 0x70, 0x50: throw unsupported("Unicode property escape")
        case 0x31...0x39 where !inClass: throw unsupported("backreference")
        default:
            return CharClass(scalar: c)
        }
    }

    private func hexDigit(_ c: UInt32) -> UInt32? {
        switch c {
        case 0x30...0x39: return c - 0x30
        case 0x41...0x46: return c - 0x41 + 10
        case 0x61...0x66: return c - 0x61 + 10
        default: return nil
        }
    }

    private mutating func hex(_ n: Int) -> UInt32? {
        guard i + n <= s.count else { return nil }
        var v: UInt32 = 0
        for k in 0..<n {
            guard let d = hexDigit(s[i + k]) else { return nil }
            v = v * 16 + d
        }
        i += n
        return v
    }

    private mutating func parseClass() throws(GrammarError) -> CharClass {
        i += 1
        var negate = false
        if i < s.count, s[i] == 0x5E { negate = true; i += 1 }
        var set = CharClass()
        var first = true
        while true {
            guard i < s.count else { throw fail("unterminated character class") }
            if s[i] == 0x5D, !(first && false) { i += 1; break }
            first = false
            let (a, aSingle) = try classAtom()
            if i + 1 < s.count, s[i] == 0x2D, s[i + 1] != 0x5D, let lo = aSingle {
                i += 1
                let (b, bSingle) = try classAtom()
                guard let hi = bSingle else {
                    // `[a-\d]`: Annex B treats the dash literally.
                    set.add(a); set.add(CharClass(scalar: 0x2D)); set.add(b)
                    continue
                }
                if hi < lo { throw fail("class range out of order") }
                set.add(lo...hi)
            } else {
                set.add(a)
            }
        }
        return negate ? set.inverted : set
    }

    /// One class member: the set, and its scalar when it is a single character (for ranges).
    private mutating func classAtom() throws(GrammarError) -> (CharClass, UInt32?) {
        if s[i] == 0x5C {
            i += 1
            guard i < s.count else { throw fail("trailing backslash") }
            let c = s[i]
            let set = try classEscape(inClass: true)
            let single = "dDwWsS".unicodeScalars.contains(where: { $0.value == c }) ? nil : set.ranges.first.map(\.lowerBound)
            return (set, single)
        }
        let c = s[i]
        i += 1
        return (CharClass(scalar: c), c)
    }
}

/// How a regex is matched against a whole string.
enum RegexMode {
    /// JSON Schema `pattern`: the regex may match anywhere unless anchored with `^`/`$`.
    case search
    /// The plain regex entry point: the whole output must match.
    case fullMatch
}

enum RegexCompiler {
    /// Compiles an ECMAScript regex into a byte DFA over the UTF-8 encoding of matching strings.
    static func compile(_ pattern: String, mode: RegexMode, keyword: String = "pattern", pointer: String = "") throws(GrammarError) -> ByteDFA {
        var unlimited = Int.max
        return try compile(pattern, mode: mode, keyword: keyword, pointer: pointer, sharedBudget: &unlimited)
    }

    /// As above, charging the determinization against `sharedBudget` (see `ByteNFA.determinize`).
    static func compile(_ pattern: String, mode: RegexMode, keyword: String, pointer: String,
                        sharedBudget: inout Int) throws(GrammarError) -> ByteDFA {
        var p = RegexParser(pattern, keyword: keyword, pointer: pointer)
        let ast: RegexNode
        do { ast = try p.parse() } catch {
            throw GrammarError(error.kind, keyword: keyword, pointer: pointer, error.reason)
        }
        var nfa = ByteNFA()
        do {
            let start = try nfa.newState(), accept = try nfa.newState()
            for (branch, anchoredStart, anchoredEnd) in try topBranches(ast) {
                let a = try nfa.newState(), b = try nfa.newState()
                nfa.eps[Int(start)].append(a)
                nfa.eps[Int(b)].append(accept)
                var from = a
                if mode == .search && !anchoredStart {
                    // `.*` over any bytes: the string decoder already guarantees valid UTF-8.
                    nfa.addBytes(0...255, from: a, to: a)
                }
                let x = try nfa.newState()
                nfa.eps[Int(from)].append(x)
                from = x
                let y = try build(branch, &nfa, from: from)
                nfa.eps[Int(y)].append(b)
                if mode == .search && !anchoredEnd { nfa.addBytes(0...255, from: b, to: b) }
            }
            return try nfa.determinize(start: start, accept: accept, sharedBudget: &sharedBudget)
        } catch {
            throw GrammarError(error.kind, keyword: keyword, pointer: pointer, error.reason)
        }
    }

    /// Top-level alternatives with their edge anchors removed; anchors anywhere else are unsupported.
    private static func topBranches(_ n: RegexNode) throws(GrammarError) -> [(RegexNode, Bool, Bool)] {
        var out: [(RegexNode, Bool, Bool)] = []
        let branches: [RegexNode]
        if case .alt(let xs) = n { branches = xs } else { branches = [n] }
        for b in branches {
            var items: [RegexNode]
            if case .concat(let xs) = b { items = xs } else { items = [b] }
            // A group holding anchored alternatives, alone in its branch: `(^a$|^b$)`.
            if items.count == 1, case .alt = items[0], containsAnchor(items[0]) {
                out.append(contentsOf: try topBranches(items[0]))
                continue
            }
            var s = false, e = false
            while let f = items.first, case .startAnchor = f { items.removeFirst(); s = true }
            while let l = items.last, case .endAnchor = l { items.removeLast(); e = true }
            let body: RegexNode = .concat(items)
            if containsAnchor(body) {
                throw GrammarError(.unsupported, keyword: "pattern", pointer: "", "regex: anchor inside the pattern")
            }
            out.append((body, s, e))
        }
        return out
    }

    private static func containsAnchor(_ n: RegexNode) -> Bool {
        switch n {
        case .startAnchor, .endAnchor: return true
        case .empty, .chars: return false
        case .concat(let xs), .alt(let xs): return xs.contains(where: containsAnchor)
        case .repeated(let x, _, _): return containsAnchor(x)
        }
    }

    /// Thompson construction; returns the fragment's exit state.
    static func build(_ n: RegexNode, _ nfa: inout ByteNFA, from: Int32) throws(GrammarError) -> Int32 {
        switch n {
        case .empty: return from
        case .chars(let c):
            let t = try nfa.newState()
            try nfa.addClass(c, from: from, to: t)
            return t
        case .concat(let xs):
            var cur = from
            for x in xs { cur = try build(x, &nfa, from: cur) }
            return cur
        case .alt(let xs):
            let out = try nfa.newState()
            for x in xs {
                let a = try nfa.newState()
                nfa.eps[Int(from)].append(a)
                let e = try build(x, &nfa, from: a)
                nfa.eps[Int(e)].append(out)
            }
            return out
        case .repeated(let x, let lo, let hi):
            var cur = from
            for _ in 0..<lo { cur = try build(x, &nfa, from: cur) }
            if let hi {
                let out = try nfa.newState()
                nfa.eps[Int(cur)].append(out)
                for _ in lo..<hi {
                    cur = try build(x, &nfa, from: cur)
                    nfa.eps[Int(cur)].append(out)
                }
                return out
            }
            let loop = try nfa.newState()
            nfa.eps[Int(cur)].append(loop)
            let e = try build(x, &nfa, from: loop)
            nfa.eps[Int(e)].append(loop)
            return loop
        case .startAnchor, .endAnchor:
            throw GrammarError(.unsupported, keyword: "pattern", pointer: "", "regex: anchor inside the pattern")
        }
    }
}
