import Testing
import LoomJSON
@testable import Grammar

/// Masks while a JSON number is read, where the number-byte tokens come from the direct walk of
/// the isolated number frame, must equal token-by-token acceptance (the automaton's own byte
/// steps) at every prefix, for numbers that track their literal (bounds, `multipleOf`, `enum`).
@Suite struct NumberWalkTests {
    /// Digit runs of one to three digits, and the other number bytes alone and in pairs.
    static let vocabulary: GrammarVocabulary = {
        var t: [[UInt8]] = (0..<256).map { [UInt8($0)] }
        let digits = Array("0123456789".utf8)
        for a in digits { for b in digits { t.append([a, b]); for c in digits { t.append([a, b, c]) } } }
        let numberBytes = Array("0123456789.eE+-".utf8)
        for a in numberBytes { for b in numberBytes { t.append([a, b]) } }
        t += ["1,", "0]", "5}", "2.5", "-0.", "1e-", " 1", ",2"].map { Array($0.utf8) }
        t.append(Array("</s>".utf8))
        return GrammarVocabulary(tokens: t, endOfGeneration: [t.count - 1])
    }()

    @Test(arguments: [
        (#"{"type":"integer","minimum":10,"maximum":250}"#, "125"),
        (#"{"type":"number","exclusiveMinimum":-2.5,"maximum":7}"#, "-2.25e0"),
        (#"{"type":"integer","minimum":1}"#, "100.0e-2"),
        (#"{"type":"number","multipleOf":0.25}"#, "12.75"),
        (#"{"enum":[1,2.5,300]}"#, "2.50"),
        (#"{"type":"array","items":{"type":"integer","maximum":99}}"#, "[12,0,99]"),
    ])
    func masksEqualAcceptance(_ schema: String, _ text: String) throws {
        let g = try Grammar(jsonSchema: try JSONValue(parsing: schema), options: .recognition)
        let (bad, m) = try MaskAgreement.walk(g, Self.vocabulary, text)
        #expect(m.isComplete)
        #expect(bad.isEmpty, "masks disagree with acceptance after \(bad) bytes")
    }
}
