/// A model's vocabulary as the grammar sees it: token id → byte string, plus end-of-generation ids.
///
/// Built once per vocabulary and shared by every grammar and matcher. Tokens are sorted into a
/// byte trie laid out flat in depth-first order, where each node knows where its subtree ends, so
/// a mask walk can skip every token below a rejected prefix in O(1) (llguidance's toktrie layout).
///
/// Tokens with empty byte strings (control tokens) are never allowed by a mask; end-of-generation
/// ids are allowed exactly when the grammar is complete.
public final class GrammarVocabulary: @unchecked Sendable {
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
    /// Per remaining `maxLength` budget, the tokens that fit it inside a string.
    let stringBudgets: StringBudgetMasks
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
        stringBudgets = StringBudgetMasks(tokens: tokens)
        precomputePlainStrings()
    }

    /// Walks the trie for the plain string between characters — the mask nearly every schema asks
    /// for first, inside its first string — once per vocabulary, so that no grammar's first string
    /// pays a whole-trie walk (milliseconds on a 128k vocabulary) in the middle of generation.
    private func precomputePlainStrings() {
        let words = maskWordCount
        let out = UnsafeMutablePointer<UInt64>.allocate(capacity: words)
        let states = UnsafeMutablePointer<StringWalkState>.allocate(capacity: maxTokenLength + 2)
        defer {
            out.deallocate()
            states.deallocate()
        }
        for tracksValue in [false, true] {
            var spec = StringWalkSpec()
            spec.tracksValue = tracksValue
            states.initialize(repeating: .content, count: maxTokenLength + 2)
            out.initialize(repeating: 0, count: words)
            GrammarMatcher.walkString(spec, NoPatterns(), from: 0, to: trie.nodeCount, out, trie, states, record: nil, base: 0)
            let key = GrammarAutomaton.plainStringKey(StringWalkState.content.placeSlots, budget: -1, tracksValue: tracksValue)
            sharedStringMasks.store(key, out, words: words)
        }
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

/// The grammar's token table under its former name.
@available(*, deprecated, renamed: "GrammarVocabulary")
public typealias Vocabulary = GrammarVocabulary
