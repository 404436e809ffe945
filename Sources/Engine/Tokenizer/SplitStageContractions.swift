/// The expressions llama.cpp itself hand-codes (`unicode_regex_split_custom_gpt2/llama3/qwen2/qwen35`):
/// GPT-2's and Llama 3's (of which Qwen2's is the one-digit variant, and Qwen 3.5's the one whose
/// words include combining marks). They are written as state
/// machines because they run on every word of every prompt.
extension SplitStage {
    /// Classes at `i`, or no classes at all outside the piece (llama.cpp's out-of-range flags).
    @inline(__always)
    private static func classes(_ t: ScalarText, _ i: Int, _ hi: Int) -> ScalarClass {
        i < hi ? t.classes[i] : []
    }

    @inline(__always)
    private static func scalar(_ t: ScalarText, _ i: Int, _ hi: Int) -> UInt32 {
        i < hi ? t.scalars[i] : UInt32.max
    }

    /// Length of a contraction (`'s`, `'t`, `'re`, `'ve`, `'m`, `'ll`, `'d`) at `p`, or 0.
    @inline(__always)
    private static func contraction(_ t: ScalarText, _ p: Int, _ hi: Int, caseInsensitive: Bool) -> Int {
        guard t.scalars[p] == 0x27, p + 1 < hi else { return 0 }  // '
        func lower(_ v: UInt32) -> UInt32 { caseInsensitive && (0x41...0x5A).contains(v) ? v + 0x20 : v }
        let a = lower(t.scalars[p + 1])
        if a == 0x73 || a == 0x74 || a == 0x6D || a == 0x64 { return 2 }  // s t m d
        guard p + 2 < hi else { return 0 }
        let b = lower(t.scalars[p + 2])
        if (a == 0x72 && b == 0x65) || (a == 0x76 && b == 0x65) || (a == 0x6C && b == 0x6C) { return 3 }  // re ve ll
        return 0
    }

    private static let wordish: ScalarClass = [.whitespace, .letter, .number]

    static func splitGPT2(_ t: ScalarText, _ lo: Int, _ hi: Int, _ cutter: inout Cutter, _ out: inout [Int32]) {
        var pos = lo
        while pos < hi {
            let c = t.scalars[pos]
            let k = contraction(t, pos, hi, caseInsensitive: false)
            if k > 0 { pos += k; cutter.cut(at: pos, &out); continue }
            let isSpace = c == 0x20
            let head = isSpace ? classes(t, pos + 1, hi) : t.classes[pos]
            let body = pos + (isSpace ? 1 : 0)
            // ` ?\p{L}+`, ` ?\p{N}+`
            if head.contains(.letter) || head.contains(.number) {
                let cls: ScalarClass = head.contains(.letter) ? .letter : .number
                var p = body
                while classes(t, p, hi).contains(cls) { p += 1 }
                pos = p
                cutter.cut(at: pos, &out)
                continue
            }
            // ` ?[^\s\p{L}\p{N}]+`
            if head.isDisjoint(with: wordish) && head.contains(.present) {
                var p = body
                while true {
                    let f = classes(t, p, hi)
                    guard f.isDisjoint(with: wordish) && f.contains(.present) else { break }
                    p += 1
                }
                pos = p
                cutter.cut(at: pos, &out)
                continue
            }
            var spaces = 0
            while classes(t, pos + spaces, hi).contains(.whitespace) { spaces += 1 }
            if spaces > 1 && pos + spaces < hi {
                // `\s+(?!\S)`: leave the last space to prefix the next word.
                pos += spaces - 1
            } else if spaces > 0 {
                pos += spaces
            } else {
                pos += 1
            }
            cutter.cut(at: pos, &out)
        }
        cutter.cut(at: hi, &out)
    }

    static func splitLlama3(_ t: ScalarText, _ lo: Int, _ hi: Int, _ group: Int, _ letters: ScalarClass,
                            _ cutter: inout Cutter, _ out: inout [Int32]) {
        let wordClasses = letters.union([.whitespace, .number])
        var pos = lo
        while pos < hi {
            let c = t.scalars[pos]
            let f = t.classes[pos]
            let k = contraction(t, pos, hi, caseInsensitive: true)
            if k > 0 { pos += k; cutter.cut(at: pos, &out); continue }
            // `[^\r\n\p{L}\p{N}]?\p{L}+` (the run and its first scalar from `letters`)
            if !(c == 0x0D || c == 0x0A || f.contains(.number)),
               !f.isDisjoint(with: letters) || !classes(t, pos + 1, hi).isDisjoint(with: letters) {
                pos += 1
                while !classes(t, pos, hi).isDisjoint(with: letters) { pos += 1 }
                cutter.cut(at: pos, &out)
                continue
            }
            // `\p{N}{1,G}`
            if f.contains(.number) {
                var start = pos
                while classes(t, pos, hi).contains(.number) {
                    pos += 1
                    if pos - start >= group { cutter.cut(at: pos, &out); start = pos }
                }
                cutter.cut(at: pos, &out)
                continue
            }
            // ` ?[^\s\p{L}\p{N}]+[\r\n]*`
            let head = c == 0x20 ? classes(t, pos + 1, hi) : f
            if head.isDisjoint(with: wordClasses) && f.contains(.present) {
                var p = pos + (c == 0x20 ? 1 : 0)
                while true {
                    let g = classes(t, p, hi)
                    guard g.isDisjoint(with: wordClasses) && g.contains(.present) else { break }
                    p += 1
                }
                while case let s = scalar(t, p, hi), s == 0x0D || s == 0x0A { p += 1 }
                pos = p
                cutter.cut(at: pos, &out)
                continue
            }
            var spaces = 0
            var afterLastNewline = -1
            while classes(t, pos + spaces, hi).contains(.whitespace) {
                let s = t.scalars[pos + spaces]
                if s == 0x0D || s == 0x0A { afterLastNewline = pos + spaces + 1 }
                spaces += 1
            }
            if afterLastNewline >= 0 {
                pos = afterLastNewline  // `\s*[\r\n]+`
            } else if spaces > 1 && pos + spaces < hi {
                pos += spaces - 1  // `\s+(?!\S)`
            } else if spaces > 0 {
                pos += spaces  // `\s+`
            } else {
                pos += 1
            }
            cutter.cut(at: pos, &out)
        }
        cutter.cut(at: hi, &out)
    }
}
