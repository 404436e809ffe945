/// One expression of a pre-tokenizer, as a matcher over scalars (see `PreTokenizer`).
///
/// Each case reproduces one of llama.cpp's expressions with ECMAScript leftmost-first semantics
/// on its "collapsed" text: non-ASCII whitespace behaves as `\v`, and `\p{…}` tests the general
/// category. Matches and the gaps between them both become words.
enum SplitStage: Sendable {
    /// `'s|'t|'re|'ve|'m|'ll|'d| ?\p{L}+| ?\p{N}+| ?[^\s\p{L}\p{N}]+|\s+(?!\S)` (GPT-2).
    case gpt2
    /// `(?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}{1,G}| ?[^\s\p{L}\p{N}]+[\r\n]*|\s*[\r\n]+|\s+(?!\S)|\s+`
    /// with G = 3 (Llama 3) or G = 1 (Qwen2, which writes `\p{N}`). `letters` is the class the
    /// word runs are made of: `\p{L}`, or `[\p{L}\p{M}]` for Qwen 3.5, whose words keep their
    /// combining marks (and whose punctuation runs then exclude marks too).
    case llama3(digitGroup: Int, letters: ScalarClass = .letter)
    /// `[C]`: every scalar of the class on its own.
    case single(CharacterSet)
    /// `[C]+`.
    case run(CharacterSet)
    /// `\s?[C]+`.
    case optionalWhitespaceThenRun(CharacterSet)
    /// `[0-9][0-9][0-9]`.
    case asciiDigitTriples
    /// `\s+$`: the whitespace that ends the piece.
    case trailingWhitespace

    /// A set of scalars: a union of class bits and explicit ranges.
    struct CharacterSet: Sendable {
        let classes: ScalarClass
        let ranges: [ClosedRange<UInt32>]

        /// Whether the scalar `v` with classes `c` belongs. Ranges see non-ASCII whitespace as
        /// U+000B, as llama.cpp's regex fallback does before matching.
        @inline(__always)
        func contains(_ v: UInt32, _ c: ScalarClass) -> Bool {
            if !c.isDisjoint(with: classes) { return true }
            let w = (v > 0x7F && c.contains(.whitespace)) ? 0x0B : v
            for r in ranges where r.contains(w) { return true }
            return false
        }

        static let number = CharacterSet(classes: .number, ranges: [])
        static let letter = CharacterSet(classes: .letter, ranges: [])
        static let punctuation = CharacterSet(classes: .punctuation, ranges: [])
        static let newline = CharacterSet(classes: [], ranges: [0x0A...0x0A, 0x0D...0x0D])
        static let lineFeed = CharacterSet(classes: [], ranges: [0x0A...0x0A])
        /// `[\p{P}\$\+<=>\^~\|]`
        static let defaultPunctuation = CharacterSet(classes: .punctuation, ranges: ascii("$+<=>^~|"))
        /// `[\p{P}\$\+<=>\^~\|`]`
        static let falconPunctuation = CharacterSet(classes: .punctuation, ranges: ascii("$+<=>^~|`"))
        /// `[一-龥ࠀ-一가-퟿]`
        static let cjk = CharacterSet(classes: [], ranges: [0x4E00...0x9FA5, 0x0800...0x4E00, 0xAC00...0xD7FF])
        /// DeepSeek LLM's `[!-/:-~！-／：-～‘-‟　-。]`.
        static let deepseekPunctuation = CharacterSet(classes: [], ranges: [
            0x21...0x2F, 0x3A...0x7E, 0xFF01...0xFF0F, 0xFF1A...0xFF5E, 0x2018...0x201F, 0x3000...0x3002,
        ])
        /// DeepSeek LLM's explicit letter class (Latin, Greek, Cyrillic, Armenian, Georgian,
        /// Cherokee, Glagolitic, Coptic, Deseret, … cased letters).
        static let deepseekLetters = CharacterSet(classes: [], ranges: [
            0x41...0x5A, 0x61...0x7A, 0xB5...0xB5, 0xC0...0xD6, 0xD8...0xF6, 0xF8...0x1BA, 0x1BC...0x1BF,
            0x1C4...0x293, 0x295...0x2AF, 0x370...0x373, 0x376...0x377, 0x37B...0x37D, 0x37F...0x37F,
            0x386...0x386, 0x388...0x38A, 0x38C...0x38C, 0x38E...0x3A1, 0x3A3...0x3F5, 0x3F7...0x481,
            0x48A...0x52F, 0x531...0x556, 0x10A0...0x10C5, 0x13A0...0x13F5, 0x13F8...0x13FD,
            0x1C90...0x1CBA, 0x1CBD...0x1CBF, 0x1D00...0x1D2B, 0x1D6B...0x1D77, 0x1D79...0x1D9A,
            0x1E00...0x1F15, 0x1F18...0x1F1D, 0x1F20...0x1F45, 0x1F48...0x1F4D, 0x1F50...0x1F57,
            0x1F59...0x1F59, 0x1F5B...0x1F5B, 0x1F5D...0x1F5D, 0x1F5F...0x1F7D, 0x1F80...0x1FB4,
            0x1FB6...0x1FBC, 0x1FBE...0x1FBE, 0x1FC2...0x1FC4, 0x1FC6...0x1FCC, 0x1FD0...0x1FD3,
            0x1FD6...0x1FDB, 0x1FE0...0x1FEC, 0x1FF2...0x1FF4, 0x1FF6...0x1FFC, 0x2102...0x2102,
            0x2107...0x2107, 0x210A...0x2113, 0x2115...0x2115, 0x2119...0x211D, 0x2124...0x2124,
            0x2126...0x2126, 0x2128...0x2128, 0x212A...0x212D, 0x212F...0x2134, 0x2139...0x2139,
            0x213C...0x213F, 0x2145...0x2149, 0x214E...0x214E, 0x2183...0x2184, 0x2C00...0x2C7B,
            0x2C7E...0x2CE4, 0x2CEB...0x2CEE, 0x2CF2...0x2CF3, 0xA640...0xA66D, 0xA680...0xA69B,
            0xA722...0xA76F, 0xA771...0xA787, 0xA78B...0xA78E, 0xAB70...0xABBF, 0xFB00...0xFB06,
            0xFB13...0xFB17, 0xFF21...0xFF3A, 0xFF41...0xFF5A, 0x10400...0x1044F, 0x104B0...0x104D3,
            0x104D8...0x104FB, 0x10C80...0x10CB2, 0x10CC0...0x10CF2, 0x118A0...0x118DF, 0x1E900...0x1E943,
        ])

        private static func ascii(_ s: String) -> [ClosedRange<UInt32>] { s.unicodeScalars.map { $0.value...$0.value } }
    }

    /// Splits `text[lo..<hi]`, appending word ends to `out`.
    func split(_ text: ScalarText, _ lo: Int, _ hi: Int, _ cutter: inout Cutter, _ out: inout [Int32]) {
        switch self {
        case .gpt2: SplitStage.splitGPT2(text, lo, hi, &cutter, &out)
        case .llama3(let group, let letters): SplitStage.splitLlama3(text, lo, hi, group, letters, &cutter, &out)
        case .trailingWhitespace:
            var start = hi
            while start > lo && text.classes[start - 1].contains(.whitespace) { start -= 1 }
            cutter.cut(at: start, &out)
            cutter.cut(at: hi, &out)
        default:
            var p = lo
            while p < hi {
                if let end = matchEnd(text, p, hi) {
                    cutter.cut(at: p, &out)  // the gap before the match
                    cutter.cut(at: end, &out)
                    p = end
                } else {
                    p += 1
                }
            }
            cutter.cut(at: hi, &out)
        }
    }

    /// End of the match starting at `p`, if one does (for the class-based cases).
    @inline(__always)
    private func matchEnd(_ t: ScalarText, _ p: Int, _ hi: Int) -> Int? {
        func runEnd(_ set: CharacterSet, from q: Int) -> Int {
            var e = q
            while e < hi && set.contains(t.scalars[e], t.classes[e]) { e += 1 }
            return e
        }
        switch self {
        case .single(let set): return set.contains(t.scalars[p], t.classes[p]) ? p + 1 : nil
        case .run(let set): return set.contains(t.scalars[p], t.classes[p]) ? runEnd(set, from: p + 1) : nil
        case .optionalWhitespaceThenRun(let set):
            // Greedy `\s?` first; if the run cannot follow, retry without it.
            if t.classes[p].contains(.whitespace), p + 1 < hi, set.contains(t.scalars[p + 1], t.classes[p + 1]) {
                return runEnd(set, from: p + 2)
            }
            return set.contains(t.scalars[p], t.classes[p]) ? runEnd(set, from: p + 1) : nil
        case .asciiDigitTriples:
            guard p + 3 <= hi else { return nil }
            for q in p..<(p + 3) where !(0x30...0x39).contains(t.scalars[q]) { return nil }
            return p + 3
        case .gpt2, .llama3, .trailingWhitespace: return nil
        }
    }
}
