import Engine
import Foundation
import LoomSupport
import Testing

/// llama.cpp's own tokenizer vectors (`../shared/vocab`, and the rest of llama.cpp's `models/`
/// that `models/fetch llama-vocab` brings) and the SmolLM2 vectors produced by `llama-tokenize`
/// (`../shared/reference/smollm2-tokenizer.jsonl`): every id must match.
@Suite(.serialized) struct TokenizerConformanceTests {
    /// The vocabularies in `../shared/vocab`.
    static let vocabularies = ["llama-spm", "phi-3", "gpt-2", "llama-bpe", "qwen2", "starcoder", "deepseek-llm"]
    /// The other vocabularies of llama.cpp's `models/` with vectors whose `tokenizer.ggml.model`
    /// Loom implements (`models/fetch llama-vocab`).
    static let fetchedVocabularies = ["command-r", "deepseek-coder", "falcon", "mpt", "qwen35", "refact"]

    /// Where the vocabulary `name` and its vectors are.
    static func vocabularyPath(_ name: String) -> String {
        let file = "ggml-vocab-\(name).gguf"
        return vocabularies.contains(name) ? SharedData.path("vocab/\(file)") : SharedData.llamaVocab(file)
    }

    /// The tokenizers are built once per suite run: the largest take a moment in debug builds.
    static let cache = TokenizerCache()

    /// The strings of a `.inp` file and the id lines of its `.out` file.
    static func vectors(_ name: String) throws -> [(text: String, ids: [Int32])] {
        let inp = try String(contentsOfFile: vocabularyPath(name) + ".inp", encoding: .utf8)
        let out = try String(contentsOfFile: vocabularyPath(name) + ".out", encoding: .utf8)
        var texts = inp.components(separatedBy: "\n__ggml_vocab_test__\n")
        // The file ends with a separator, leaving one empty piece that is not a test string.
        if texts.last == "" { texts.removeLast() }
        var lines = out.components(separatedBy: "\n")
        if lines.last == "" { lines.removeLast() }
        #expect(texts.count == lines.count, "\(name): \(texts.count) strings but \(lines.count) id lines")
        return zip(texts, lines).map { text, line in
            (text, line.split(separator: " ").map { Int32($0)! })
        }
    }

    /// A readable account of the first place two id sequences differ.
    static func divergence(_ got: [Int32], _ want: [Int32], _ tokenizer: Tokenizer) -> String? {
        guard got != want else { return nil }
        let i = zip(got, want).prefix { $0 == $1 }.count
        let lo = max(0, i - 3)
        func window(_ ids: [Int32]) -> String {
            ids[lo..<min(ids.count, i + 4)].map { "\($0)'\(tokenizer.tokenText($0) ?? "?")'" }.joined(separator: " ")
        }
        return "first divergence at index \(i) (got \(got.count) ids, want \(want.count)):\n  got:  \(window(got))\n  want: \(window(want))"
    }

    @Test(arguments: vocabularies + fetchedVocabularies)
    func matchesLlamaCppVectors(_ name: String) throws {
        let tokenizer = try Self.cache.tokenizer(Self.vocabularyPath(name))
        let vectors = try Self.vectors(name)
        #expect(!vectors.isEmpty)
        var failures = 0
        for (text, want) in vectors {
            let got = tokenizer.encode(text, addBOS: false, parseSpecial: false)
            if let d = Self.divergence(got, want, tokenizer) {
                failures += 1
                Issue.record("\(name): \(String(reflecting: text)):\n\(d)")
            }
        }
        #expect(failures == 0, "\(name): \(failures) of \(vectors.count) strings differ")
    }

    /// Every vocabulary with vectors in llama.cpp's `models/` whose algorithm Loom implements is
    /// tested above (the others: `bert` word pieces, `gemma4`).
    @Test func everyCoveredLlamaCppVocabularyIsTested() throws {
        let folder = SharedData.llamaVocab("")
        let names = try FileManager.default.contentsOfDirectory(atPath: folder)
            .filter { $0.hasPrefix("ggml-vocab-") && $0.hasSuffix(".gguf.inp") }
            .map { String($0.dropFirst("ggml-vocab-".count).dropLast(".gguf.inp".count)) }
        #expect(names.count >= 13)
        var covered: [String] = []
        for name in names {
            let file = try GGUFFile(path: SharedData.llamaVocab("ggml-vocab-\(name).gguf"))
            let model = try #require(file.metadata["tokenizer.ggml.model"]?.stringValue)
            if Tokenizer.Algorithm(rawValue: model) != nil { covered.append(name) }
        }
        #expect(Set(covered) == Set(Self.vocabularies + Self.fetchedVocabularies))
    }

    @Test func matchesSmolLM2Reference() throws {
        let tokenizer = try Self.cache.tokenizer(SharedData.defaultModel)
        let text = try String(contentsOfFile: SharedData.path("reference/smollm2-tokenizer.jsonl"), encoding: .utf8)
        var count = 0
        for line in text.split(separator: "\n") where !line.isEmpty {
            let row = try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any]
            guard let row, let s = row["text"] as? String, let special = row["parse_special"] as? Bool,
                  let bos = row["add_bos"] as? Bool, let idValues = row["ids"] as? [Int] else {
                Issue.record("malformed row: \(line)")
                continue
            }
            let want = idValues.map { Int32($0) }
            let got = tokenizer.encode(s, addBOS: bos, parseSpecial: special)
            if let d = Self.divergence(got, want, tokenizer) {
                Issue.record("\(String(reflecting: s)) parse_special=\(special):\n\(d)")
            }
            count += 1
        }
        #expect(count == 106)
    }
}

/// Builds each vocabulary once for all tests of a run.
final class TokenizerCache: Sendable {
    // Tokenizers themselves are immutable.
    private let built = Locked<[String: Tokenizer]>([:])

    func tokenizer(_ path: String) throws -> Tokenizer {
        try built.withLock { built in
            if let t = built[path] { return t }
            let t = try Tokenizer(gguf: GGUFFile(path: path))
            built[path] = t
            return t
        }
    }
}
