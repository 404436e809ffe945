import Foundation
import Grammar

/// The vocabulary of `models/default.gguf` (SmolLM2, byte-level BPE, ~49k tokens) as the grammar
/// sees it, read straight from the GGUF metadata: GrammarTests cannot import Engine, and masks over
/// a real vocabulary (long tokens, many numeric and quote-bearing tokens) exercise paths a toy
/// vocabulary does not. Fails, never skips, when the model is missing.
enum ModelVocabulary {
    struct Loaded: Sendable {
        let vocabulary: GrammarVocabulary
        /// Token byte strings by id (empty for control tokens).
        let tokens: [[UInt8]]
    }

    struct Failure: Error, CustomStringConvertible {
        let description: String
    }

    static var path: String { SharedData.packageRoot.appendingPathComponent("models/default.gguf").path }

    static func load() throws -> Loaded {
        guard let data = FileManager.default.contents(atPath: path) else {
            throw Failure(description: "models/default.gguf is missing (run models/fetch)")
        }
        var r = Reader(bytes: [UInt8](data))
        guard try r.u32() == 0x4655_4747 else { throw Failure(description: "not a GGUF file") }
        _ = try r.u32()  // version
        _ = try r.u64()  // tensor count
        let kvCount = try r.u64()
        var texts: [String] = [], types: [Int32] = [], eos: Int = -1
        for _ in 0..<kvCount {
            let key = try r.string()
            let type = try r.u32()
            switch key {
            case "tokenizer.ggml.tokens":
                guard type == 9, try r.u32() == 8 else { throw Failure(description: "tokens: not a string array") }
                let n = try r.u64()
                texts.reserveCapacity(Int(n))
                for _ in 0..<n { texts.append(try r.string()) }
            case "tokenizer.ggml.token_type":
                guard type == 9, try r.u32() == 5 else { throw Failure(description: "token_type: not an i32 array") }
                let n = try r.u64()
                for _ in 0..<n { types.append(Int32(bitPattern: try r.u32())) }
            case "tokenizer.ggml.eos_token_id":
                guard type == 4 else { throw Failure(description: "eos_token_id: not a u32") }
                eos = Int(try r.u32())
            default:
                try r.skip(type)
            }
        }
        guard !texts.isEmpty, types.count == texts.count, eos >= 0 else {
            throw Failure(description: "GGUF lacks the tokenizer metadata")
        }
        // GPT-2 byte-level BPE spells each byte as one code point: printable bytes as themselves,
        // the others as 256 + their rank among the non-printable ones.
        var byteOf: [UInt32: UInt8] = [:]
        var extra: UInt32 = 256
        for b in 0..<256 {
            if (33...126).contains(b) || (161...172).contains(b) || (174...255).contains(b) {
                byteOf[UInt32(b)] = UInt8(b)
            } else {
                byteOf[extra] = UInt8(b)
                extra += 1
            }
        }
        var tokens: [[UInt8]] = []
        tokens.reserveCapacity(texts.count)
        for (i, text) in texts.enumerated() {
            if types[i] == 3 { tokens.append([]); continue }  // control tokens never appear in text
            var bytes: [UInt8] = []
            for u in text.unicodeScalars {
                guard let b = byteOf[u.value] else { bytes = Array(text.utf8); break }
                bytes.append(b)
            }
            tokens.append(bytes)
        }
        return Loaded(vocabulary: GrammarVocabulary(tokens: tokens, endOfGeneration: [eos]), tokens: tokens)
    }

    /// Little-endian GGUF metadata reader (bounds-checked: a truncated file is an error).
    private struct Reader {
        let bytes: [UInt8]
        var at = 0

        mutating func take(_ n: Int) throws -> ArraySlice<UInt8> {
            guard n >= 0, at + n <= bytes.count else { throw Failure(description: "truncated GGUF") }
            defer { at += n }
            return bytes[at..<(at + n)]
        }

        mutating func u32() throws -> UInt32 {
            try take(4).reversed().reduce(0) { $0 << 8 | UInt32($1) }
        }

        mutating func u64() throws -> UInt64 {
            try take(8).reversed().reduce(0) { $0 << 8 | UInt64($1) }
        }

        mutating func string() throws -> String {
            let n = try u64()
            guard n < UInt64(Int32.max) else { throw Failure(description: "bad string length") }
            return String(decoding: try take(Int(n)), as: UTF8.self)
        }

        mutating func skip(_ type: UInt32) throws {
            switch type {
            case 0, 1, 7: _ = try take(1)
            case 2, 3: _ = try take(2)
            case 4, 5, 6: _ = try take(4)
            case 10, 11, 12: _ = try take(8)
            case 8: _ = try string()
            case 9:
                let inner = try u32()
                let n = try u64()
                for _ in 0..<n { try skip(inner) }
            default: throw Failure(description: "unknown GGUF value type \(type)")
            }
        }
    }
}
