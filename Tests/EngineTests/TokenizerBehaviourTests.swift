import Engine
import Foundation
import Testing

/// Properties every vocabulary must have beyond matching the reference ids: lossless round trips,
/// streaming that agrees with whole decoding, no control-token injection, and rendering rules.
@Suite(.serialized) struct TokenizerBehaviourTests {
    static let cache = TokenizerConformanceTests.cache
    static let vocabularies = TokenizerConformanceTests.vocabularies

    static func tokenizer(_ name: String) throws -> Tokenizer {
        try cache.tokenizer(SharedData.path("vocab/ggml-vocab-\(name).gguf"))
    }

    static let multilingual = [
        "Hello, world!", " leading space", "trailing space ", "tabs\tand\nnewlines\r\n",
        "Ünïcödé — 日本語のテキスト, emoji 🎉🚀👩‍👩‍👧, Ελληνικά, العربية, हिन्दी, 한국어",
        "🦙.cpp 1234567890 ½ ² ٣", "a\u{00A0}b\u{3000}c\u{2028}d", "  \n\n  x  ", "",
    ]

    @Test(arguments: vocabularies)
    func roundTripsEveryVectorString(_ name: String) throws {
        let t = try Self.tokenizer(name)
        for (text, _) in try TokenizerConformanceTests.vectors(name) + Self.multilingual.map({ ($0, []) }) {
            let ids = t.encode(text)
            let back = try t.decode(ids)
            #expect(back == text, "\(name): \(String(reflecting: text)) came back as \(String(reflecting: back))")
        }
    }

    @Test(arguments: vocabularies)
    func streamingAgreesWithWholeDecoding(_ name: String) throws {
        let t = try Self.tokenizer(name)
        for text in Self.multilingual {
            let ids = t.encode(text, addBOS: true)
            for special in [false, true] {
                var stream = StreamingDecoder(tokenizer: t, renderSpecial: special)
                var streamed = ""
                for id in ids {
                    let part = try stream.append(id)
                    // Every part is whole characters: re-encoding it as UTF-8 must be lossless.
                    #expect(!part.unicodeScalars.contains("\u{FFFD}") || text.contains("\u{FFFD}"))
                    streamed += part
                }
                streamed += stream.finish()
                #expect(streamed == (try t.decode(ids, renderSpecial: special)), "\(name): \(String(reflecting: text))")
            }
        }
    }

    /// Byte-level tokens can end in the middle of a character or form invalid UTF-8; streaming must
    /// hold back only what can still complete and agree with whole decoding on everything else.
    @Test func streamingHandlesArbitraryBytes() throws {
        let t = try Self.tokenizer("gpt-2")
        var byteToken = [Int32](repeating: -1, count: 256)
        for id in 0..<Int32(t.vocabularySize) {
            let b = t.tokenBytes(id)
            if b.count == 1 && byteToken[Int(b[0])] < 0 { byteToken[Int(b[0])] = id }
        }
        #expect(!byteToken.contains(-1))
        var rng = SystemRandomNumberGenerator()
        let interesting: [UInt8] = [0x41, 0x20, 0xC3, 0xA9, 0xE0, 0xA0, 0x80, 0xED, 0x9F, 0xBF, 0xF0, 0x90, 0xF4, 0x8F, 0xFF, 0xC0]
        for _ in 0..<2000 {
            let n = Int.random(in: 1...12, using: &rng)
            let bytes = (0..<n).map { _ in interesting.randomElement(using: &rng)! }
            let ids = bytes.map { byteToken[Int($0)] }
            var stream = StreamingDecoder(tokenizer: t)
            var streamed = ""
            for id in ids { streamed += try stream.append(id) }
            streamed += stream.finish()
            #expect(streamed == (try t.decode(ids)), "bytes \(bytes)")
            #expect(streamed == String(decoding: bytes, as: UTF8.self))
        }
    }

    @Test(arguments: vocabularies)
    func controlTokensNeedParseSpecial(_ name: String) throws {
        let t = try Self.tokenizer(name)
        for id in 0..<Int32(t.vocabularySize) where t.isControl(id) {
            let text = t.tokenText(id)!
            let plain = t.encode("x" + text + "y", parseSpecial: false)
            #expect(!plain.contains { t.isControl($0) }, "\(name): \(text) produced a control token without parseSpecial")
            #expect(try t.decode(plain) == "x" + text + "y")
            let parsed = t.encode(text, parseSpecial: true)
            #expect(parsed == [id], "\(name): \(text) parsed as \(parsed)")
        }
    }

    @Test func rendersPiecesExactly() throws {
        let spm = try Self.tokenizer("llama-spm")
        #expect(spm.tokenBytes(13) == [0x0A])  // <0x0A>
        #expect(spm.tokenBytes(15043) == Array(" Hello".utf8))  // ▁Hello
        #expect(spm.tokenBytes(1).isEmpty && spm.tokenBytes(2).isEmpty)  // <s> </s>
        #expect(try spm.decode([1, 15043, 2], renderSpecial: true) == "<s> Hello</s>")
        #expect(try spm.decode([1, 15043, 2]) == "Hello")
        #expect(spm.tokenBytes(-1).isEmpty && spm.tokenBytes(32000).isEmpty)
        #expect(throws: TokenizerError.invalidTokenID(32000, vocabularySize: 32000)) { try spm.decode([32000]) }

        let gpt2 = try Self.tokenizer("gpt-2")
        #expect(gpt2.tokenText(995) == "Ġworld" && gpt2.tokenBytes(995) == Array(" world".utf8))
        #expect(gpt2.tokenBytes(50256).isEmpty)
        #expect(try gpt2.decode([50256], renderSpecial: true) == "<|endoftext|>")
        var bytes: [UInt8] = []
        gpt2.withTokenBytes(995) { bytes = Array($0) }
        #expect(bytes == Array(" world".utf8))

        for t in [spm, gpt2] {
            let plain = t.tokenByteTable(), special = t.tokenByteTable(renderSpecial: true)
            #expect(plain.count == t.vocabularySize && special.count == t.vocabularySize)
            for id in 0..<t.vocabularySize {
                #expect(Array(plain[id]) == t.tokenBytes(Int32(id)))
                if t.tokenAttributes(Int32(id)).isDisjoint(with: [.control, .unknown]) { #expect(plain[id] == special[id]) }
            }
        }
    }

    @Test func specialTokensAndDefaults() throws {
        let smol = try Self.cache.tokenizer(SharedData.defaultModel)
        #expect(smol.algorithm == .bytePair && smol.preTokenizerName == "smollm")
        #expect(smol.bos == 1 && smol.eos == 2 && !smol.addBOSByDefault && !smol.addSpacePrefix)
        #expect(smol.endOfGenerationTokens.contains(2) && smol.endOfGenerationTokens.contains(0))
        #expect(smol.isEndOfGeneration(2) && !smol.isEndOfGeneration(1))
        #expect(smol.encode("Hi", addBOS: true).first == 1)

        let llama3 = try Self.tokenizer("llama-bpe")
        #expect(llama3.bos == 128000 && llama3.eos == 128001 && llama3.addBOSByDefault)
        #expect(llama3.endOfGenerationTokens.contains(128001) && llama3.endOfGenerationTokens.contains(128009))
        #expect(llama3.eot == 128009)

        let qwen = try Self.tokenizer("qwen2")
        #expect(qwen.endOfGenerationTokens.contains(151643) && qwen.endOfGenerationTokens.contains(151645))
        #expect(!qwen.addBOSByDefault)

        let spm = try Self.tokenizer("llama-spm")
        #expect(spm.algorithm == .sentencePiece && spm.addSpacePrefix && spm.addBOSByDefault)
        #expect(spm.bos == 1 && spm.eos == 2 && spm.unknown == 0 && spm.endOfGenerationTokens == [2])
        #expect(spm.tokenType(0) == .unknown && spm.tokenType(1) == .control && spm.tokenType(13) == .byte)
    }

    /// llama.cpp classifies characters by Unicode 15.1; one assigned later (U+1C89, Unicode 16) is
    /// "unassigned" there, so it must not join a word of letters even though Swift knows it as one.
    @Test func classifiesByLlamaCppUnicodeVersion() throws {
        let age = Unicode.Scalar(0x1C89)!.properties.age
        #expect(age.map { $0.major >= 16 } ?? false)
        let t = try Self.tokenizer("gpt-2")
        #expect(t.encode("a\u{1C89}b") == t.encode("a") + t.encode("\u{1C89}") + t.encode("b"))
    }
}
