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

    let bos: Int32?
    let eos: Int32?
    let eot: Int32?
    let eom: Int32?
    let unknown: Int32?
    let padding: Int32?
    let separator: Int32?
    /// Sorted ids that end generation.
    let endOfGeneration: [Int32]

    var count: Int { texts.count }

    /// Texts that mark end-of-turn tokens when `tokenizer.ggml.eot_token_id` is absent
    /// (llama.cpp auto-detects these by text).
    private static let endOfTurnTexts: [String] = [
        "<|eot_id|>", "<|im_end|>", "<|end|>", "<end_of_turn>", "<|endoftext|>", "<|end_of_text|>",
        "<EOT>", "_<EOT>", "[EOT]", "<｜end▁of▁sentence｜>", "<end_of_utterance>",
    ]
    /// Texts of tokens that end generation whatever the metadata says (llama.cpp issue 9606).
    private static let endOfGenerationTexts: Set<String> = [
        "<|eot_id|>", "<|im_end|>", "<|end|>", "<|return|>", "<|call|>", "<|flush|>", "<|calls|>",
        "<end_of_turn>", "<|endoftext|>", "</s>", "<|eom_id|>", "<EOT>", "_<EOT>", "[EOT]", "[EOS]",
        "<|end_of_text|>", "<end_of_utterance>", "<eos>", "<turn|>", "<|tool_response>",
        "<｜end▁of▁sentence｜>", "[e~[",
    ]
    private static let fimPadTexts: [String] = ["<|fim_pad|>", "<fim-pad>", "<fim_pad>", "<PAD>", "[PAD]"]
    private static let fimRepoTexts: [String] = ["<|fim_repo|>", "<|repo_name|>", "<fim-repo>", "<REPO>", "<reponame>"]
    private static let fimSeparatorTexts: [String] = ["<|file_sep|>"]

    /// Reads the token arrays and special ids.
    /// - Parameters:
    ///   - defaultBOS/defaultEOS/defaultUnknown: the model family's defaults, used when the key is
    ///     absent and the id exists (llama.cpp: 1/2/0 for SentencePiece, none for BPE).
    init(metadata: [String: GGUFValue], defaultBOS: Int32?, defaultEOS: Int32?, defaultUnknown: Int32?) throws(TokenizerError) {
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

        var scores = [Float](repeating: 0, count: n)
        if let v = metadata["tokenizer.ggml.scores"] {
            guard let arr = v.arrayValue else { throw .wrongValueType(key: "tokenizer.ggml.scores", expected: "an array of f32") }
            guard arr.count == n else { throw .lengthMismatch(key: "tokenizer.ggml.scores", expected: n, found: arr.count) }
            for (i, s) in arr.enumerated() {
                guard let d = s.doubleValue else { throw .wrongValueType(key: "tokenizer.ggml.scores", expected: "an array of f32") }
                scores[i] = Float(d)
            }
        }

        var types = [Int32](repeating: TokenType.normal.rawValue, count: n)
        if let v = metadata["tokenizer.ggml.token_type"] {
            guard let arr = v.arrayValue else { throw .wrongValueType(key: "tokenizer.ggml.token_type", expected: "an array of i32") }
            guard arr.count == n else { throw .lengthMismatch(key: "tokenizer.ggml.token_type", expected: n, found: arr.count) }
            for (i, t) in arr.enumerated() {
                guard let k = t.intValue, let k32 = Int32(exactly: k) else {
                    throw .wrongValueType(key: "tokenizer.ggml.token_type", expected: "an array of i32")
                }
                types[i] = k32
            }
        }
        var attributes = types.map { TokenAttributes(type: $0) }

        // Text → id, last occurrence winning as in llama.cpp's `token_to_id`.
        var byText: [String: Int32] = [:]
        byText.reserveCapacity(n)
        for (i, t) in texts.enumerated() { byText[t] = Int32(i) }

        func special(_ key: String, default d: Int32?) throws(TokenizerError) -> Int32? {
            guard let v = metadata[key] else { return d.flatMap { Int($0) < n ? $0 : nil } }
            // Converters write -1 (as u32 0xFFFFFFFF) for "no such token", e.g. stories260K's padding.
            switch v {
            case .uint32(UInt32.max), .int32(-1), .uint64(UInt64.max), .int64(-1): return nil
            default: break
            }
            guard let id = v.intValue else { throw .wrongValueType(key: key, expected: "an integer token id") }
            guard id >= 0, id < n else { throw .specialTokenOutOfRange(key: key, id: id, vocabularySize: n) }
            return Int32(id)
        }
        bos = try special("tokenizer.ggml.bos_token_id", default: defaultBOS)
        eos = try special("tokenizer.ggml.eos_token_id", default: defaultEOS)
        unknown = try special("tokenizer.ggml.unknown_token_id", default: defaultUnknown)
        padding = try special("tokenizer.ggml.padding_token_id", default: nil)
        // llama.cpp's key is spelled "seperator".
        let misspelledSeparator = try special("tokenizer.ggml.seperator_token_id", default: nil)
        let spelledSeparator = try special("tokenizer.ggml.separator_token_id", default: nil)
        separator = misspelledSeparator ?? spelledSeparator
        var eot = try special("tokenizer.ggml.eot_token_id", default: nil)
        var eom = try special("tokenizer.ggml.eom_token_id", default: nil)
        var fimPad = try special("tokenizer.ggml.fim_pad_token_id", default: nil)
        var fimRepo = try special("tokenizer.ggml.fim_rep_token_id", default: nil)
        var fimSeparator = try special("tokenizer.ggml.fim_sep_token_id", default: nil)

        // Auto-detection by text. llama.cpp walks a hash map, so which of several candidates wins
        // is unspecified there; here the first text in the list wins (`<|eot_id|>` over
        // `<|end_of_text|>`, `<|im_end|>` over `<|endoftext|>`). A detected token becomes control
        // so that plain text can never produce it and it is hidden when rendering.
        func detect(_ current: inout Int32?, _ candidates: [String]) {
            guard current == nil else { return }
            if let found = candidates.lazy.compactMap({ byText[$0] }).first {
                current = found
                attributes[Int(found)].insert(.control)
            }
        }
        detect(&eot, TokenizerVocabulary.endOfTurnTexts)
        detect(&eom, ["<|eom_id|>"])
        detect(&fimPad, TokenizerVocabulary.fimPadTexts)
        detect(&fimRepo, TokenizerVocabulary.fimRepoTexts)
        detect(&fimSeparator, TokenizerVocabulary.fimSeparatorTexts)

        // Control tokens named "unused" are reserved.
        for (text, id) in byText where attributes[Int(id)].contains(.control) && text.contains("unused") {
            attributes[Int(id)].insert(.unused)
        }

        var eog = Set<Int32>()
        for id in [fimPad, fimRepo, fimSeparator] { if let id { eog.insert(id) } }
        for (text, id) in byText where TokenizerVocabulary.endOfGenerationTexts.contains(text) {
            eog.insert(id)
            attributes[Int(id)].insert(.control)
        }
        // gpt-oss renders its channel markers as ordinary text.
        for text in ["<|channel|>", "<|message|>", "<|start|>", "<|constrain|>"] {
            if let id = byText[text] { attributes[Int(id)] = .userDefined }
        }
        for id in [eos, eot, eom] { if let id { eog.insert(id) } }
        // Harmony-style vocabularies end a turn with <|return|>/<|call|>; their <|end|> only ends a message.
        let eogTexts = Set(eog.map { texts[Int($0)] })
        if let endID = byText["<|end|>"], eog.contains(endID),
           (eogTexts.contains("<|return|>") && eogTexts.contains("<|call|>"))
            || (eogTexts.contains("<|calls|>") && eogTexts.contains("<|flush|>")) {
            eog.remove(endID)
            attributes[Int(endID)] = .userDefined
        }

        // Phi-3 strips whitespace after most special tokens (llama.cpp keys this on general.name).
        let modelName = (metadata["general.name"]?.stringValue ?? "").lowercased()
        if modelName.contains("phi-3") || modelName.contains("phi3") {
            for i in 0..<n where !attributes[i].isDisjoint(with: [.control, .userDefined, .unknown]) {
                attributes[i].insert(.rightStrip)
            }
            if let id = byText["</s>"] { attributes[Int(id)].insert(.rightStrip) }
            for text in ["<unk>", "<s>", "<|endoftext|>"] {
                if let id = byText[text] { attributes[Int(id)].remove(.rightStrip) }
            }
        }

        self.texts = texts
        self.textBytes = bytes
        self.textStarts = starts
        self.scores = scores
        self.types = types
        self.attributes = attributes
        self.eot = eot
        self.eom = eom
        self.endOfGeneration = eog.sorted()
    }

    /// The stored text of token `i` as UTF-8.
    @inline(__always)
    func textRange(_ i: Int) -> Range<Int> { Int(textStarts[i])..<Int(textStarts[i + 1]) }
}
