#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import LoomSupport

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
    /// All ordinary tokens.
    let trie: TokenTrie
    /// Only the tokens containing `"`: the ones that can leave a JSON string, checked in context
    /// while everything else inside a string comes from a context-free cached mask.
    let quoteTrie: TokenTrie
    /// Tokens made only of number bytes (`0-9 . e E + -`) and all the others: where a JSON number
    /// is being read, the former's validity depends on the number alone (see `NumberSlice`).
    let numberTrie: TokenTrie
    let nonNumberTrie: TokenTrie
    /// Masks of plain JSON-string states, shared by every grammar over this vocabulary.
    let sharedStringMasks = SharedMaskStore()
    /// Longest token in bytes (depth of the trie).
    var maxTokenLength: Int { trie.maxDepth }

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
        trie = TokenTrie(tokens: tokens, ids: ids)
        quoteTrie = TokenTrie(tokens: tokens, ids: ids.filter { tokens[$0].contains(0x22) })
        let numeric = ids.filter { GrammarAutomaton.isNumberToken(tokens[$0]) }
        numberTrie = TokenTrie(tokens: tokens, ids: numeric)
        nonNumberTrie = TokenTrie(tokens: tokens, ids: ids.filter { !GrammarAutomaton.isNumberToken(tokens[$0]) })
    }

    deinit {
        tokenOffsets.deallocate()
        tokenBytes.deallocate()
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

/// A thread-safe map from a context-free state key to its mask (content strings without
/// patterns look the same in every schema, so their masks are computed once per vocabulary).
final class SharedMaskStore: Sendable {
    private let masks = Locked<[[Int32]: [UInt64]]>([:])
    static let maxEntries = 4096

    init() {}

    func copy(_ key: [Int32], into out: UnsafeMutablePointer<UInt64>) -> Bool {
        masks.withLock { masks in
            guard let m = masks[key] else { return false }
            m.withUnsafeBufferPointer { out.update(from: $0.baseAddress!, count: $0.count) }
            return true
        }
    }

    func store(_ key: [Int32], _ mask: UnsafeMutablePointer<UInt64>, words: Int) {
        masks.withLock { masks in
            if masks.count < SharedMaskStore.maxEntries {
                masks[key] = Array(UnsafeBufferPointer(start: mask, count: words))
            }
        }
    }
}

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
    }

    deinit {
        byte.deallocate(); depth.deallocate(); skip.deallocate()
        tokStart.deallocate(); tokEnd.deallocate(); tokens.deallocate()
    }
}
