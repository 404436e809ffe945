/// The token table of a GGUF vocabulary: texts, scores, attributes, special ids and the
/// end-of-generation set, with the load-time adjustments llama.cpp applies (`llama_vocab::load`),
/// so that ids and rendering agree with it.
struct TokenizerVocabulary: Sendable {
    /// Token texts exactly as stored (byte-level text for `gpt2`, `▁`-escaped text for `llama`).
    let texts: [String]
    /// Token texts as UTF-8, concatenated; token `i` is `textBytes[textStarts[i]..<textStarts[i+1]]`.
    let textBytes: [UInt8]
    let textStarts: [Int32]
    /// SentencePiece scores (zero when the file has none).
    let scores: [Float]
    /// Raw `tokenizer.ggml.token_type` values (`normal` when the file has none).
    let types: [Int32]
    /// Attributes after llama.cpp's load-time adjustments.
    let attributes: [TokenAttributes]
    /// Token ids by text.
    let textIndex: TokenTextIndex

    let bos: Int32?
    let eos: Int32?
    let eot: Int32?
    let unknown: Int32?
    let padding: Int32?
    /// Sorted ids that end generation.
    let endOfGeneration: [Int32]

    var count: Int { texts.count }

    /// Reads the token arrays and special ids, then applies llama.cpp's special-token rules
    /// (see `TokenizerVocabulary+SpecialTokens.swift`).
    /// - Parameters:
    ///   - defaultBOS/defaultEOS/defaultUnknown: the model family's defaults, used when the key is
    ///     absent and the id exists (llama.cpp: 1/2/0 for SentencePiece, none for BPE).
    init(metadata: [String: GGUFValue], defaultBOS: Int32?, defaultEOS: Int32?, defaultUnknown: Int32?) throws(TokenizerError) {
        let table = try Self.readTexts(metadata)
        let n = table.texts.count
        let scores = try Self.readArray(metadata, key: "tokenizer.ggml.scores", count: n, expected: "an array of f32",
                                        default: Float(0)) { $0.doubleValue.map(Float.init) }
        let types = try Self.readArray(metadata, key: "tokenizer.ggml.token_type", count: n, expected: "an array of i32",
                                       default: TokenType.normal.rawValue) { $0.intValue.flatMap { Int32(exactly: $0) } }
        var attributes = types.map { TokenAttributes(type: $0) }
        let byText = TokenTextIndex(bytes: table.bytes, starts: table.starts)

        let special = SpecialIDReader(metadata: metadata, count: n)
        bos = try special.id("tokenizer.ggml.bos_token_id", default: defaultBOS)
        eos = try special.id("tokenizer.ggml.eos_token_id", default: defaultEOS)
        unknown = try special.id("tokenizer.ggml.unknown_token_id", default: defaultUnknown)
        padding = try special.id("tokenizer.ggml.padding_token_id")
        // The separator id is validated but unused (llama.cpp spells its key "seperator").
        _ = try special.id("tokenizer.ggml.seperator_token_id")
        _ = try special.id("tokenizer.ggml.separator_token_id")
        var detected: [DetectedSpecial: Int32] = [:]
        for role in DetectedSpecial.allCases {
            detected[role] = try special.id(role.key)
        }
        for role in DetectedSpecial.allCases where detected[role] == nil {
            detected[role] = Self.detect(role.texts, byText, &attributes)
        }
        eot = detected[.endOfTurn]

        Self.markReservedControlsUnused(table.texts, byText, &attributes)
        endOfGeneration = Self.endOfGenerationSet(
            ids: [eos, eot, detected[.endOfMessage]], fim: [detected[.fimPad], detected[.fimRepo], detected[.fimSeparator]],
            texts: table.texts, byText: byText, &attributes)
        Self.applyModelNameRules(metadata, byText, &attributes)

        self.textIndex = byText
        self.texts = table.texts
        self.textBytes = table.bytes
        self.textStarts = table.starts
        self.scores = scores
        self.types = types
        self.attributes = attributes
    }

    /// The stored text of token `i` as UTF-8.
    @inline(__always)
    func textRange(_ i: Int) -> Range<Int> { Int(textStarts[i])..<Int(textStarts[i + 1]) }

    /// `tokenizer.ggml.tokens`: the texts, and the same texts as one UTF-8 buffer with start offsets.
    private static func readTexts(_ metadata: [String: GGUFValue]) throws(TokenizerError) -> (texts: [String], bytes: [UInt8], starts: [Int32]) {
        guard let tokenValues = metadata["tokenizer.ggml.tokens"] else { throw .missingKey("tokenizer.ggml.tokens") }
        guard case .array(let tokenType, let items) = tokenValues, tokenType == .string || items.isEmpty else {
            throw .wrongValueType(key: "tokenizer.ggml.tokens", expected: "an array of strings")
        }
        let n = items.count
        guard n > 0, n < Int(Int32.max) else { throw .badVocabularySize(n) }
        var texts: [String] = []
        texts.reserveCapacity(n)
        var bytes: [UInt8] = []
        bytes.reserveCapacity(n * 8)
        var starts: [Int32] = [0]
        starts.reserveCapacity(n + 1)
        for item in items {
            guard case .string(let s) = item else {
                throw .wrongValueType(key: "tokenizer.ggml.tokens", expected: "an array of strings")
            }
            texts.append(s)
            bytes.append(contentsOf: s.utf8)
            starts.append(Int32(bytes.count))
        }
        return (texts, bytes, starts)
    }

    /// An optional per-token array (`count` elements, each converted by `element`), or `count`
    /// copies of `default` when the key is absent.
    private static func readArray<T>(_ metadata: [String: GGUFValue], key: String, count n: Int, expected: String,
                                     default value: T, _ element: (GGUFValue) -> T?) throws(TokenizerError) -> [T] {
        var out = [T](repeating: value, count: n)
        guard let v = metadata[key] else { return out }
        guard let arr = v.arrayValue else { throw .wrongValueType(key: key, expected: expected) }
        guard arr.count == n else { throw .lengthMismatch(key: key, expected: n, found: arr.count) }
        for (i, item) in arr.enumerated() {
            guard let x = element(item) else { throw .wrongValueType(key: key, expected: expected) }
            out[i] = x
        }
        return out
    }
}

/// Reads special token ids (`tokenizer.ggml.*_token_id`) and checks them against the vocabulary size.
private struct SpecialIDReader {
    let metadata: [String: GGUFValue]
    let count: Int

    /// The id under `key`; when absent, `default` if it exists in the vocabulary.
    func id(_ key: String, default d: Int32? = nil) throws(TokenizerError) -> Int32? {
        guard let v = metadata[key] else { return d.flatMap { Int($0) < count ? $0 : nil } }
        // Converters write -1 (as u32 0xFFFFFFFF) for "no such token", e.g. stories260K's padding.
        switch v {
        case .uint32(UInt32.max), .int32(-1), .uint64(UInt64.max), .int64(-1): return nil
        default: break
        }
        guard let id = v.intValue else { throw .wrongValueType(key: key, expected: "an integer token id") }
        guard id >= 0, id < count else { throw .specialTokenOutOfRange(key: key, id: id, vocabularySize: count) }
        return Int32(id)
    }
}
