/// A model's vocabulary as the grammar sees it: token id → byte string, plus end-of-generation ids.
///
/// Built once per vocabulary and shared by every grammar and matcher. Tokens are sorted into a
/// byte trie laid out flat in depth-first order, where each node knows where its subtree ends, so
/// a mask walk can skip every token below a rejected prefix in O(1) (llguidance's toktrie layout).
///
/// Tokens with empty byte strings (control tokens) are never allowed by a mask; end-of-generation
/// ids are allowed exactly when the grammar is complete.
public final class Vocabulary: @unchecked Sendable {
    // @unchecked: every buffer below is written only in `init` and never mutated afterwards.

    /// Number of token ids (the logit width the masks cover).
    public let size: Int
    /// Token ids that end generation.
    public let endOfGeneration: [Int]
    /// Number of `UInt64` words in a mask.
    public var maskWordCount: Int { (size + 63) / 64 }

    let tokenOffsets: UnsafeMutablePointer<Int32>  // size + 1
    let tokenBytes: UnsafeMutablePointer<UInt8>
    /// Trie nodes in DFS order.
    let nodeCount: Int
    let nodeByte: UnsafeMutablePointer<UInt8>
    let nodeDepth: UnsafeMutablePointer<Int32>   // 1 for children of the root
    let nodeSkip: UnsafeMutablePointer<Int32>    // index just past the subtree
    let nodeTokStart: UnsafeMutablePointer<Int32>
    let nodeTokEnd: UnsafeMutablePointer<Int32>
    let trieTokens: UnsafeMutablePointer<Int32>
    /// Longest token in bytes (depth of the trie).
    let maxTokenLength: Int

    /// Builds the vocabulary.
    /// - Parameters:
    ///   - tokens: the byte string of every token id (empty for control tokens that never appear in text).
    ///   - endOfGeneration: ids that end generation (allowed exactly when the grammar is complete).
    public init(tokens: [[UInt8]], endOfGeneration: [Int]) {
        size = tokens.count
        self.endOfGeneration = endOfGeneration.filter { $0 >= 0 && $0 < tokens.count }
        let total = tokens.reduce(0) { $0 + $1.count }
        tokenOffsets = .allocate(capacity: size + 1)
        tokenBytes = .allocate(capacity: max(total, 1))
        var off = 0
        for (i, t) in tokens.enumerated() {
            tokenOffsets[i] = Int32(off)
            for b in t { tokenBytes[off] = b; off += 1 }
        }
        tokenOffsets[size] = Int32(off)

        let eog = Set(self.endOfGeneration)
        let ids = (0..<size).filter { !tokens[$0].isEmpty && !eog.contains($0) }
            .sorted { tokens[$0].lexicographicallyPrecedes(tokens[$1]) }
        var bytes: [UInt8] = [], depth: [Int32] = [], skip: [Int32] = []
        var tokStart: [Int32] = [], tokEnd: [Int32] = [], list: [Int32] = []
        var open: [Int] = []  // node index per depth-1 on the current path
        var prev: [UInt8] = []
        var maxLen = 0
        for id in ids {
            let t = tokens[id]
            maxLen = max(maxLen, t.count)
            var common = 0
            while common < min(t.count, prev.count), t[common] == prev[common] { common += 1 }
            if common == t.count && common == prev.count {
                // Same bytes as the previous token: share its node.
                list.append(Int32(id))
                tokEnd[open[t.count - 1]] += 1
                continue
            }
            while open.count > common {
                skip[open.removeLast()] = Int32(bytes.count)
            }
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
        // Tokens sharing a node must be contiguous in `list`: they are, because equal byte
        // strings sort next to each other and only the last created node receives them.
        nodeCount = bytes.count
        maxTokenLength = maxLen
        func copy<T>(_ a: [T]) -> UnsafeMutablePointer<T> {
            let p = UnsafeMutablePointer<T>.allocate(capacity: max(a.count, 1))
            for (i, x) in a.enumerated() { (p + i).initialize(to: x) }
            return p
        }
        nodeByte = copy(bytes)
        nodeDepth = copy(depth)
        nodeSkip = copy(skip)
        nodeTokStart = copy(tokStart)
        nodeTokEnd = copy(tokEnd)
        trieTokens = copy(list)
    }

    deinit {
        tokenOffsets.deallocate(); tokenBytes.deallocate()
        nodeByte.deallocate(); nodeDepth.deallocate(); nodeSkip.deallocate()
        nodeTokStart.deallocate(); nodeTokEnd.deallocate(); trieTokens.deallocate()
    }

    /// The byte string of a token.
    public func bytes(of token: Int) -> [UInt8] {
        guard token >= 0 && token < size else { return [] }
        let a = Int(tokenOffsets[token]), b = Int(tokenOffsets[token + 1])
        return Array(UnsafeBufferPointer(start: tokenBytes + a, count: b - a))
    }

    /// Whether `token` ends generation.
    public func isEndOfGeneration(_ token: Int) -> Bool { endOfGeneration.contains(token) }
}
