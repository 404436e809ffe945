import Grammar

/// A ~300-token vocabulary that can spell any byte string: every single byte, plus multi-byte
/// pieces that cut JSON, GBNF and UTF-8 at awkward places, an end-of-generation token and an
/// empty control token. Small enough that each mask can be checked token by token.
public enum SmallVocabulary {
    /// Byte strings by token id.
    public static let tokens: [[UInt8]] = {
        var t: [[UInt8]] = (0..<256).map { [UInt8($0)] }
        let pieces = [
            "{\"", "\"}", "\":", "\": ", "\",", ", \"", "\":\"", "true", "false", "null", "[]", "{}", "[{", "}]",
            "\\n", "\\\"", "\\u00", "\\u", "0.5", "-1", "e+", "E-", "123", "1e10", "00", ".0", "\"a\"", "abc",
            "  ", "\n", "\n  ", "\t", "é", "日本", "🎉", "name", "\"name\"", "type", "\"type\"", ",\"", "]", "0,",
            "http://", "@", "://", "-01-", "T12:", "Z", "ab", "ba", "aa", "xyz", "(", ")", "::=", "|", "*", "+",
        ]
        t += pieces.map { Array($0.utf8) }
        t += [[0xC3], [0xE6, 0x97], [0xA5], [0xF0, 0x9F], [0x8E, 0x89], [0xC0, 0x80], [0xED, 0xA0, 0x80], [0xFF, 0xFE]]
        t.append([])  // end of generation
        t.append([])  // a control token: never allowed
        return t
    }()
    /// The end-of-generation id.
    public static let endOfGeneration = tokens.count - 2
    /// The control-token id.
    public static let control = tokens.count - 1
    /// The shared vocabulary.
    public static let vocabulary = GrammarVocabulary(tokens: tokens, endOfGeneration: [endOfGeneration])
}
