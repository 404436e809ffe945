import Engine
import Testing

/// The optional Hugging Face space clean-up on decoding.
@Suite struct TokenizerSpaceCleanupTests {
    @Test func cleansLikeLlamaCpp() throws {
        let t = try Tokenizer(metadata: TokenizerMetadataTests.byteLevel(pre: "gpt-2"))
        #expect(t.cleansUpSpaces)
        func clean(_ s: String) throws -> String { try t.decode(t.encode(s), cleanUpSpaces: true) }
        #expect(try clean("Hello , world . Really ? Yes !") == "Hello, world. Really? Yes!")
        #expect(try clean("it ' s") == "it's")
        #expect(try clean("a ' ' b") == "a'' b")  // the first collapse consumes the shared space
        #expect(try clean("I 'm you 're we 've they 'll he 's") == "I'm you're we've they'll he's")
        #expect(try clean("don 't I 'd") == "don 't I 'd")
        #expect(try t.decode(t.encode("a , b")) == "a , b")
        let qwenLike = try Tokenizer(metadata: TokenizerMetadataTests.byteLevel(pre: "qwen2"))
        #expect(!qwenLike.cleansUpSpaces)
        #expect(try qwenLike.decode(qwenLike.encode("a , b"), cleanUpSpaces: true) == "a , b")
    }
}
