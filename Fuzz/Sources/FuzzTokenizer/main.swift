// The tokenizer on arbitrary text and arbitrary token ids, over every reference vocabulary.
//
// Input layout: byte 0 picks the vocabulary, byte 1 the mode and flags, the rest is the payload.
// Properties: encode stays in the vocabulary and never yields a control token unless asked to
// parse special tokens; decode(encode(text)) == text; decode rejects exactly the out-of-range
// ids with `invalidTokenID`; streaming decoding agrees with whole decoding.
import Engine
import FuzzSupport

let vocabularyFiles = [
    "models/stories260K.gguf", "vocab/ggml-vocab-llama-spm.gguf", "vocab/ggml-vocab-phi-3.gguf",
    "vocab/ggml-vocab-gpt-2.gguf", "vocab/ggml-vocab-llama-bpe.gguf", "vocab/ggml-vocab-qwen2.gguf",
    "vocab/ggml-vocab-starcoder.gguf", "vocab/ggml-vocab-deepseek-llm.gguf",
]
let tokenizers: [Tokenizer] = vocabularyFiles.map { name in
    do { return try Tokenizer(gguf: try GGUFFile(path: SharedData.path(name))) } catch {
        fatalError("fuzz: cannot load \(name): \(error)")
    }
}

func checkStreaming(_ t: Tokenizer, _ ids: [Int32], renderSpecial: Bool, expected: String) {
    var stream = StreamingDecoder(tokenizer: t, renderSpecial: renderSpecial)
    var streamed = ""
    for id in ids {
        do { streamed += try stream.append(id) } catch {
            FuzzEntry.violation("streaming rejected in-range id \(id): \(error)")
        }
    }
    streamed += stream.finish()
    if streamed != expected {
        FuzzEntry.violation("streaming gave \(String(reflecting: streamed)), whole decoding \(String(reflecting: expected)) for \(ids)")
    }
}

FuzzEntry.run { bytes in
    var input = FuzzInput(bytes)
    let t = tokenizers[input.index(tokenizers.count)]
    let mode = input.byte()
    let payload = input.rest()
    let vocab = t.vocabularySize
    if mode & 1 == 0 {
        // Text in. The Swift API takes `String`, so invalid UTF-8 arrives repaired (U+FFFD).
        let text = String(decoding: payload, as: UTF8.self)
        let parseSpecial = mode & 2 != 0, addBOS = mode & 4 != 0
        let ids = t.encode(text, addBOS: addBOS, parseSpecial: parseSpecial)
        for (i, id) in ids.enumerated() {
            if id < 0 || Int(id) >= vocab { FuzzEntry.violation("encode produced id \(id) outside 0..<\(vocab)") }
            if !parseSpecial && t.isControl(id) && !(addBOS && i == 0 && id == t.bos) {
                FuzzEntry.violation("plain-text encode of \(String(reflecting: text)) yielded control token \(id)")
            }
        }
        if !parseSpecial && !addBOS {
            let back: String
            do throws(TokenizerError) { back = try t.decode(ids) } catch { FuzzEntry.violation("decode of encode output failed: \(error)") }
            if back != text {
                FuzzEntry.violation("round trip of \(String(reflecting: text)) gave \(String(reflecting: back)) via \(ids)")
            }
        }
        if mode & 8 != 0 {
            checkStreaming(t, ids, renderSpecial: mode & 16 != 0, expected: (try? t.decode(ids, renderSpecial: mode & 16 != 0)) ?? "")
        }
    } else {
        // Ids in: two bytes each, spread a little past the vocabulary so invalid ids occur.
        var ids: [Int32] = []
        var i = 0
        while i + 1 < payload.count {
            let raw = Int(payload[i]) | Int(payload[i + 1]) << 8
            ids.append(mode & 2 != 0 ? Int32(raw % (vocab + 4)) - 2 : Int32(raw % vocab))
            i += 2
        }
        let renderSpecial = mode & 4 != 0
        let firstBad = ids.first { $0 < 0 || Int($0) >= vocab }
        do throws(TokenizerError) {
            let text = try t.decode(ids, renderSpecial: renderSpecial, cleanUpSpaces: mode & 8 != 0)
            if let firstBad { FuzzEntry.violation("decode accepted out-of-range id \(firstBad)") }
            if mode & 8 == 0 { checkStreaming(t, ids, renderSpecial: renderSpecial, expected: text) }
        } catch {
            guard let firstBad else { FuzzEntry.violation("decode rejected in-range ids \(ids): \(error)") }
            if error != .invalidTokenID(firstBad, vocabularySize: vocab) {
                FuzzEntry.violation("decode of bad id \(firstBad) threw \(error)")
            }
        }
    }
}
