import Testing
@testable import Grammar

/// Which pattern states can no longer die, the per-state and joint "can one more character
/// follow" answers, and what they buy: a string whose patterns cannot die shares the plain
/// string's mask, and every mask still agrees with token-by-token acceptance.
@Suite struct PatternLivenessTests {
    static func dfa(_ pattern: String) throws -> ByteDFA {
        try RegexCompiler.compile(pattern, mode: .search, keyword: "pattern", pointer: "")
    }

    /// The DFA state after `text`, or nil once it dies.
    static func state(_ d: ByteDFA, after text: [UInt8]) -> Int32? {
        var s: Int32 = 0
        for b in text {
            s = d.next(s, b)
            if s < 0 { return nil }
        }
        return s
    }

    @Test func aPrefixPatternStopsConstrainingOnceItIsWritten() throws {
        let d = try Self.dfa("^/")
        let l = PatternLiveness(d)
        #expect(!l.isUniversal(0, at: 0))
        let after = try #require(Self.state(d, after: Array("/".utf8)))
        #expect(l.isUniversal(after, at: 0))
        let deeper = try #require(Self.state(d, after: Array("/a/日本".utf8)))
        #expect(l.isUniversal(deeper, at: 0))
    }

    @Test func anUnanchoredPatternCanAlwaysStillBeWritten() throws {
        // "contains abc" never dies (abc can come later) but only accepts once abc was written.
        let d = try Self.dfa("abc")
        let l = PatternLiveness(d)
        #expect(l.isUniversal(0, at: 0))
        #expect(!d.accepting[0])
    }

    @Test func aCharacterClassThatExcludesCharactersIsNeverUniversal() throws {
        let d = try Self.dfa("^[a-z]+$")
        let l = PatternLiveness(d)
        for q in 0..<d.stateCount { #expect(!l.isUniversal(Int32(q), at: 0), "state \(q)") }
        let negated = try Self.dfa("^[^/]")
        let n = PatternLiveness(negated)
        #expect(!n.isUniversal(0, at: 0))
        #expect(n.isUniversal(try #require(Self.state(negated, after: Array("a".utf8))), at: 0))
        // The first character may be any other one, multi-byte included.
        #expect(n.isUniversal(try #require(Self.state(negated, after: Array("日".utf8))), at: 0))
    }

    @Test func insideACharacterOnlyItsOwnContinuationsCount() throws {
        // After é's lead byte (C3) the pattern takes only A9: not universal at that position,
        // though a `.*` tail after it is.
        let d = try Self.dfa("^é")
        let l = PatternLiveness(d)
        let mid = try #require(Self.state(d, after: [0xC3]))
        #expect(!l.isUniversal(mid, at: PatternLiveness.position(need: 1, lo: 0x80, hi: 0xBF)))
        let done = try #require(Self.state(d, after: [0xC3, 0xA9]))
        #expect(l.isUniversal(done, at: 0))
        // The positions follow the lead bytes' first-continuation ranges.
        #expect(PatternLiveness.position(need: 2, lo: 0xA0, hi: 0xBF) == 4)
        #expect(PatternLiveness.position(need: 2, lo: 0x80, hi: 0x9F) == 5)
        #expect(PatternLiveness.position(need: 3, lo: 0x90, hi: 0xBF) == 6)
        #expect(PatternLiveness.position(need: 3, lo: 0x80, hi: 0x8F) == 7)
        #expect(PatternLiveness.position(need: 3, lo: 0x80, hi: 0xBF) == 3)
    }

    @Test func oneMoreCharacterIsAnsweredPerState() throws {
        let d = try Self.dfa("^[a-c]{2}$")
        let l = PatternLiveness(d)
        #expect(l.someScalarLive(from: 0))
        let full = try #require(Self.state(d, after: Array("ab".utf8)))
        #expect(!l.someScalarLive(from: full))
    }

    /// `someScalarIsLive` against every scalar of the range, one by one, for patterns whose lead
    /// bytes live and whose last bytes mostly die (the shape that made the walk visit every
    /// scalar before whole continuation blocks were remembered).
    @Test(arguments: ["^\u{1F600}", "^[\u{1F600}-\u{1F64F}]", "^[\u{E000}-\u{E0FF}]", "^\u{10FFFF}", "^[é日]", "^[^a]"])
    func scalarLivenessMatchesEveryScalar(_ pattern: String) throws {
        let d = try Self.dfa(pattern)
        let step = { (s: Int32, b: UInt8) -> Int32? in
            let t = d.next(s, b)
            return t >= 0 ? t : nil
        }
        let ranges: [(UInt32, UInt32)] = [(0, 0x10FFFF), (0x1F600, 0x1F600), (0x1F601, 0x1F64F), (0x10000, 0x1F5FF),
                                          (0xD000, 0xE0FF), (0xE100, 0xFFFF), (0x61, 0x61), (0x80, 0x7FF), (0x10FFFF, 0x10FFFF)]
        for (lo, hi) in ranges {
            let brute = (lo...hi).contains { v in
                guard let u = Unicode.Scalar(v) else { return false }
                return Self.state(d, after: Array(String(Character(u)).utf8)) != nil
            }
            #expect(someScalarIsLive(lo, hi, from: Int32(0), step) == brute, "\(pattern) \(lo)...\(hi)")
        }
    }

    static let tokens: [[UInt8]] = {
        var t: [[UInt8]] = (0..<256).map { [UInt8($0)] }
        t += ["/a", "/", "ab", "a/", "//", "日本", "\\n", "\\u00e9", "\\u002f", "\\/", "a\"", "/\"", "\",", "x"].map { Array($0.utf8) }
        t += [[0xE6], [0x97, 0xA5]]
        t.append(Array("</s>".utf8))
        return t
    }()
    static let vocabulary = GrammarVocabulary(tokens: tokens, endOfGeneration: [tokens.count - 1])

    /// Masks under patterns that become universal, several at once, and inside characters:
    /// every bit must equal acceptance; once every pattern is universal the isolated mask is the
    /// plain string's shared one.
    @Test(arguments: [#"{"type":"string","pattern":"^/"}"#,
                      #"{"type":"string","allOf":[{"pattern":"^/"},{"pattern":"b"}]}"#,
                      #"{"type":"object","patternProperties":{"^/":{"type":"integer"},"^[^/]":{"type":"string"}},"additionalProperties":false}"#])
    func masksAgreeWithAcceptance(_ schema: String) throws {
        let g = try Grammar(jsonSchema: schema)
        let v = Self.vocabulary
        // Between characters, inside escapes, and after the lead byte of 日 (E6).
        var prefixes = [#"""#, #""/"#, #""/a"#, #""/\"#, #""/\u00"#, #""a"#, #"{""#, #"{"/"#, #"{"/x"#, #"{"a"#].map { Array($0.utf8) }
        prefixes += [Array(#""/"#.utf8) + [0xE6], Array(#"{""#.utf8) + [0xE6], Array(#"{"/"#.utf8) + [0xE6]]
        var checked = 0
        for p in prefixes {
            let m = GrammarMatcher(grammar: g, vocabulary: v)
            guard m.accept(bytes: p) else { continue }
            var mask = [UInt64](repeating: 0, count: v.maskWordCount)
            m.mask(into: &mask)
            let wrong = (0..<v.size).filter { (mask[$0 >> 6] >> UInt64($0 & 63) & 1 == 1) != m.isAllowed(token: $0) }
            #expect(wrong.isEmpty, "\(schema) after \(p): \(wrong)")
            checked += 1
        }
        #expect(checked >= 4)
    }

    @Test func aWrittenPrefixPatternSharesThePlainStringMask() throws {
        let g = try Grammar(jsonSchema: #"{"type":"string","pattern":"^/"}"#)
        let m = GrammarMatcher(grammar: g, vocabulary: Self.vocabulary)
        #expect(m.accept(bytes: Array(#""/a"#.utf8)))
        let iso = m.automaton.isolatedString(m.current)
        #expect(iso >= 0)
        #expect(m.automaton.sharedKey(iso, maxTokenBytes: Self.vocabulary.maxTokenLength) != nil)
        let before = GrammarMatcher(grammar: g, vocabulary: Self.vocabulary)
        #expect(before.accept(bytes: Array(#"""#.utf8)))
        #expect(before.automaton.sharedKey(before.automaton.isolatedString(before.current),
                                           maxTokenBytes: Self.vocabulary.maxTokenLength) == nil)
    }
}
