import Engine
import Grammar

extension GrammarVocabulary {
    /// The grammar's view of `tokenizer`'s vocabulary: each token's decoded bytes (empty for
    /// control tokens) and the tokenizer's end-of-generation ids.
    convenience init(tokenizer: Tokenizer) {
        var tokens: [[UInt8]] = []
        tokens.reserveCapacity(tokenizer.vocabularySize)
        for id in 0..<tokenizer.vocabularySize { tokens.append(tokenizer.tokenBytes(Int32(id))) }
        self.init(tokens: tokens, endOfGeneration: tokenizer.endOfGenerationTokens.map(Int.init))
    }
}
