/// Splits input text on the texts of special tokens before any model-specific tokenization
/// (llama.cpp's `tokenizer_st_partition`).
///
/// llama.cpp takes special tokens longest text first and, for each, cuts every still-raw fragment
/// at each of its occurrences. The same result is computed here from one pass that finds all
/// candidate occurrences, then accepts them token by token in that order: an occurrence is taken
/// only if all its bytes are still raw text, which is exactly when llama.cpp's search would find it.
struct SpecialTokenSplitter: Sendable {
    /// One piece of partitioned input.
    enum Fragment: Equatable {
        /// Raw text `bytes[range]`, to be tokenized by the model.
        case text(Range<Int>)
        /// A special token split out of the text.
        case token(Int32)
    }

    private struct Candidate: Sendable {
        let id: Int32
        let range: Range<Int>  // in TokenizerVocabulary.textBytes
        /// User-defined tokens are split out even when special parsing is off.
        let alwaysSplit: Bool
        let leftStrip: Bool
        let rightStrip: Bool
    }

    /// Candidates in llama.cpp's processing order (longest text first, then lowest id).
    private let candidates: [Candidate]
    /// Candidate indices by first byte.
    private let byFirstByte: [[Int32]]
    private let textBytes: [UInt8]

    init(vocabulary v: TokenizerVocabulary) {
        var list: [Candidate] = []
        for i in 0..<v.count {
            let a = v.attributes[i]
            guard !a.isDisjoint(with: [.control, .userDefined, .unknown]) else { continue }
            let r = v.textRange(i)
            guard !r.isEmpty else { continue }
            list.append(Candidate(id: Int32(i), range: r,
                                  alwaysSplit: a.isDisjoint(with: [.control, .unknown]),
                                  leftStrip: a.contains(.leftStrip), rightStrip: a.contains(.rightStrip)))
        }
        list.sort { $0.range.count != $1.range.count ? $0.range.count > $1.range.count : $0.id < $1.id }
        var buckets = [[Int32]](repeating: [], count: 256)
        for (k, c) in list.enumerated() { buckets[Int(v.textBytes[c.range.lowerBound])].append(Int32(k)) }
        candidates = list
        byFirstByte = buckets
        textBytes = v.textBytes
    }

    /// Whether any special token could be split out of text with these settings.
    func isEmpty(parseSpecial: Bool) -> Bool {
        parseSpecial ? candidates.isEmpty : !candidates.contains { $0.alwaysSplit }
    }

    /// Partitions `bytes`. When `parseSpecial` is false only user-defined tokens are split out, so
    /// plain text can never yield a control token.
    func partition(_ bytes: UnsafeBufferPointer<UInt8>, parseSpecial: Bool) -> [Fragment] {
        let n = bytes.count
        if n == 0 { return [] }
        if isEmpty(parseSpecial: parseSpecial) { return [.text(0..<n)] }
        // All occurrences, as (candidate order, position).
        var found: [(order: Int32, at: Int32)] = []
        textBytes.withUnsafeBufferPointer { tb in
            for p in 0..<n {
                for k in byFirstByte[Int(bytes[p])] {
                    let c = candidates[Int(k)]
                    guard parseSpecial || c.alwaysSplit, c.range.count <= n - p else { continue }
                    if memcmpBytes(tb.baseAddress! + c.range.lowerBound, bytes.baseAddress! + p, c.range.count) {
                        found.append((k, Int32(p)))
                    }
                }
            }
        }
        if found.isEmpty { return [.text(0..<n)] }
        found.sort { $0.order != $1.order ? $0.order < $1.order : $0.at < $1.at }

        // 0 = raw text, 1 = taken by a token or stripped.
        var taken = [UInt8](repeating: 0, count: n)
        var accepted: [Int32: Int32] = [:]  // position → candidate index
        for (k, at) in found {
            let c = candidates[Int(k)]
            let start = Int(at), end = start + c.range.count
            var free = true
            for q in start..<end where taken[q] != 0 { free = false; break }
            guard free else { continue }
            for q in start..<end { taken[q] = 1 }
            accepted[at] = k
            if c.leftStrip {
                var q = start - 1
                while q >= 0 && taken[q] == 0 && isCSpace(bytes[q]) { taken[q] = 1; q -= 1 }
            }
            if c.rightStrip {
                var q = end
                while q < n && taken[q] == 0 && isCSpace(bytes[q]) { taken[q] = 1; q += 1 }
            }
        }

        var out: [Fragment] = []
        var p = 0
        while p < n {
            if let k = accepted[Int32(p)] {
                let c = candidates[Int(k)]
                out.append(.token(c.id))
                p += c.range.count
            } else if taken[p] != 0 {
                p += 1
            } else {
                let start = p
                while p < n && taken[p] == 0 { p += 1 }
                out.append(.text(start..<p))
            }
        }
        return out
    }

    /// C's `isspace` in the "C" locale, which llama.cpp uses for `lstrip`/`rstrip`.
    @inline(__always)
    private func isCSpace(_ b: UInt8) -> Bool { b == 0x20 || (0x09...0x0D).contains(b) }
}
