/// Byte-level BPE (`tokenizer.ggml.model = gpt2`), as llama.cpp's `llm_tokenizer_bpe_session`:
/// each pre-tokenized word starts as one symbol per byte and the adjacent pair with the lowest
/// merge rank (leftmost on ties) is merged until no ranked pair is left.
///
/// Everything works on byte strings and integer piece ids: token texts and merge halves are
/// decoded from GPT-2's byte↔unicode mapping once at build time, and merges are a hash table from
/// a pair of piece ids to (rank, merged piece).
struct BytePairModel: Sendable {
    /// Every byte string that is a token or a merge half/result.
    private let pieces: ByteStringTable
    /// The token for each piece, or -1 (control and unknown tokens are never produced from text).
    private let pieceToken: [Int32]
    /// The piece of each single byte, or -1.
    private let bytePiece: [Int32]
    private let merges: PairTable
    let ignoresMerges: Bool

    init(vocabulary v: TokenizerVocabulary, merges mergeValues: [GGUFValue], ignoresMerges: Bool) throws(TokenizerError) {
        var table = ByteStringTable(expectedCount: v.count + mergeValues.count / 8)
        var tokenFor: [Int32] = []
        tokenFor.reserveCapacity(v.count)
        func piece(_ bytes: UnsafeBufferPointer<UInt8>) -> Int32 {
            let (e, isNew) = table.insert(bytes.baseAddress, count: bytes.count)
            if isNew { tokenFor.append(-1) }
            return Int32(e)
        }
        var decoded: [UInt8] = []
        for i in 0..<v.count {
            let r = v.textRange(i)
            let ok = v.textBytes.withUnsafeBufferPointer {
                ByteLevelMapping.decode(UnsafeBufferPointer(rebasing: $0[r]), into: &decoded)
            }
            guard ok else { continue }
            let e = decoded.withUnsafeBufferPointer { piece($0) }
            if v.attributes[i].isDisjoint(with: [.control, .unknown]) { tokenFor[Int(e)] = Int32(i) }  // last wins
        }
        var pairs = PairTable(expectedCount: mergeValues.count)
        var left: [UInt8] = [], right: [UInt8] = []
        for (rank, value) in mergeValues.enumerated() {
            guard case .string(var line) = value else {
                throw .wrongValueType(key: "tokenizer.ggml.merges", expected: "an array of strings")
            }
            let ok = line.withUTF8 { u -> Bool in
                // "A B": the separator is the first space after the first byte (as llama.cpp splits).
                guard u.count >= 3, let space = u[1...].firstIndex(of: 0x20) else { return false }
                // Halves outside the byte mapping can never match byte-level text.
                return ByteLevelMapping.decode(UnsafeBufferPointer(rebasing: u[..<space]), into: &left)
                    && ByteLevelMapping.decode(UnsafeBufferPointer(rebasing: u[(space + 1)...]), into: &right)
                    && !left.isEmpty && !right.isEmpty
            }
            guard ok else { continue }
            let pa = left.withUnsafeBufferPointer { piece($0) }
            let pb = right.withUnsafeBufferPointer { piece($0) }
            left.append(contentsOf: right)
            let pab = left.withUnsafeBufferPointer { piece($0) }
            pairs.insertIfAbsent(left: pa, right: pb, rank: Int32(rank), merged: pab)
        }
        var bytes = [Int32](repeating: -1, count: 256)
        for b in 0..<256 { bytes[b] = table.index(of: [UInt8(b)]).map { Int32($0) } ?? -1 }
        pieces = table
        pieceToken = tokenFor
        bytePiece = bytes
        merges = pairs
        self.ignoresMerges = ignoresMerges
    }

    fileprivate struct Symbol {
        var piece: Int32
        var start: Int32
        var length: Int32
        var prev: Int32
        var next: Int32
    }

    fileprivate struct Bigram {
        var rank: Int32
        var left: Int32
        var right: Int32
        var leftPiece: Int32
        var rightPiece: Int32
        var merged: Int32

        @inline(__always)
        static func before(_ a: Bigram, _ b: Bigram) -> Bool {
            a.rank < b.rank || (a.rank == b.rank && a.left < b.left)
        }
    }

    /// Reusable buffers for one `encode` call.
    struct Workspace {
        fileprivate var symbols: [Symbol] = []
        fileprivate var heap = BinaryHeap<Bigram>(before: Bigram.before)
    }

    /// Tokenizes one pre-tokenized word (raw bytes), appending to `output`.
    func tokenize(word: UnsafeBufferPointer<UInt8>, workspace ws: inout Workspace, into output: inout [Int32]) {
        let n = word.count
        guard n > 0, let base = word.baseAddress else { return }
        if ignoresMerges, let e = pieces.index(of: base, count: n), pieceToken[e] >= 0 {
            output.append(pieceToken[e])
            return
        }
        ws.symbols.removeAll(keepingCapacity: true)
        ws.heap.removeAll()
        for i in 0..<n {
            ws.symbols.append(Symbol(piece: bytePiece[Int(word[i])], start: Int32(i), length: 1,
                                     prev: Int32(i - 1), next: i + 1 == n ? -1 : Int32(i + 1)))
        }
        func tryAdd(_ left: Int32, _ right: Int32, _ ws: inout Workspace) {
            if left < 0 || right < 0 { return }
            let a = ws.symbols[Int(left)].piece, b = ws.symbols[Int(right)].piece
            if a < 0 || b < 0 { return }
            guard let m = merges.find(left: a, right: b) else { return }
            ws.heap.push(Bigram(rank: m.rank, left: left, right: right, leftPiece: a, rightPiece: b, merged: m.merged))
        }
        for i in 1..<max(n, 1) { tryAdd(Int32(i - 1), Int32(i), &ws) }
        while let g = ws.heap.pop() {
            let l = ws.symbols[Int(g.left)], r = ws.symbols[Int(g.right)]
            // Stale if either side was merged away or has become a different piece.
            if l.length == 0 || r.length == 0 || l.piece != g.leftPiece || r.piece != g.rightPiece || l.next != g.right {
                continue
            }
            ws.symbols[Int(g.left)].length += r.length
            ws.symbols[Int(g.left)].piece = g.merged
            ws.symbols[Int(g.left)].next = r.next
            ws.symbols[Int(g.right)].length = 0
            if r.next >= 0 { ws.symbols[Int(r.next)].prev = g.left }
            tryAdd(l.prev, g.left, &ws)
            tryAdd(g.left, r.next, &ws)
        }
        var i: Int32 = 0
        while i != -1 {
            let s = ws.symbols[Int(i)]
            let t = s.piece >= 0 ? pieceToken[Int(s.piece)] : -1
            if t >= 0 {
                output.append(t)
            } else {
                // No token for this piece: llama.cpp then looks up each byte of its byte-level
                // text on its own, which can only succeed for the self-mapped ASCII bytes.
                for k in 0..<Int(s.length) {
                    let b = word[Int(s.start) + k]
                    if (0x21...0x7E).contains(b), bytePiece[Int(b)] >= 0, pieceToken[Int(bytePiece[Int(b)])] >= 0 {
                        output.append(pieceToken[Int(bytePiece[Int(b)])])
                    }
                }
            }
            i = s.next
        }
    }
}

/// Open-addressing map from a pair of piece ids to (merge rank, merged piece).
struct PairTable: Sendable {
    private var keys: [UInt64]
    private var ranks: [Int32]
    private var results: [Int32]
    private let mask: Int
    private static let empty = UInt64.max

    init(expectedCount: Int) {
        var cap = 16
        while cap < expectedCount * 2 { cap <<= 1 }
        keys = [UInt64](repeating: PairTable.empty, count: cap)
        ranks = [Int32](repeating: 0, count: cap)
        results = [Int32](repeating: 0, count: cap)
        mask = cap - 1
    }

    @inline(__always)
    private static func key(_ a: Int32, _ b: Int32) -> UInt64 { UInt64(UInt32(bitPattern: a)) << 32 | UInt64(UInt32(bitPattern: b)) }

    @inline(__always)
    private func slot(for k: UInt64) -> Int {
        // Fibonacci hashing spreads the sequential piece ids.
        Int(truncatingIfNeeded: (k &* 0x9E37_79B9_7F4A_7C15) >> 32) & mask
    }

    /// Records the merge unless the pair already has one (the first, lowest rank wins, as llama.cpp's `emplace`).
    mutating func insertIfAbsent(left: Int32, right: Int32, rank: Int32, merged: Int32) {
        let k = PairTable.key(left, right)
        var s = slot(for: k)
        while keys[s] != PairTable.empty {
            if keys[s] == k { return }
            s = (s + 1) & mask
        }
        keys[s] = k
        ranks[s] = rank
        results[s] = merged
    }

    @inline(__always)
    func find(left: Int32, right: Int32) -> (rank: Int32, merged: Int32)? {
        let k = PairTable.key(left, right)
        var s = slot(for: k)
        while true {
            let x = keys[s]
            if x == k { return (ranks[s], results[s]) }
            if x == PairTable.empty { return nil }
            s = (s + 1) & mask
        }
    }
}
