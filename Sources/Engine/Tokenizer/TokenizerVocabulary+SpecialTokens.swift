/// llama.cpp's load-time special-token rules (`llama_vocab::load`), as tables of token texts: which
/// ids are detected by text when their key is absent, which texts always end generation, and the
/// few per-family adjustments of attributes.
extension TokenizerVocabulary {
    /// Special ids llama.cpp detects by text when their key is absent.
    enum DetectedSpecial: CaseIterable {
        case endOfTurn, endOfMessage, fimPad, fimRepo, fimSeparator

        /// The metadata key that names the id.
        var key: String {
            switch self {
            case .endOfTurn: "tokenizer.ggml.eot_token_id"
            case .endOfMessage: "tokenizer.ggml.eom_token_id"
            case .fimPad: "tokenizer.ggml.fim_pad_token_id"
            case .fimRepo: "tokenizer.ggml.fim_rep_token_id"
            case .fimSeparator: "tokenizer.ggml.fim_sep_token_id"
            }
        }

        /// Candidate texts, the first present one winning.
        var texts: [String] {
            switch self {
            case .endOfTurn: [
                "<|eot_id|>", "<|im_end|>", "<|end|>", "<end_of_turn>", "<|endoftext|>", "<|end_of_text|>",
                "<EOT>", "_<EOT>", "[EOT]", "<｜end▁of▁sentence｜>", "<end_of_utterance>",
            ]
            case .endOfMessage: ["<|eom_id|>"]
            case .fimPad: ["<|fim_pad|>", "<fim-pad>", "<fim_pad>", "<PAD>", "[PAD]"]
            case .fimRepo: ["<|fim_repo|>", "<|repo_name|>", "<fim-repo>", "<REPO>", "<reponame>"]
            case .fimSeparator: ["<|file_sep|>"]
            }
        }
    }

    /// Texts of tokens that end generation whatever the metadata says (ggml-org/llama.cpp#9606).
    static let endOfGenerationTexts: Set<String> = [
        "<|eot_id|>", "<|im_end|>", "<|end|>", "<|return|>", "<|call|>", "<|flush|>", "<|calls|>",
        "<end_of_turn>", "<|endoftext|>", "</s>", "<|eom_id|>", "<EOT>", "_<EOT>", "[EOT]", "[EOS]",
        "<|end_of_text|>", "<end_of_utterance>", "<eos>", "<turn|>", "<|tool_response>",
        "<｜end▁of▁sentence｜>", "[e~[",
    ]
    /// gpt-oss renders its channel markers as ordinary text.
    static let userDefinedTexts = ["<|channel|>", "<|message|>", "<|start|>", "<|constrain|>"]
    /// Harmony-style vocabularies end a turn with either pair; their `<|end|>` only ends a message.
    static let turnEndingPairs = [("<|return|>", "<|call|>"), ("<|calls|>", "<|flush|>")]

    /// The id of the first of `candidates` in the vocabulary, made control so that plain text can
    /// never produce it and it is hidden when rendering. llama.cpp walks a hash map, so which of
    /// several candidates wins is unspecified there; here the first in the list wins
    /// (`<|eot_id|>` over `<|end_of_text|>`, `<|im_end|>` over `<|endoftext|>`).
    static func detect(_ candidates: [String], _ byText: TokenTextIndex, _ attributes: inout [TokenAttributes]) -> Int32? {
        guard let found = candidates.lazy.compactMap({ byText[$0] }).first else { return nil }
        attributes[Int(found)].insert(.control)
        return found
    }

    /// Control tokens named "unused" are reserved.
    static func markReservedControlsUnused(_ texts: [String], _ byText: TokenTextIndex, _ attributes: inout [TokenAttributes]) {
        for (id, text) in texts.enumerated()
        where attributes[id].contains(.control) && byText.isIndexed(id) && text.contains("unused") {
            attributes[id].insert(.unused)
        }
    }

    /// The sorted end-of-generation ids: the fill-in-the-middle ids, every token with an
    /// end-of-generation text (made control), and eos/eot/eom; a Harmony-style `<|end|>` is left
    /// out and rendered as text.
    static func endOfGenerationSet(ids: [Int32?], fim: [Int32?], texts: [String], byText: TokenTextIndex,
                                   _ attributes: inout [TokenAttributes]) -> [Int32] {
        var eog = Set(fim.compactMap { $0 })
        for text in endOfGenerationTexts {
            guard let id = byText[text] else { continue }
            eog.insert(id)
            attributes[Int(id)].insert(.control)
        }
        for text in userDefinedTexts {
            if let id = byText[text] { attributes[Int(id)] = .userDefined }
        }
        eog.formUnion(ids.compactMap { $0 })
        let eogTexts = Set(eog.map { texts[Int($0)] })
        if let endID = byText["<|end|>"], eog.contains(endID),
           turnEndingPairs.contains(where: { eogTexts.contains($0.0) && eogTexts.contains($0.1) }) {
            eog.remove(endID)
            attributes[Int(endID)] = .userDefined
        }
        return eog.sorted()
    }

    /// Phi-3 strips whitespace after most special tokens (llama.cpp keys this on `general.name`).
    static func applyModelNameRules(_ metadata: [String: GGUFValue], _ byText: TokenTextIndex,
                                    _ attributes: inout [TokenAttributes]) {
        let modelName = (metadata["general.name"]?.stringValue ?? "").lowercased()
        guard modelName.contains("phi-3") || modelName.contains("phi3") else { return }
        for i in attributes.indices where !attributes[i].isDisjoint(with: [.control, .userDefined, .unknown]) {
            attributes[i].insert(.rightStrip)
        }
        if let id = byText["</s>"] { attributes[Int(id)].insert(.rightStrip) }
        for text in ["<unk>", "<s>", "<|endoftext|>"] {
            if let id = byText[text] { attributes[Int(id)].remove(.rightStrip) }
        }
    }
}
