import Testing
import LoomJSON
@testable import Grammar

/// Masks inside pattern-constrained strings must equal token-by-token acceptance (the
/// automaton's own byte steps) at every prefix: where trie subtrees come from the subtree memo
/// (shared between pattern states by horizon class; the memo must actually be used), and where
/// a key's alternatives (property names, patterns, "any other name") walk the trie together.
@Suite struct IsolatedStringWalkTests {
    /// Single bytes, every two-letter word, three-letter words, space-prefixed words and digit
    /// runs: first-byte subtrees large enough (48+ tokens) and shallow enough for the memo.
    static let vocabulary: GrammarVocabulary = {
        var t: [[UInt8]] = (0..<256).map { [UInt8($0)] }
        let letters = Array("abcdefghijklmnopqrstuvwxyz".utf8)
        for a in letters {
            for b in letters {
                t.append([a, b])
                t.append([0x20, a, b])
                if a < UInt8(ascii: "f") { for c in letters { t.append([a, b, c]) } }
            }
        }
        let digits = Array("0123456789".utf8)
        for a in digits { for b in digits { t.append([a, b]); for c in digits { t.append([a, b, c]) } } }
        t += ["@ex", ".com", "é", "\\n", "a\"", "\",", "ab cd"].map { Array($0.utf8) }
        t.append(Array("</s>".utf8))
        return GrammarVocabulary(tokens: t, endOfGeneration: [t.count - 1])
    }()

    /// Walks `text` byte by byte from the start of the schema's grammar, computing the mask at
    /// every byte, and returns the prefixes (byte counts) whose mask disagrees with acceptance,
    /// plus the memo's hit count.
    static func disagreements(_ schema: String, _ text: String) throws -> (bad: [Int], hits: Int, jointPlain: Int, unions: Int, covered: Int) {
        let g = try Grammar(jsonSchema: try JSONValue(parsing: schema), options: .recognition)
        let (bad, m) = try MaskAgreement.walk(g, vocabulary, text)
        return (bad, m.automaton.stringSubtrees.hits, m.jointPlainMasks, m.unionMasks, m.plainCoverMasks)
    }

    @Test(arguments: [
        // A word counter: fifty states that agree a few words ahead (classes refine).
        (#"{"type":"string","pattern":"^(?:\\S+\\s+){0,6}\\S+$"}"#, #""ab cd ef gh ij kl mn""#),
        // Digit counters with an optional fraction.
        (#"{"type":"string","pattern":"^\\d{1,15}(?:\\.\\d{1,5})?$"}"#, #""12345678901.2345""#),
        // A bound that cuts subtrees as it runs out.
        (#"{"type":"string","pattern":"^[a-z]{2,30}$","maxLength":12}"#, #""abcdefghijkl""#),
        // Counted pairs: states one byte ahead of each other inside a pair, apart by count.
        (#"{"type":"string","pattern":"^(?:ab|cd){0,20}e?$"}"#, #""abcdabcdcdabe""#),
        // A format DFA.
        (#"{"type":"string","format":"email"}"#, #""abc.de@ex.com""#),
    ])
    func masksEqualAcceptance(_ schema: String, _ text: String) throws {
        let r = try Self.disagreements(schema, text)
        #expect(r.bad.isEmpty, "masks disagree with acceptance after \(r.bad) bytes")
        #expect(r.hits > 0, "the subtree memo was never hit")
    }

    @Test(arguments: [
        (#"{"type":"object","patternProperties":{"[0-9]{2,}":{"type":"boolean"},"X_":{"type":"string"}}}"#, #"{"ab12":true,"cd":1}"#),
        (#"{"type":"object","properties":{"foo":{},"bar":{}},"patternProperties":{"^v":{}},"additionalProperties":false}"#, #"{"vab":1,"foo":2}"#),
        (#"{"type":"object","patternProperties":{"^a[0-9]+$":{},"b$":{}},"additionalProperties":{"type":"integer"}}"#, #"{"a12":[],"cab":{},"zz":3}"#),
    ])
    func keyAlternativesEqualAcceptance(_ schema: String, _ text: String) throws {
        let r = try Self.disagreements(schema, text)
        #expect(r.bad.isEmpty, "masks disagree with acceptance after \(r.bad) bytes")
    }

    /// Two patterns that leave some names impossible take one walk of their joined pattern, and
    /// its masks are the lanes' union.
    @Test func keyPatternsWalkedAsOneJoinedPattern() throws {
        let r = try Self.disagreements(#"{"type":"object","patternProperties":{"[0-9]{2,}":{"type":"boolean"},"X_":{"type":"string"}}}"#,
                                       #"{"ab12":true,"cX_d":"x"}"#)
        #expect(r.bad.isEmpty, "masks disagree with acceptance after \(r.bad) bytes")
        #expect(r.unions > 0, "the key's patterns were walked as separate lanes")
    }

    /// Declared names beside "any other name" (a pattern that never dies, only decides whether the
    /// key may end) take the plain string's mask, without analysing the exclusion patterns.
    @Test func otherNameCoversDeclaredNames() throws {
        let r = try Self.disagreements(#"{"type":"object","properties":{"foo":{"type":"integer"},"bar":{}},"additionalProperties":{"type":"string"}}"#,
                                       #"{"foo":1,"zz":"y","bar":2,"fo":"z"}"#)
        #expect(r.bad.isEmpty, "masks disagree with acceptance after \(r.bad) bytes")
        #expect(r.covered > 0, "the covering frame was not recognised")
    }

    /// Keys whose alternatives cover every name between them (a pattern and "any other name")
    /// take the plain string's mask without a walk; where two patterns make some names
    /// impossible (a name matching both needs a value of two types), they do not.
    @Test func keyAlternativesCoveringEveryName() throws {
        let covering = try Self.disagreements(#"{"type":"object","patternProperties":{"^a":{"type":"integer"}},"additionalProperties":{"type":"string"}}"#,
                                              #"{"ab":1,"cd":"x"}"#)
        #expect(covering.bad.isEmpty, "masks disagree with acceptance after \(covering.bad) bytes")
        #expect(covering.jointPlain > 0, "the covering key alternatives were walked")
        let gap = try Self.disagreements(#"{"type":"object","patternProperties":{"[0-9]{2,}":{"type":"boolean"},"X_":{"type":"string"}}}"#,
                                         #"{"ab12":true}"#)
        #expect(gap.bad.isEmpty, "masks disagree with acceptance after \(gap.bad) bytes")
        #expect(gap.jointPlain == 0, "names matching both patterns were taken for possible")
    }
}
