/// A model's tokenizer, built once from its GGUF metadata and immutable afterwards.
///
/// Implements llama.cpp's two main vocabularies with the same ids: SentencePiece-style
/// (`tokenizer.ggml.model = llama`: score-driven merges, byte fallback, `▁` for spaces) and
/// byte-level BPE (`gpt2`: a pre-tokenizer named by `tokenizer.ggml.pre`, then ranked merges).
/// Special tokens are split out of the text first; control tokens are produced only when asked to
/// parse them, so user text can never inject a control token.
public final class Tokenizer: Sendable {
    /// The two tokenizer algorithms (values of `tokenizer.ggml.model`).
    public enum Algorithm: String, Sendable {
        /// SentencePiece-style (`llama`).
        case sentencePiece = "llama"
        /// GPT-2 style byte-level BPE (`gpt2`).
        case bytePair = "gpt2"
    }

    /// The tokenizer algorithm of this vocabulary (`tokenizer.ggml.model`).
    public let algorithm: Algorithm
    /// The pre-tokenizer name (`tokenizer.ggml.pre`) for BPE vocabularies, nil for SentencePiece.
    public let preTokenizerName: String?
    /// The beginning-of-sequence token, if the vocabulary has one.
    public let bos: Int32?
    /// The end-of-sequence token, if the vocabulary has one.
    public let eos: Int32?
    /// The end-of-turn token (`tokenizer.ggml.eot_token_id`, or detected by text like llama.cpp).
    public let eot: Int32?
    /// The unknown token, if any.
    public let unknown: Int32?
    /// The padding token, if any.
    public let padding: Int32?
    /// Every token that ends generation, sorted: eos, eot, eom and control tokens with known
    /// end-of-turn texts (`<|im_end|>`, `<|eot_id|>`, `<|end|>`, `<end_of_turn>`, …), as llama.cpp's EOG set.
    public let endOfGenerationTokens: [Int32]
    /// Whether the model expects BOS at the start of a prompt (`tokenizer.ggml.add_bos_token`, else the family default).
    public let addBOSByDefault: Bool
    /// Whether the model expects EOS appended to a prompt (`tokenizer.ggml.add_eos_token`).
    public let addEOSByDefault: Bool
    /// Whether a space is prefixed to text before SentencePiece tokenization (and dropped again
    /// from the start of decoded text): `tokenizer.ggml.add_space_prefix`, default true for `llama`.
    public let addSpacePrefix: Bool
    /// Whether llama.cpp's detokenizer would clean up spaces before punctuation for this
    /// vocabulary (`decode` never does; exposed for callers that need that rendering).
    public let cleansUpSpaces: Bool

    let vocabulary: TokenizerVocabulary
    let pieces: TokenPieces
    private let splitter: SpecialTokenSplitter
    private let sentencePiece: SentencePieceModel?
    private let bytePair: BytePairModel?
    private let preTokenizer: PreTokenizer?
    private let endOfGenerationMask: [Bool]

    /// Builds the tokenizer of a GGUF file (a full model or a vocabulary-only file).
    public convenience init(gguf file: GGUFFile) throws(TokenizerError) {
        try self.init(metadata: file.metadata)
    }

    /// Builds a tokenizer from GGUF metadata.
    public init(metadata: [String: GGUFValue]) throws(TokenizerError) {
        guard let modelValue = metadata["tokenizer.ggml.model"] else { throw .missingKey("tokenizer.ggml.model") }
        guard let modelName = modelValue.stringValue else { throw .wrongValueType(key: "tokenizer.ggml.model", expected: "a string") }
        guard let algorithm = Algorithm(rawValue: modelName) else { throw .unsupportedModel(modelName) }
        self.algorithm = algorithm

        func flag(_ key: String) throws(TokenizerError) -> Bool? {
            guard let v = metadata[key] else { return nil }
            guard let b = v.boolValue else { throw .wrongValueType(key: key, expected: "a bool") }
            return b
        }

        switch algorithm {
        case .sentencePiece:
            let v = try TokenizerVocabulary(metadata: metadata, defaultBOS: 1, defaultEOS: 2, defaultUnknown: 0)
            vocabulary = v
            preTokenizerName = nil
            preTokenizer = nil
            sentencePiece = SentencePieceModel(vocabulary: v)
            bytePair = nil
            addSpacePrefix = try flag("tokenizer.ggml.add_space_prefix") ?? true
            addBOSByDefault = try flag("tokenizer.ggml.add_bos_token") ?? true
            cleansUpSpaces = false
            pieces = TokenPieces(vocabulary: v, byteLevel: false)
        case .bytePair:
            let preName: String?
            if let p = metadata["tokenizer.ggml.pre"] {
                guard let s = p.stringValue else { throw .wrongValueType(key: "tokenizer.ggml.pre", expected: "a string") }
                preName = s
            } else {
                preName = nil  // files from before the key existed: llama.cpp's `default`
            }
            let pre = try PreTokenizer(name: preName)
            let v = try TokenizerVocabulary(metadata: metadata, defaultBOS: nil, defaultEOS: nil, defaultUnknown: nil)
            guard let mergesValue = metadata["tokenizer.ggml.merges"] else { throw .missingKey("tokenizer.ggml.merges") }
            guard let merges = mergesValue.arrayValue else {
                throw .wrongValueType(key: "tokenizer.ggml.merges", expected: "an array of strings")
            }
            vocabulary = v
            preTokenizerName = pre.name
            preTokenizer = pre
            sentencePiece = nil
            bytePair = try BytePairModel(vocabulary: v, merges: merges, ignoresMerges: pre.ignoresMerges)
            addSpacePrefix = try flag("tokenizer.ggml.add_space_prefix") ?? false
            addBOSByDefault = try flag("tokenizer.ggml.add_bos_token") ?? pre.addsBOSByDefault
            cleansUpSpaces = pre.cleansUpSpaces
            pieces = TokenPieces(vocabulary: v, byteLevel: true)
        }
        addEOSByDefault = try flag("tokenizer.ggml.add_eos_token") ?? false
        splitter = SpecialTokenSplitter(vocabulary: vocabulary)
        bos = vocabulary.bos
        eos = vocabulary.eos
        eot = vocabulary.eot
        unknown = vocabulary.unknown
        padding = vocabulary.padding
        endOfGenerationTokens = vocabulary.endOfGeneration
        var mask = [Bool](repeating: false, count: vocabulary.count)
        for id in vocabulary.endOfGeneration { mask[Int(id)] = true }
        endOfGenerationMask = mask
    }

    /// Number of tokens in the vocabulary (ids are `0..<vocabularySize`).
    public var vocabularySize: Int { vocabulary.count }

    // MARK: - Encoding

    /// Tokenizes `text`.
    /// - Parameters:
    ///   - addBOS: prepend the BOS token (when the vocabulary has one). Use `addBOSByDefault` to
    ///     follow the model's own preference.
    ///   - parseSpecial: treat the texts of control tokens (`<|im_start|>`, `<s>`, …) in `text` as
    ///     those tokens. When false they are tokenized as ordinary text; user-defined tokens are
    ///     split out either way, as llama.cpp does.
    public func encode(_ text: String, addBOS: Bool = false, parseSpecial: Bool = false) -> [Int32] {
        var output: [Int32] = []
        if addBOS, let bos { output.append(bos) }
        var utf8 = text
        utf8.withUTF8 { bytes in
            let fragments = splitter.partition(bytes, parseSpecial: parseSpecial)
            switch algorithm {
            case .sentencePiece: encodeSentencePiece(bytes, fragments, &output)
            case .bytePair: encodeBytePair(bytes, fragments, &output)
            }
        }
        return output
    }

    private func encodeSentencePiece(_ bytes: UnsafeBufferPointer<UInt8>, _ fragments: [SpecialTokenSplitter.Fragment],
                                     _ output: inout [Int32]) {
        guard let spm = sentencePiece else { return }
        var previousWasSpecial = true  // the start of text counts as following a special token
        var escaped: [UInt8] = []
        for fragment in fragments {
            switch fragment {
            case .token(let id):
                output.append(id)
                previousWasSpecial = true
            case .text(let range):
                escaped.removeAll(keepingCapacity: true)
                if addSpacePrefix && previousWasSpecial { escaped.append(contentsOf: [0xE2, 0x96, 0x81]) }
                for i in range {
                    if bytes[i] == 0x20 { escaped.append(contentsOf: [0xE2, 0x96, 0x81]) } else { escaped.append(bytes[i]) }
                }
                escaped.withUnsafeBufferPointer { spm.tokenize($0, into: &output) }
                previousWasSpecial = false
            }
        }
    }

    private func encodeBytePair(_ bytes: UnsafeBufferPointer<UInt8>, _ fragments: [SpecialTokenSplitter.Fragment],
                                _ output: inout [Int32]) {
        guard let bpe = bytePair, let pre = preTokenizer else { return }
        var text = ScalarText()
        var ends: [Int32] = []
        var scratch: [Int32] = []
        var workspace = BytePairModel.Workspace()
        for fragment in fragments {
            switch fragment {
            case .token(let id):
                output.append(id)
            case .text(let range):
                let slice = UnsafeBufferPointer(rebasing: bytes[range])
                text.load(slice)
                pre.split(text, into: &ends, scratch: &scratch)
                var start = 0
                for end in ends {
                    let a = Int(text.offsets[start]), b = Int(text.offsets[Int(end)])
                    bpe.tokenize(word: UnsafeBufferPointer(rebasing: slice[a..<b]), workspace: &workspace, into: &output)
                    start = Int(end)
                }
            }
        }
    }

    // MARK: - Decoding

    /// The exact bytes token `id` contributes to output text when special tokens are not rendered:
    /// byte-fallback `<0xXX>` → that byte, SentencePiece `▁` → space, GPT-2 byte-level characters →
    /// their bytes, user-defined tokens → their text, control/unknown/unused tokens → nothing.
    /// Empty for ids outside the vocabulary. A piece may be part of a multi-byte character.
    public func tokenBytes(_ id: Int32) -> [UInt8] {
        guard id >= 0, Int(id) < vocabularySize else { return [] }
        return Array(pieces.bytes[pieces.range(Int(id), renderSpecial: false)])
    }

    /// Calls `body` with the bytes of token `id` without copying them (for per-token paths).
    /// - Parameter renderSpecial: render control and unknown tokens as their text.
    public func withTokenBytes<R>(_ id: Int32, renderSpecial: Bool = false,
                                  _ body: (UnsafeBufferPointer<UInt8>) throws -> R) rethrows -> R {
        guard id >= 0, Int(id) < vocabularySize else { return try body(UnsafeBufferPointer(start: nil, count: 0)) }
        let r = pieces.range(Int(id), renderSpecial: renderSpecial)
        return try pieces.bytes.withUnsafeBufferPointer { try body(UnsafeBufferPointer(rebasing: $0[r])) }
    }

    /// Renders `ids` as text. Pieces are concatenated byte-exactly; with `addSpacePrefix` (SentencePiece)
    /// one leading space is dropped from the first piece that produces output, undoing the prefix
    /// `encode` adds, so `decode(encode(x)) == x`. Invalid UTF-8 (a sequence cut short) becomes U+FFFD.
    /// - Parameters:
    ///   - renderSpecial: render control tokens as their text (`<|im_end|>`); otherwise they are omitted.
    ///   - cleanUpSpaces: also apply Hugging Face's lossy space clean-up (`"a , b"` → `"a, b"`)
    ///     when the vocabulary asks for it (`cleansUpSpaces`), as llama.cpp's `llama_detokenize` does.
    public func decode(_ ids: [Int32], renderSpecial: Bool = false, cleanUpSpaces: Bool = false) throws(TokenizerError) -> String {
        var out: [UInt8] = []
        var stripPending = addSpacePrefix
        for id in ids {
            guard id >= 0, Int(id) < vocabularySize else { throw .invalidTokenID(id, vocabularySize: vocabularySize) }
            var r = pieces.range(Int(id), renderSpecial: renderSpecial)
            if r.isEmpty { continue }
            if stripPending {
                stripPending = false
                if pieces.bytes[r.lowerBound] == 0x20 { r = (r.lowerBound + 1)..<r.upperBound }
            }
            out.append(contentsOf: pieces.bytes[r])
        }
        if cleanUpSpaces && cleansUpSpaces { SpaceCleanup.apply(&out) }
        return String(decoding: out, as: UTF8.self)
    }

    // MARK: - Token properties

    /// The token's stored text (byte-level or `▁`-escaped, exactly as in the file), nil for a bad id.
    public func tokenText(_ id: Int32) -> String? {
        guard id >= 0, Int(id) < vocabularySize else { return nil }
        return vocabulary.texts[Int(id)]
    }

    /// The token's type from `tokenizer.ggml.token_type`, nil for a bad id or a type outside the specification.
    public func tokenType(_ id: Int32) -> TokenType? {
        guard id >= 0, Int(id) < vocabularySize else { return nil }
        return TokenType(rawValue: vocabulary.types[Int(id)])
    }

    /// The token's attributes after llama.cpp's load-time adjustments (empty for a bad id).
    public func tokenAttributes(_ id: Int32) -> TokenAttributes {
        guard id >= 0, Int(id) < vocabularySize else { return [] }
        return vocabulary.attributes[Int(id)]
    }

    /// Whether the token is a control token (never produced from plain text, hidden when rendering).
    public func isControl(_ id: Int32) -> Bool { tokenAttributes(id).contains(.control) }

    /// Whether generating this token ends generation.
    public func isEndOfGeneration(_ id: Int32) -> Bool {
        id >= 0 && Int(id) < endOfGenerationMask.count && endOfGenerationMask[Int(id)]
    }

    /// The SentencePiece score of a token (zero for BPE vocabularies or a bad id).
    public func tokenScore(_ id: Int32) -> Float {
        guard id >= 0, Int(id) < vocabularySize else { return 0 }
        return vocabulary.scores[Int(id)]
    }
}

extension Tokenizer {
    /// The tokenizer algorithm under its former name, which read as the loaded model (`Engine.Model`).
    @available(*, deprecated, renamed: "Algorithm")
    public typealias Model = Algorithm

    /// The tokenizer algorithm under its former name.
    @available(*, deprecated, renamed: "algorithm")
    public var model: Algorithm { algorithm }

    /// The words a byte-level BPE pre-tokenizer cuts `text` into, before any merging and without
    /// special-token splitting. For inspecting and testing pre-tokenizers.
    /// - Parameter name: a `tokenizer.ggml.pre` value (`llama-bpe`, `qwen2`, …).
    public static func preTokenize(_ text: String, preTokenizer name: String) throws(TokenizerError) -> [String] {
        let pre = try PreTokenizer(name: name)
        var scalars = ScalarText()
        var ends: [Int32] = [], scratch: [Int32] = []
        var copy = text
        return copy.withUTF8 { bytes in
            scalars.load(bytes)
            pre.split(scalars, into: &ends, scratch: &scratch)
            var words: [String] = []
            var start = 0
            for end in ends {
                let a = Int(scalars.offsets[start]), b = Int(scalars.offsets[Int(end)])
                words.append(String(decoding: UnsafeBufferPointer(rebasing: bytes[a..<b]), as: UTF8.self))
                start = Int(end)
            }
            return words
        }
    }
}
