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
        guard let recipe = PreTokenizer.recipes[name] else { throw .unknownPreTokenizer(name) }
        self.name = name
        stages = recipe.stages
        ignoresMerges = recipe.ignoresMerges
        cleansUpSpaces = recipe.cleansUpSpaces
        addsBOSByDefault = recipe.addsBOSByDefault
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
