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

    /// The declared ids that end generation (eos, eot, eom), sorted. The tokenizer's
    /// `endOfGenerationTokens` adds control tokens recognised by their text (`<|im_end|>`, …);
    /// prefer it when a tokenizer is loaded.
    public var endOfGenerationIDs: [Int] { Set([eos, eot, eom].compactMap { $0 }).sorted() }

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
        let t = SpecialTokens(
            bos: try id("bos"), eos: try id("eos"), eot: try id("eot"), eom: try id("eom"),
            unknown: try id("unknown"), padding: try id("padding"),
            separator: misspelledSeparator ?? separator,
            addBOS: meta.file.metadata["tokenizer.ggml.add_bos_token"]?.boolValue)
        return t
    }
}
