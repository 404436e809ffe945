import Engine
import Testing

/// Building from hand-made metadata: every malformed vocabulary is a typed error, and every
/// supported pre-tokenizer name is accepted.
@Suite struct TokenizerMetadataTests {
    /// A byte-level vocabulary: the 256 byte tokens, "ab", and one control token.
    static func byteLevel(pre: String? = "gpt-2", extra: [String: GGUFValue] = [:]) -> [String: GGUFValue] {
        var tokens: [GGUFValue] = []
        for b in 0..<256 {
            let scalar: UInt32
            if (0x21...0x7E).contains(b) || (0xA1...0xAC).contains(b) || (0xAE...0xFF).contains(b) { scalar = UInt32(b) }
            else { scalar = 256 + UInt32((0..<b).filter { !((0x21...0x7E).contains($0) || (0xA1...0xAC).contains($0) || (0xAE...0xFF).contains($0)) }.count) }
            tokens.append(.string(String(Character(Unicode.Scalar(scalar)!))))
        }
        tokens.append(.string("ab"))
        tokens.append(.string("<|end|>"))
        var types = [GGUFValue](repeating: .int32(1), count: 257)
        types.append(.int32(3))
        var m: [String: GGUFValue] = [
            "tokenizer.ggml.model": .string("gpt2"),
            "tokenizer.ggml.tokens": .array(.string, tokens),
            "tokenizer.ggml.token_type": .array(.int32, types),
            "tokenizer.ggml.merges": .array(.string, [.string("a b")]),
            "tokenizer.ggml.eos_token_id": .uint32(257),
        ]
        if let pre { m["tokenizer.ggml.pre"] = .string(pre) }
        for (k, v) in extra { m[k] = v }
        return m
    }

    @Test func buildsAndMerges() throws {
        let t = try Tokenizer(metadata: Self.byteLevel())
        #expect(t.vocabularySize == 258)
        #expect(t.encode("ab")  == [256])
        #expect(t.encode("<|end|>", parseSpecial: true) == [257])
        #expect(!t.encode("<|end|>").contains(257))
        #expect(t.endOfGenerationTokens == [257])
        #expect(try t.decode(t.encode("xab yz")) == "xab yz")
    }

    @Test func missingPreTokenizerMeansDefault() throws {
        #expect(try Tokenizer(metadata: Self.byteLevel(pre: nil)).preTokenizerName == "default")
    }

    static let preTokenizers = [
        "default", "llama3", "llama-v3", "llama-bpe", "qwen2", "smollm", "gpt-2", "starcoder", "deepseek-llm",
        "deepseek-coder", "falcon", "command-r", "refact", "mpt", "gpt-neox", "olmo", "dbrx", "stablelm2",
        "codeshell", "exaone", "phi-2", "jais", "megrez", "deepseek-r1-qwen",
    ]

    @Test(arguments: preTokenizers)
    func acceptsPreTokenizer(_ name: String) throws {
        let t = try Tokenizer(metadata: Self.byteLevel(pre: name))
        let text = "Hello, y'all! 12345 ½ 日本 \n\n  x\t"
        #expect(try t.decode(t.encode(text)) == text)
    }

    @Test func rejectsBadMetadata() throws {
        #expect(throws: TokenizerError.unknownPreTokenizer("klingon")) { try Tokenizer(metadata: Self.byteLevel(pre: "klingon")) }
        #expect(throws: TokenizerError.unsupportedModel("bert")) {
            try Tokenizer(metadata: Self.byteLevel(extra: ["tokenizer.ggml.model": .string("bert")]))
        }
        var noTokens = Self.byteLevel()
        noTokens["tokenizer.ggml.tokens"] = nil
        #expect(throws: TokenizerError.missingKey("tokenizer.ggml.tokens")) { try Tokenizer(metadata: noTokens) }
        var noMerges = Self.byteLevel()
        noMerges["tokenizer.ggml.merges"] = nil
        #expect(throws: TokenizerError.missingKey("tokenizer.ggml.merges")) { try Tokenizer(metadata: noMerges) }
        #expect(throws: TokenizerError.lengthMismatch(key: "tokenizer.ggml.token_type", expected: 258, found: 1)) {
            try Tokenizer(metadata: Self.byteLevel(extra: ["tokenizer.ggml.token_type": .array(.int32, [.int32(1)])]))
        }
        #expect(throws: TokenizerError.specialTokenOutOfRange(key: "tokenizer.ggml.bos_token_id", id: 999, vocabularySize: 258)) {
            try Tokenizer(metadata: Self.byteLevel(extra: ["tokenizer.ggml.bos_token_id": .uint32(999)]))
        }
        #expect(throws: TokenizerError.wrongValueType(key: "tokenizer.ggml.tokens", expected: "an array of strings")) {
            try Tokenizer(metadata: Self.byteLevel(extra: ["tokenizer.ggml.tokens": .string("nope")]))
        }
        #expect(throws: TokenizerError.missingKey("tokenizer.ggml.model")) { try Tokenizer(metadata: [:]) }
    }
}
