import Engine
import Foundation
import Testing

/// Special-token splitting against a model of llama.cpp's `tokenizer_st_partition` on random
/// texts dense with special-token texts, halves of them and whitespace (Phi-3's `rstrip`
/// included). Vectors: `TokenizerSpecialSplitVectors.swift`, from `scripts/special_split_vectors.py`.
@Suite(.serialized) struct TokenizerSpecialSplitTests {
    struct Case: Sendable {
        let text: String
        let special: Bool
        /// A raw fragment's text, or a split-out token.
        let fragments: [Fragment]
    }
    enum Fragment: Sendable { case text(String), token(Int32) }

    static let data: [String: [Case]] = {
        let o = try! JSONSerialization.jsonObject(with: Data(TokenizerSpecialSplitVectors.json.utf8))
        return (o as! [String: [[String: Any]]]).mapValues { cases in
            cases.map { c in
                Case(text: c["text"] as! String, special: c["special"] as! Bool,
                     fragments: (c["fragments"] as! [[Any]]).map {
                         ($0[0] as! Int) == 1 ? .token(Int32($0[1] as! Int)) : .text($0[1] as! String)
                     })
            }
        }
    }()

    static let vocabularies = ["phi-3", "llama-spm", "llama-bpe", "qwen2", "deepseek-llm", "starcoder"]

    @Test(arguments: vocabularies)
    func splitsLikeLlamaCpp(_ name: String) throws {
        let t = try TokenizerConformanceTests.cache.tokenizer(SharedData.path("vocab/ggml-vocab-\(name).gguf"))
        let cases = try #require(Self.data[name])
        #expect(cases.count >= 40)
        for c in cases {
            // Each raw fragment is tokenized on its own (it holds no special text any more), each
            // split-out token is emitted as is.
            var want: [Int32] = []
            for f in c.fragments {
                switch f {
                case .token(let id): want.append(id)
                case .text(let s): want += t.encode(s)
                }
            }
            let text = c.text, special = c.special
            let got = t.encode(text, parseSpecial: special)
            if let d = TokenizerConformanceTests.divergence(got, want, t) {
                Issue.record("\(name) parseSpecial=\(special): \(String(reflecting: text)):\n\(d)")
            }
        }
    }
}
