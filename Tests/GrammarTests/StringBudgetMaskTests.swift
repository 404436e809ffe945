import Testing
@testable import Grammar

/// Masks of strings with a `maxLength`: the unbounded mask cut by the tokens' character counts
/// must equal, for every remaining budget, token-by-token acceptance (the automaton's own byte
/// steps), on a small vocabulary of multi-byte characters, tokens that split a character, escapes
/// and surrogate pairs.
@Suite struct StringBudgetMaskTests {
    static let tokens: [[UInt8]] = {
        var t: [[UInt8]] = (0..<256).map { [UInt8($0)] }
        let text = ["ab", "abc", "abcdefgh", "é", "éé", "aé", "日本", "日本語です", "\u{1F600}", "x\u{1F600}", "\\n", "\\\\", "a\\",
                    "\\u00e9", "\\u00", "e9x", "\\ud83d", "\\ude00", "\\ud83d\\ude00", "x\\ud83d\\ude00y", "\\u", "a\"", "\",",
                    "q", "aq", "  ", "ab\\n"]
        t += text.map { Array($0.utf8) }
        // Pieces of "日" (E6 97 A5) and of "😀" (F0 9F 98 80), as byte-level vocabularies have them.
        t += [[0xE6], [0xE6, 0x97], [0x97, 0xA5], [0xA5, 0x61], [0xA5, 0xE6, 0x97], [0xF0, 0x9F], [0x98, 0x80, 0x62]]
        t.append([])  // a control token
        t.append(Array("</s>".utf8))
        return t
    }()
    static let vocabulary = GrammarVocabulary(tokens: tokens, endOfGeneration: [tokens.count - 1])

    /// Tokens whose bit in the mask after `prefix` disagrees with acceptance; nil when the prefix
    /// leaves the grammar. `warm` computes a mask before every byte of the prefix too.
    static func disagreements(_ g: Grammar, after prefix: [UInt8], warm: Bool) -> [Int]? {
        let v = vocabulary
        let m = GrammarMatcher(grammar: g, vocabulary: v)
        var mask = [UInt64](repeating: 0, count: v.maskWordCount)
        for b in prefix {
            if warm { m.mask(into: &mask) }
            if !m.accept(bytes: [b]) { return nil }
        }
        m.mask(into: &mask)
        return (0..<v.size).filter { (mask[$0 >> 6] >> UInt64($0 & 63) & 1 == 1) != m.isAllowed(token: $0) }
    }

    /// Prefixes leaving every budget from `maxLength` down to 0, between characters, inside a raw
    /// character and inside escapes.
    static func prefixes(open: String, maxLength n: Int) -> [[UInt8]] {
        var out: [[UInt8]] = []
        for k in 0...n {
            let head = Array(open.utf8) + Array(repeating: UInt8(ascii: "a"), count: k)
            out.append(head)
            if k < n {
                out.append(head + [0xE6])
                out.append(head + [0xE6, 0x97])
                out.append(head + [0xF0, 0x9F])
                out.append(head + Array(#"\"#.utf8))
                out.append(head + Array(#"\u00"#.utf8))
                out.append(head + Array(#"\ud83d"#.utf8))
            }
        }
        return out
    }

    /// The schemas checked, with `maxLength` `n`: plain, with `minLength`, with patterns (the value
    /// is decoded, so surrogate pairs count once) that can and cannot reject, inside an object.
    static func schema(_ kind: Int, maxLength n: Int) -> (schema: String, open: String) {
        switch kind {
        case 0: return (#"{"type":"string","maxLength":"# + "\(n)}", #"""#)
        case 1: return (#"{"type":"string","minLength":"# + "\(min(n, 2)),\"maxLength\":\(n)}", #"""#)
        case 2: return (#"{"type":"string","pattern":"^[^q]*$","maxLength":"# + "\(n)}", #"""#)
        case 3: return (#"{"type":"string","pattern":"^.*$","maxLength":"# + "\(n)}", #"""#)
        default: return (#"{"type":"object","properties":{"s":{"type":"string","maxLength":"# + "\(n)}}}", #"{"s":""#)
        }
    }

    @Test(arguments: 0..<5)
    func everyBudgetMatchesAcceptance(kind: Int) throws {
        // Up to one past the longest token, so every budget a token can exhaust is met.
        for n in [0, 1, 2, 3, 5, Self.vocabulary.maxTokenLength + 1] {
            let (schema, open) = Self.schema(kind, maxLength: n)
            for options in [JSONSchemaOptions(), .recognition] {
                let g = try Grammar(jsonSchema: schema, options: options)
                for prefix in Self.prefixes(open: open, maxLength: n) {
                    for warm in [false, true] {
                        let wrong = try #require(Self.disagreements(g, after: prefix, warm: warm),
                                                 "\(schema): \(prefix) leaves the grammar")
                        #expect(wrong.isEmpty, "\(schema) after \(prefix) (warm \(warm)): mask and acceptance disagree on \(wrong.map { Self.tokens[$0] })")
                    }
                }
            }
        }
    }

    /// The split path is the one these masks take: a string state with a budget a token can
    /// exhaust is cut from its unbounded twin, inside a raw character too, but not inside an escape.
    @Test func budgetedStatesTakeTheSplit() throws {
        let g = try Grammar(jsonSchema: #"{"type":"string","maxLength":5}"#)
        let maxBytes = Self.vocabulary.maxTokenLength
        for (prefix, budget) in [(#""ab"#, 3), (#"""#, 5), (#""abcde"#, 0), (#""a日"#, 3)] {
            let m = GrammarMatcher(grammar: g, vocabulary: Self.vocabulary)
            #expect(m.accept(bytes: Array(prefix.utf8)))
            let iso = m.automaton.isolatedString(m.current)
            let split = try #require(m.automaton.lengthBudgetSplit(iso, maxTokenBytes: maxBytes), "\(prefix)")
            #expect(split.budget == budget)
            // A length-bounded frame decodes escapes, so a surrogate pair counts as one code point.
            #expect(split.tracksValue)
            #expect(m.automaton.lengthBudgetSplit(split.unbounded, maxTokenBytes: maxBytes) == nil)
        }
        let m = GrammarMatcher(grammar: g, vocabulary: Self.vocabulary)
        #expect(m.accept(bytes: Array(#""a\"#.utf8)))
        #expect(m.automaton.lengthBudgetSplit(m.automaton.isolatedString(m.current), maxTokenBytes: maxBytes) == nil)
    }

    /// Every token a budget's mask admits leaves a string that can still be closed: at a full
    /// budget no escape may open (its last byte would have no budget left), and mid-escape the
    /// escape can always finish.
    @Test(arguments: 0..<5)
    func everyAdmittedTokenCanBeFinished(kind: Int) throws {
        for n in [0, 1, 3] {
            let (schema, open) = Self.schema(kind, maxLength: n)
            let g = try Grammar(jsonSchema: schema)
            for prefix in Self.prefixes(open: open, maxLength: n) {
                let stuck = try #require(Self.admittedButUnfinishable(g, after: prefix), "\(schema): \(prefix)")
                #expect(stuck.isEmpty, "\(schema) after \(prefix): \(stuck) admitted but cannot be finished")
            }
        }
    }

    /// With patterns, an escape is admitted only while some character it can still write is one
    /// the patterns take — at the backslash, at each hex digit, and for the pair a high surrogate
    /// starts — and the escapes that write such characters are still accepted.
    @Test func escapesUnderPatternsCanBeFinished() throws {
        let cases: [(schema: String, prefixes: [String], valid: [String])] = [
            (#"{"type":"string","pattern":"^[a-z]*$"}"#, [#"""#, #""ab"#, #""\"#, #""\u"#, #""\u0"#, #""\u00"#, #""\u006"#],
             [#""\u0061b""#, #""a\u007a""#]),
            (#"{"type":"string","pattern":"^ab$"}"#, [#"""#, #""a"#, #""ab"#, #""\u006"#], [#""\u0061b""#]),
            (#"{"type":"string","pattern":"^[a😀]*$"}"#, [#"""#, #""\u"#, #""\ud83d"#, #""\ud83d\u"#, #""\ud83d\ude0"#],
             [#""\ud83d\ude00a""#, #""\u0061""#]),
        ]
        for c in cases {
            let g = try Grammar(jsonSchema: c.schema)
            for prefix in c.prefixes {
                let stuck = try #require(Self.admittedButUnfinishable(g, after: Array(prefix.utf8)), "\(c.schema): \(prefix)")
                #expect(stuck.isEmpty, "\(c.schema) after \(prefix): \(stuck) admitted but cannot be finished")
            }
            for text in c.valid {
                let m = GrammarMatcher(grammar: g, vocabulary: Self.vocabulary)
                #expect(m.accept(bytes: Array(text.utf8)) && m.isComplete, "\(c.schema): \(text)")
            }
        }
        // Refused where no later digit could help: `\u1…` is never a lowercase letter.
        let m = GrammarMatcher(grammar: try Grammar(jsonSchema: #"{"type":"string","pattern":"^[a-z]*$"}"#),
                               vocabulary: Self.vocabulary)
        #expect(m.accept(bytes: Array(#""\u"#.utf8)))
        #expect(!m.accept(bytes: Array("1".utf8)))
    }

    /// The tokens the mask after `prefix` admits whose bytes leave a matcher that cannot be
    /// completed; nil when the prefix itself is refused.
    static func admittedButUnfinishable(_ g: Grammar, after prefix: [UInt8]) -> [[UInt8]]? {
        let m = GrammarMatcher(grammar: g, vocabulary: vocabulary)
        guard m.accept(bytes: prefix) else { return nil }
        let planner = GrammarCompletionPlanner(matcher: m)
        var mask = [UInt64](repeating: 0, count: vocabulary.maskWordCount)
        m.mask(into: &mask)
        var stuck: [[UInt8]] = []
        for id in 0..<vocabulary.size where mask[id >> 6] >> UInt64(id & 63) & 1 == 1 && !vocabulary.isEndOfGeneration(id) {
            guard m.accept(token: id) else { stuck.append(tokens[id]); continue }
            if planner.shortestCompletion(of: m) == nil { stuck.append(tokens[id]) }
            m.rollback(1)
        }
        return stuck
    }

    /// Characters are counted where the string walk counts them: at a character's lead byte, at
    /// the backslash that starts an escape, and, when the value is decoded, once per surrogate pair.
    @Test func tokenCountsFollowTheStringWalk() throws {
        var plain = StringWalkSpec()
        plain.maxLength = Int32.max
        do {
            var tracked = plain
            tracked.tracksValue = true
            let cases: [([UInt8], Int32, Int32)] = [
                (Array("abc".utf8), 3, 3), (Array("é".utf8), 1, 1), (Array("日本".utf8), 2, 2), ([0xE6], 1, 1),
                ([0x97, 0xA5], 0, 0), ([0xA5, 0x61], 1, 1), (Array(#"\n"#.utf8), 1, 1), (Array(#"a\"#.utf8), 2, 2),
                (Array(#"\u00e9"#.utf8), 1, 1), (Array(#"\u00"#.utf8), 1, 1), (Array(#"\ud83d"#.utf8), 1, 1),
                (Array(#"\ud83d\ude00"#.utf8), 2, 1), (Array(#"x\ud83d\ude00y"#.utf8), 4, 3), ([], 0, 0),
            ]
            for (bytes, p, t) in cases {
                #expect(StringBudgetMasks.count(bytes, plain) == p, "\(bytes)")
                #expect(StringBudgetMasks.count(bytes, tracked) == t, "\(bytes)")
            }
        }
        let masks = Self.vocabulary.stringBudgets
        let exceptional = Set(masks.exceptions.map(\.token))
        for text in [#"\ud83d\ude00"#, #"x\ud83d\ude00y"#] {
            let id = try #require(Self.tokens.firstIndex(of: Array(text.utf8)))
            #expect(exceptional.contains(id), "\(text)")
        }
        // A high surrogate alone counts one either way: the pair is counted as its first half starts.
        let high = try #require(Self.tokens.firstIndex(of: Array(#"\ud83d"#.utf8)))
        #expect(!exceptional.contains(high))
    }
}
