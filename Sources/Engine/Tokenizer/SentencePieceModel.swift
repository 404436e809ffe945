/// SentencePiece-style tokenization by score (`tokenizer.ggml.model = llama`), as llama.cpp's
/// `llm_tokenizer_spm_session` does it: start from single characters, repeatedly merge the
/// adjacent pair whose concatenation is the highest-scoring token (leftmost on ties), then emit
/// each final piece as its token, or as byte-fallback tokens `<0xXX>` when it is not one.
struct SentencePieceModel: Sendable {
    /// Token texts that plain text may produce (control and unknown tokens excluded), by bytes.
    private let pieces: ByteStringTable
    /// Token id for each `pieces` entry.
    private let pieceToken: [Int32]
    private let scores: [Float]
    /// The token for each byte (`<0xXX>`, else the one-byte text), or -1.
    private let byteToken: [Int32]
    private let unknown: Int32?

    init(vocabulary v: TokenizerVocabulary) {
        var table = ByteStringTable(expectedCount: v.count)
        var tokenFor: [Int32] = []
        tokenFor.reserveCapacity(v.count)
        for i in 0..<v.count where v.attributes[i].isDisjoint(with: [.control, .unknown]) {
            let (e, isNew) = table.insert(Array(v.textBytes[v.textRange(i)]))
            if isNew { tokenFor.append(Int32(i)) } else { tokenFor[e] = Int32(i) }  // last wins, as llama.cpp
        }
        // Byte fallback looks at every token, as llama.cpp's `byte_to_token` does.
        let hex = Array("0123456789ABCDEF")
        var bytes = [Int32](repeating: -1, count: 256)
        for b in 0..<256 {
            let name = "<0x\(hex[b >> 4])\(hex[b & 15])>"
            if let id = v.textIndex[name] { bytes[b] = id }
            else if b < 0x80, let id = v.textIndex[String(UnicodeScalar(UInt8(b)))] { bytes[b] = id }
        }
        pieces = table
        pieceToken = tokenFor
        scores = v.scores
        byteToken = bytes
        unknown = v.unknown
    }

    private struct Symbol {
        var start: Int32
        var length: Int32
        var prev: Int32
        var next: Int32
    }

    private struct Bigram {
        var score: Float
        var left: Int32
        var right: Int32
        var size: Int32

        /// Heap order: higher score first, then the leftmost pair.
        @inline(__always)
        static func before(_ a: Bigram, _ b: Bigram) -> Bool {
            a.score > b.score || (a.score == b.score && a.left < b.left)
        }
    }

    /// Tokenizes `text` (already prefixed and with spaces escaped to `▁`), appending to `output`.
    func tokenize(_ text: UnsafeBufferPointer<UInt8>, into output: inout [Int32]) {
        let n = text.count
        guard n > 0, let base = text.baseAddress else { return }
        var symbols: [Symbol] = []
        symbols.reserveCapacity(n)
        var offset = 0
        while offset < n {
            let len = min(utf8Length(text[offset]), n - offset)
            let index = Int32(symbols.count)
            symbols.append(Symbol(start: Int32(offset), length: Int32(len), prev: index - 1,
                                  next: offset + len == n ? -1 : index + 1))
            offset += len
        }
        var heap = BinaryHeap<Bigram>(before: Bigram.before)
        func tryAdd(_ left: Int32, _ right: Int32) {
            if left < 0 || right < 0 { return }
            let l = symbols[Int(left)], r = symbols[Int(right)]
            let size = Int(l.length + r.length)
            guard let e = pieces.index(of: base + Int(l.start), count: size) else { return }
            heap.push(Bigram(score: scores[Int(pieceToken[e])], left: left, right: right, size: Int32(size)))
        }
        for i in 1..<max(symbols.count, 1) { tryAdd(Int32(i - 1), Int32(i)) }
        while let b = heap.pop() {
            let l = symbols[Int(b.left)], r = symbols[Int(b.right)]
            // Stale if either side has since been merged away or grown.
            if l.length == 0 || r.length == 0 || l.length + r.length != b.size { continue }
            symbols[Int(b.left)].length += r.length
            symbols[Int(b.right)].length = 0
            symbols[Int(b.left)].next = r.next
            if r.next >= 0 { symbols[Int(r.next)].prev = b.left }
            tryAdd(l.prev, b.left)
            tryAdd(b.left, r.next)
        }
        var i: Int32 = 0
        while i != -1 {
            let s = symbols[Int(i)]
            if let e = pieces.index(of: base + Int(s.start), count: Int(s.length)) {
                output.append(pieceToken[e])
            } else {
                // Only single characters can be left without a token: every merge made a token.
                for k in 0..<Int(s.length) {
                    let t = byteToken[Int(text[Int(s.start) + k])]
                    if t >= 0 { output.append(t) } else if let unknown { output.append(unknown) }
                }
            }
            i = s.next
        }
    }
}

/// Bytes in the UTF-8 sequence a lead byte starts (1 for stray continuation bytes), as llama.cpp's
/// `unicode_len_utf8`.
@inline(__always)
func utf8Length(_ lead: UInt8) -> Int {
    switch lead >> 4 {
    case 0xC, 0xD: return 2
    case 0xE: return 3
    case 0xF: return 4
    default: return 1
    }
}
