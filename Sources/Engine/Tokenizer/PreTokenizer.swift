/// Splits text into the words byte-level BPE merges within, as named by `tokenizer.ggml.pre`.
///
/// llama.cpp describes each pre-tokenizer as a list of regular expressions applied in turn: each
/// one splits every piece left by the previous ones into its matches and the gaps between them
/// (`unicode_regex_split`). Here every expression is a hand-written matcher over Unicode scalars
/// with the same leftmost-first semantics, so no regex engine runs while encoding.
struct PreTokenizer: Sendable {
    /// The `tokenizer.ggml.pre` value this was built from (`default` when the key is absent).
    let name: String
    let stages: [SplitStage]
    /// Whether a word that is itself a token is emitted whole instead of being merged (Llama 3).
    let ignoresMerges: Bool
    /// Whether llama.cpp cleans up spaces before punctuation when detokenizing (HF's
    /// `clean_up_tokenization_spaces`); recorded for callers that want that rendering.
    let cleansUpSpaces: Bool
    /// Whether llama.cpp adds BOS by default for this pre-tokenizer unless the file says otherwise.
    let addsBOSByDefault: Bool

    /// The pre-tokenizer for `name`; throws for names llama.cpp does not define (or Loom does not implement).
    init(name rawName: String?) throws(TokenizerError) {
        let name = rawName ?? "default"
        self.name = name
        var ignoresMerges = false
        var cleans = true
        var addsBOS = false
        switch name {
        case "default":
            stages = [.run(.defaultPunctuation), .gpt2, .run(.number), .asciiDigitTriples]
        case "llama3", "llama-v3", "llama-bpe", "falcon3", "falcon-h1", "pixtral", "midm-2.0", "lfm2":
            stages = [.llama3(digitGroup: 3)]
            ignoresMerges = true
            addsBOS = true
        case "dbrx", "smaug-bpe":
            stages = [.llama3(digitGroup: 3)]
        case "deepseek-llm":
            stages = [.single(.newline), .optionalWhitespaceThenRun(.deepseekLetters),
                      .optionalWhitespaceThenRun(.deepseekPunctuation), .trailingWhitespace,
                      .run(.cjk), .run(.number)]
            cleans = false
        case "deepseek-coder":
            stages = [.single(.newline), .optionalWhitespaceThenRun(.letter),
                      .optionalWhitespaceThenRun(.punctuation), .run(.cjk), .single(.number)]
            cleans = false
        case "falcon":
            stages = [.run(.falconPunctuation), .gpt2, .asciiDigitTriples]
        case "starcoder", "refact", "smollm", "codeshell", "exaone", "minerva-7b", "mellum2", "command-r":
            stages = [.single(.number), .gpt2]
            if name == "smollm" || name == "command-r" { cleans = false }
        case "gpt-2", "phi-2", "jina-es", "jina-de", "gigachat", "jina-v2-es", "jina-v2-de", "a.x-4.0",
             "mellum", "modern-bert", "jina-v1-en", "jina-v2-code", "roberta-bpe", "mpt", "olmo", "jais",
             "exaone4", "gpt-neox":
            // `gpt-neox` is not a llama.cpp name, but GPT-NeoX tokenizers use exactly the GPT-2
            // expression (llama.cpp's MPT/OLMo types are NeoX tokenizers).
            stages = [.gpt2]
        case "trillion", "granite-docling":
            stages = [.gpt2]
            cleans = false
        case "qwen2", "deepseek-r1-qwen", "kormo", "f2llmv2", "megrez", "stablelm2", "hunyuan", "solar-open":
            stages = [.llama3(digitGroup: 1)]
            if name != "megrez" && name != "stablelm2" { cleans = false }
        default:
            throw .unknownPreTokenizer(name)
        }
        self.ignoresMerges = ignoresMerges
        self.cleansUpSpaces = cleans
        self.addsBOSByDefault = addsBOS
    }

    /// Splits `scalars[0..<count]` (with their classes) into words; returns the end index of each
    /// word, in order. `scratch` is reused between stages to avoid per-stage allocation.
    func split(_ text: ScalarText, into ends: inout [Int32], scratch: inout [Int32]) {
        ends.removeAll(keepingCapacity: true)
        ends.append(Int32(text.count))
        for stage in stages {
            scratch.removeAll(keepingCapacity: true)
            var lo = 0
            for end in ends {
                var cutter = Cutter(start: lo)
                stage.split(text, lo, Int(end), &cutter, &scratch)
                lo = Int(end)
            }
            swap(&ends, &scratch)
        }
    }
}

/// A fragment's scalars and their classes.
struct ScalarText {
    var scalars: [UInt32] = []
    var classes: [ScalarClass] = []
    /// UTF-8 offset of each scalar within the fragment, plus the end offset.
    var offsets: [Int32] = []

    var count: Int { scalars.count }

    mutating func load(_ bytes: UnsafeBufferPointer<UInt8>) {
        scalars.removeAll(keepingCapacity: true)
        classes.removeAll(keepingCapacity: true)
        offsets.removeAll(keepingCapacity: true)
        var i = 0
        let n = bytes.count
        while i < n {
            let b0 = UInt32(bytes[i])
            var v: UInt32
            var len: Int
            // Input comes from a Swift String, so it is valid UTF-8.
            if b0 < 0x80 { v = b0; len = 1 }
            else if b0 < 0xE0 { v = (b0 & 0x1F) << 6 | (UInt32(bytes[i + 1]) & 0x3F); len = 2 }
            else if b0 < 0xF0 {
                v = (b0 & 0x0F) << 12 | (UInt32(bytes[i + 1]) & 0x3F) << 6 | (UInt32(bytes[i + 2]) & 0x3F); len = 3
            } else {
                v = (b0 & 0x07) << 18 | (UInt32(bytes[i + 1]) & 0x3F) << 12 | (UInt32(bytes[i + 2]) & 0x3F) << 6
                    | (UInt32(bytes[i + 3]) & 0x3F)
                len = 4
            }
            scalars.append(v)
            classes.append(ScalarClass.of(v))
            offsets.append(Int32(i))
            i += len
        }
        offsets.append(Int32(n))
    }
}

/// Emits word boundaries, dropping empty words (llama.cpp's `_add_token`).
struct Cutter {
    private(set) var previous: Int
    init(start: Int) { previous = start }

    @inline(__always)
    mutating func cut(at end: Int, _ out: inout [Int32]) {
        if end > previous { out.append(Int32(end)) }
        previous = end
    }
}
