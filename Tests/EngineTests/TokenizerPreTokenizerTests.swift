import Engine
import Foundation
import Testing

/// Every pre-tokenizer name against llama.cpp's own `unicode_regex_split` on a corpus of tricky
/// strings (llama.cpp's test strings, Unicode whitespace and categories, contractions, digits,
/// CJK, random mixes). Vectors: `TokenizerPreTokenizerVectors.swift`, made by
/// `scripts/tokenizer_vectors.py`.
@Suite struct TokenizerPreTokenizerTests {
    struct Case: Sendable {
        let names: [String]
        let wordLengths: [[Int]]
    }

    static let texts: [String] = {
        let o = try! JSONSerialization.jsonObject(with: Data(TokenizerPreTokenizerVectors.json.utf8)) as! [String: Any]
        return o["texts"] as! [String]
    }()

    static let cases: [Case] = {
        let o = try! JSONSerialization.jsonObject(with: Data(TokenizerPreTokenizerVectors.json.utf8)) as! [String: Any]
        return (o["cases"] as! [[String: Any]]).map {
            Case(names: $0["names"] as! [String], wordLengths: $0["word_lengths"] as! [[Int]])
        }
    }()

    static let names: [String] = cases.flatMap(\.names)

    @Test(arguments: names)
    func cutsWordsLikeLlamaCpp(_ name: String) throws {
        let c = try #require(Self.cases.first { $0.names.contains(name) })
        #expect(c.wordLengths.count == Self.texts.count)
        for (text, want) in zip(Self.texts, c.wordLengths) {
            let words = try Tokenizer.preTokenize(text, preTokenizer: name)
            let got = words.map { $0.utf8.count }
            if got != want {
                let i = zip(got, want).prefix { $0 == $1 }.count
                Issue.record("""
                    \(name): \(String(reflecting: text)): first different word at \(i)
                      got  \(words.dropFirst(max(0, i - 2)).prefix(5).map { String(reflecting: $0) })
                      want lengths \(want.dropFirst(max(0, i - 2)).prefix(5))
                    """)
            }
        }
    }
}
