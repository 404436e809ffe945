/// A byte trie over a set of tokens, flat in depth-first order; each node knows where its subtree
/// ends, so a walk skips everything below a rejected prefix in O(1).
final class TokenTrie: @unchecked Sendable {
    // @unchecked: written only in `init`.
    let nodeCount: Int
    let byte: UnsafeMutablePointer<UInt8>
    let depth: UnsafeMutablePointer<Int32>   // 1 for children of the root
    let skip: UnsafeMutablePointer<Int32>    // index just past the subtree
    let tokStart: UnsafeMutablePointer<Int32>
    let tokEnd: UnsafeMutablePointer<Int32>
    let tokens: UnsafeMutablePointer<Int32>
    /// Bytes the longest token below each node continues past it (0 at a leaf).
    let height: UnsafeMutablePointer<Int32>
    /// Per node, the `ByteRunClass` bits of every byte below it (not its own): a string walk
    /// whose state loops on all of them takes the whole subtree without visiting it.
    let classesBelow: UnsafeMutablePointer<UInt16>
    /// Entries of `tokens`: a subtree's tokens are the run `tokStart[i] ..< tokStart[skip[i]]`
    /// (or up to this count when the subtree runs to the end).
    let tokenCount: Int
    let maxDepth: Int

    init(tokens all: [[UInt8]], ids unsorted: [Int]) {
        let ids = unsorted.sorted { all[$0].lexicographicallyPrecedes(all[$1]) }
        var bytes: [UInt8] = [], depth: [Int32] = [], skip: [Int32] = []
        var tokStart: [Int32] = [], tokEnd: [Int32] = [], list: [Int32] = []
        var open: [Int] = []  // node index per depth-1 on the current path
        var prev: [UInt8] = []
        var maxLen = 0
        for id in ids {
            let t = all[id]
            maxLen = max(maxLen, t.count)
            var common = 0
            while common < min(t.count, prev.count), t[common] == prev[common] { common += 1 }
            if common == t.count && common == prev.count {
                // Same bytes as the previous token: share its node (its token run stays contiguous).
                list.append(Int32(id))
                tokEnd[open[t.count - 1]] += 1
                continue
            }
            while open.count > common { skip[open.removeLast()] = Int32(bytes.count) }
            for k in common..<t.count {
                open.append(bytes.count)
                bytes.append(t[k])
                depth.append(Int32(k + 1))
                skip.append(0)
                tokStart.append(Int32(list.count))
                tokEnd.append(Int32(list.count))
            }
            list.append(Int32(id))
            tokEnd[bytes.count - 1] += 1
            prev = t
        }
        while let o = open.popLast() { skip[o] = Int32(bytes.count) }
        nodeCount = bytes.count
        maxDepth = maxLen
        tokenCount = list.count
        // Backwards through the depth-first order every subtree is seen before its root:
        // `deepest[d]` folds the deepest node under the depth-d nodes seen since their parent.
        var heights = [Int32](repeating: 0, count: bytes.count)
        var deepest = [Int32](repeating: 0, count: maxLen + 2)
        for i in stride(from: bytes.count - 1, through: 0, by: -1) {
            let d = Int(depth[i])
            let below = max(Int32(d), deepest[d + 1])
            deepest[d + 1] = 0
            deepest[d] = max(deepest[d], below)
            heights[i] = below - Int32(d)
        }
        // The same backward pass folds each node's byte class into its parent's `classesBelow`.
        var below = [UInt16](repeating: 0, count: bytes.count)
        var pending = [UInt16](repeating: 0, count: maxLen + 2)
        for i in stride(from: bytes.count - 1, through: 0, by: -1) {
            let d = Int(depth[i])
            below[i] = pending[d + 1]
            pending[d + 1] = 0
            pending[d] |= below[i] | ByteRunClass.bit(bytes[i])
        }
        func copy<T>(_ a: [T]) -> UnsafeMutablePointer<T> {
            let p = UnsafeMutablePointer<T>.allocate(capacity: max(a.count, 1))
            for (i, x) in a.enumerated() { (p + i).initialize(to: x) }
            return p
        }
        self.byte = copy(bytes)
        self.depth = copy(depth)
        self.skip = copy(skip)
        self.tokStart = copy(tokStart)
        self.tokEnd = copy(tokEnd)
        self.tokens = copy(list)
        self.height = copy(heights)
        self.classesBelow = copy(below)
    }

    /// Sets the bits of node `i`'s own tokens in `mask`; with `record`, also each token's bit at
    /// its `tokens` index − `base` (a subtree's run, as the string walk's memo keeps it).
    @inline(__always) func setTokens(of i: Int, in mask: UnsafeMutablePointer<UInt64>,
                                     record: UnsafeMutablePointer<UInt64>? = nil, base: Int = 0) {
        setTokens(Int(tokStart[i])..<Int(tokEnd[i]), in: mask, record: record, base: base)
    }

    /// Sets the bits of the tokens at `run` of `tokens` (and, with `record`, their index bits).
    @inline(__always) private func setTokens(_ run: Range<Int>, in mask: UnsafeMutablePointer<UInt64>,
                                             record: UnsafeMutablePointer<UInt64>?, base: Int) {
        for k in run {
            let t = Int(tokens[k])
            mask[t >> 6] |= 1 << UInt64(t & 63)
            if let record { record[(k - base) >> 6] |= 1 << UInt64((k - base) & 63) }
        }
    }

    /// Sets the bits of every token that is a proper prefix of `bytes` (the tokens a literal takes
    /// without finishing): one path down the trie, children found by hopping over siblings.
    func setProperPrefixTokens(of bytes: ArraySlice<UInt8>, in mask: UnsafeMutablePointer<UInt64>) {
        var i = 0, end = nodeCount
        for b in bytes.dropLast() {
            while i < end, byte[i] != b { i = Int(skip[i]) }
            guard i < end else { return }
            setTokens(of: i, in: mask)
            end = Int(skip[i])
            i += 1
        }
    }

    /// Sets the bits of every token below node `i` (not its own), and with `record` their bits at
    /// their `tokens` index − `base`.
    @inline(__always) func setTokensBelow(_ i: Int, in mask: UnsafeMutablePointer<UInt64>,
                                          record: UnsafeMutablePointer<UInt64>? = nil, base: Int = 0) {
        setTokens(Int(tokEnd[i])..<subtreeTokenEnd(i), in: mask, record: record, base: base)
    }

    /// Index into `tokens` just past the subtree of node `i`.
    @inline(__always) func subtreeTokenEnd(_ i: Int) -> Int {
        let s = Int(skip[i])
        return s < nodeCount ? Int(tokStart[s]) : tokenCount
    }

    deinit {
        byte.deallocate(); depth.deallocate(); skip.deallocate()
        tokStart.deallocate(); tokEnd.deallocate(); tokens.deallocate(); height.deallocate()
        classesBelow.deallocate()
    }
}
