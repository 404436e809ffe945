/// The special-token ids a model file declares (`tokenizer.ggml.*_token_id`), validated to lie
/// inside the vocabulary. Absent (or -1) ids are nil.
public struct SpecialTokens: Codable, Sendable, Equatable {
    /// Beginning of sequence.
    public var bos: Int?
    /// End of sequence.
    public var eos: Int?
    /// End of turn (`eot_token_id`), for chat models that end a reply differently from a document.
    public var eot: Int?
    /// End of message (`eom_token_id`).
    public var eom: Int?
    /// Unknown token.
    public var unknown: Int?
    /// Padding.
    public var padding: Int?
    /// Separator.
    public var separator: Int?
    /// Whether the tokenizer adds BOS to a prompt (`add_bos_token`); nil when the file is silent.
    public var addBOS: Bool?
    /// Every token that ends generation: eos, eot, eom, and control tokens whose text is a
    /// well-known end marker (`<|im_end|>`, `<|eot_id|>`, `<|endoftext|>`, …), sorted.
    public var endOfGeneration: [Int]

    /// Texts that end a generation in the chat formats Loom knows, when the file marks the token
    /// as a control token (llama.cpp applies the same rule to files that omit `eot_token_id`).
    static let endMarkers: Set<String> = [
        "<|im_end|>", "<|eot_id|>", "<|eom_id|>", "<|endoftext|>", "<|end|>", "<end_of_turn>",
        "<|end_of_text|>", "</s>", "<EOT>", "<|return|>", "<|call|>",
    ]

    static func read(_ meta: MetadataReader, vocabularySize: Int) throws(ModelLoadError) -> SpecialTokens {
        func id(_ name: String) throws(ModelLoadError) -> Int? {
            let key = "tokenizer.ggml.\(name)_token_id"
            guard let v = try meta.tokenID(key) else { return nil }
            guard v >= 0, v < vocabularySize else {
                throw .specialTokenOutOfRange(key: key, id: v, vocabularySize: vocabularySize)
            }
            return v
        }
        // "seperator" is the spelling llama.cpp's converter writes.
        let misspelledSeparator = try id("seperator")
        let separator = try id("separator")
        var t = SpecialTokens(
            bos: try id("bos"), eos: try id("eos"), eot: try id("eot"), eom: try id("eom"),
            unknown: try id("unknown"), padding: try id("padding"),
            separator: misspelledSeparator ?? separator,
            addBOS: meta.file.metadata["tokenizer.ggml.add_bos_token"]?.boolValue,
            endOfGeneration: [])
        var eog = Set([t.eos, t.eot, t.eom].compactMap { $0 })
        if let tokens = meta.file.metadata["tokenizer.ggml.tokens"]?.arrayValue {
            let types = meta.file.metadata["tokenizer.ggml.token_type"]?.arrayValue
            for (i, token) in tokens.enumerated() {
                guard let text = token.stringValue, endMarkers.contains(text) else { continue }
                // 3 = control; files without token types are trusted on the text alone.
                if let types, i < types.count, types[i].intValue != 3 { continue }
                eog.insert(i)
            }
        }
        t.endOfGeneration = eog.sorted()
        return t
    }
}
