import Testing
import Grammar

/// A byte-level test vocabulary: the 256 single bytes, some multi-byte tokens (including ones that
/// split UTF-8 characters and JSON punctuation runs), one control token and one end token.
enum TestVocab {
    static let extra: [String] = [
        "{\"", "\":", "\",\"", "\"}", "},", "}}", "[\"", "\"]", "\":\"", "\":{", "\":[", "true", "false",
        "null", "tru", "ue", "12", "123", "00", "0.", ".5", "e+", "-1", "name", "na", "me", "id", "type",
        "\\n", "\\u", "00e9", "ab", "abc", "  ", "\n  ", ",\n", "é", "日本", "ing", "the", " the", "\":\"x",
        "{}", "[]", "[{", "}]", ", ", ": ", "1,", "0,", "\u{1F600}",
    ]
    static let eos = 256 + extra.count + 1

    static let shared: GrammarVocabulary = {
        var toks: [[UInt8]] = (0..<256).map { [UInt8($0)] }
        for e in extra { toks.append(Array(e.utf8)) }
        toks.append([])  // a control token: never allowed
        toks.append(Array("</s>".utf8))  // end of generation
        // Tokens that split a multi-byte character: the first two bytes of "日" and the last one.
        toks.append([0xE6, 0x97])
        toks.append([0xA5])
        return GrammarVocabulary(tokens: toks, endOfGeneration: [eos])
    }()

    /// Greedy longest-match tokenization over the vocabulary (tests only).
    static func tokenize(_ text: String, _ v: GrammarVocabulary = shared) -> [Int] {
        let bytes = Array(text.utf8)
        var byBytes: [[UInt8]: Int] = [:]
        var maxLen = 1
        for t in 0..<v.size where !v.isEndOfGeneration(t) {
            let b = v.bytes(of: t)
            if b.isEmpty { continue }
            if byBytes[b] == nil { byBytes[b] = t }
            maxLen = max(maxLen, b.count)
        }
        return longestMatchTokens(bytes, tokenIDs: byBytes, maxLength: maxLen)
    }
}

enum Replay {
    /// Feeds `text` token by token, checking each token is inside the mask computed just before it;
    /// returns nil when the whole text and then end-of-generation were accepted, else the index of
    /// the first token the mask excluded (tokens.count when only the final EOS was refused).
    static func firstRejected(_ g: Grammar, _ text: String, _ v: GrammarVocabulary = TestVocab.shared) -> Int? {
        let m = GrammarMatcher(grammar: g, vocabulary: v)
        var mask = [UInt64](repeating: 0, count: v.maskWordCount)
        let toks = TestVocab.tokenize(text, v)
        for (k, t) in toks.enumerated() {
            m.mask(into: &mask)
            let inMask = mask[t >> 6] >> UInt64(t & 63) & 1 == 1
            let ok = m.accept(token: t)
            precondition(inMask == ok, "mask and accept disagree at token \(k)")
            if !ok { return k }
        }
        m.mask(into: &mask)
        let eos = v.endOfGeneration[0]
        return mask[eos >> 6] >> UInt64(eos & 63) & 1 == 1 ? nil : toks.count
    }

    static func accepts(_ g: Grammar, _ text: String) -> Bool { firstRejected(g, text) == nil }
}

/// Masks checked against acceptance along a text: the way the walk-specific suites prove that a
/// shortcut in mask computation changed no mask.
enum MaskAgreement {
    /// Walks `text` byte by byte through a fresh matcher, computing the mask before every byte,
    /// and returns the byte offsets whose mask disagrees with token-by-token acceptance (the
    /// automaton's own byte steps) and the matcher, at the end of the text.
    static func walk(_ g: Grammar, _ v: GrammarVocabulary, _ text: String) throws -> (bad: [Int], matcher: GrammarMatcher) {
        let m = GrammarMatcher(grammar: g, vocabulary: v)
        var mask = [UInt64](repeating: 0, count: v.maskWordCount)
        var bad: [Int] = []
        for (k, b) in Array(text.utf8).enumerated() {
            m.mask(into: &mask)
            if (0..<v.size).contains(where: { (mask[$0 >> 6] >> UInt64($0 & 63) & 1 == 1) != m.isAllowed(token: $0) }) {
                bad.append(k)
            }
            try #require(m.accept(bytes: [b]), "the test text leaves the grammar at byte \(k)")
        }
        return (bad, m)
    }
}
