/// The bytes each token contributes to output text, computed once per vocabulary
/// (llama.cpp's `token_to_piece` with its cache).
///
/// Stored flat so that rendering a token (streaming, grammar masks) is a slice of one buffer.
struct TokenPieces: Sendable {
    /// Piece bytes with special tokens rendered; token `i` is `bytes[starts[i]..<starts[i+1]]`.
    let bytes: [UInt8]
    let starts: [Int32]
    /// Tokens hidden unless special tokens are rendered (control and unknown).
    let hidden: [Bool]

    init(vocabulary v: TokenizerVocabulary, byteLevel: Bool) {
        var out: [UInt8] = []
        out.reserveCapacity(v.textBytes.count)
        var starts: [Int32] = [0]
        starts.reserveCapacity(v.count + 1)
        var hidden = [Bool](repeating: false, count: v.count)
        for i in 0..<v.count {
            let a = v.attributes[i]
            hidden[i] = !a.isDisjoint(with: [.control, .unknown])
            if !a.isDisjoint(with: [.control, .unknown, .userDefined]) {
                out.append(contentsOf: v.textBytes[v.textRange(i)])
            } else if a.contains(.normal) {
                if byteLevel {
                    out.append(contentsOf: ByteLevelMapping.decodeLeniently(v.texts[i]))
                } else {
                    TokenPieces.appendUnescaped(v.textBytes[v.textRange(i)], to: &out)
                }
            } else if a.contains(.byte) {
                if let b = TokenPieces.byteValue(v.texts[i]) { out.append(b) }
                else { out.append(contentsOf: v.textBytes[v.textRange(i)]) }
            }
            // Unused and undefined tokens render as nothing.
            starts.append(Int32(out.count))
        }
        bytes = out
        self.starts = starts
        self.hidden = hidden
    }

    /// `▁` (U+2581) back to a space, as SentencePiece pieces store spaces.
    private static func appendUnescaped(_ s: ArraySlice<UInt8>, to out: inout [UInt8]) {
        var i = s.startIndex
        while i < s.endIndex {
            if s[i] == 0xE2, i + 2 < s.endIndex, s[i + 1] == 0x96, s[i + 2] == 0x81 {
                out.append(0x20)
                i += 3
            } else {
                out.append(s[i])
                i += 1
            }
        }
    }

    /// The byte of a `<0xXX>` token.
    static func byteValue(_ text: String) -> UInt8? {
        let u = Array(text.utf8)
        guard u.count == 6, u[0] == 0x3C, u[1] == 0x30, u[2] == 0x78, u[5] == 0x3E else { return nil }
        return UInt8(String(decoding: u[3..<5], as: UTF8.self), radix: 16)
    }

    @inline(__always)
    func range(_ id: Int, renderSpecial: Bool) -> Range<Int> {
        if !renderSpecial && hidden[id] { return 0..<0 }
        return Int(starts[id])..<Int(starts[id + 1])
    }
}
