/// The tokens each large trie subtree takes inside an isolated string frame, remembered by walk
/// state so that the masks of different pattern states share them.
///
/// A pattern that counts (`(\S+\s+){0,49}`, `\d{1,15}`) or a format with many positions (URIs,
/// e-mail addresses) reaches a new DFA state almost every token, and each new state used to cost a
/// walk of the whole trie (over 270,000 nodes on a 128k vocabulary: milliseconds). But what a
/// subtree takes depends only on the walk state at its root, with each pattern state needed only
/// up to the subtree's height (`DFAHorizonClasses`): states that differ ten words ahead agree on a
/// subtree whose longest token is twenty bytes. Entries are bit sets over the subtree's run of
/// `TokenTrie.tokens`, keyed by the frame's shape, the node and the state with pattern states
/// replaced by their classes; the memo stops growing at `budgetWords`.
final class StringSubtreeMemo {
    /// What a walk's behaviour depends on besides its state: the constraining patterns and bounds.
    struct Shape: Hashable {
        var dfas: SIMD4<Int32>
        var dfaCount: Int
        var maxLength: Int32
        var tracksValue: Bool
    }

    /// A subtree's root node and the walk state after its byte, pattern states as horizon classes.
    struct Key: Hashable {
        var shape: Int32
        var node: Int32
        var phase: Int32, need: Int32, lo: Int32, hi: Int32
        var hexCount: Int32, hex: Int32, high: Int32
        /// Characters `maxLength` still allows, or -1 when more than the subtree can hold.
        var remaining: Int32
        var classes: SIMD4<Int32>
    }

    /// Subtrees at most this many bytes deep below their root are remembered (deeper ones are
    /// walked node by node down to such subtrees): a shallow horizon is what makes classes coarse.
    static let maxHeight: Int32 = 24
    /// Subtrees with fewer tokens are walked directly: a lookup would cost about as much.
    static let minTokens = 48
    /// Bytes a walk may look past a token's end: a backslash asks whether some whole character
    /// (up to four UTF-8 bytes) keeps the patterns live.
    static let lookahead = 4
    /// Upper bound on the bit words held (16 MiB).
    static let budgetWords = 2 << 20

    /// Per shape: walks so far, and subtree lookups and hits over them.
    private struct Record {
        var walks = 0, lookups = 0, hits = 0
    }

    private var shapes: [Shape: Int32] = [:]
    private var records: [Record] = []
    /// Lookups and hits over every shape (tests read them to see the memo at work).
    private(set) var lookups = 0, hits = 0
    private var entries: [Key: Int] = [:]
    /// Entries' bits, `budgetWords` reserved on first use (pages are committed as they fill).
    private(set) var bits: UnsafeMutablePointer<UInt64>?
    private var bitCount = 0
    private var classes: [Int32: DFAHorizonClasses] = [:]

    /// The shape's id, counting a walk of it.
    func shape(_ s: Shape) -> Int32 {
        if let id = shapes[s] {
            records[Int(id)].walks += 1
            return id
        }
        let id = Int32(shapes.count)
        shapes[s] = id
        records.append(Record(walks: 1))
        return id
    }

    /// Whether a walk of `shape` should go through the memo. A shape's first walk does not: most
    /// strings of a schema are walked once (a key, a short value), and recording would only add
    /// to that cold mask. Later walks do, until the first few of them (which record, and so miss)
    /// are followed by too few hits: the shape's pattern states then stay apart at every horizon
    /// the trie asks for, and recording would only slow its walks.
    func worthUsing(_ shape: Int32) -> Bool {
        let r = records[Int(shape)]
        if r.walks < 2 { return false }
        return r.walks < 6 || r.hits * 8 >= r.lookups
    }

    /// Counts a lookup of `shape` and whether it hit.
    @inline(__always) func count(_ shape: Int32, hit: Bool) {
        records[Int(shape)].lookups += 1
        lookups += 1
        if hit {
            records[Int(shape)].hits += 1
            hits += 1
        }
    }

    /// Horizon classes of pattern `d`, built on first use from its transition table.
    func horizonClasses(_ d: Int32, table: UnsafePointer<Int32>, stateCount: Int) -> DFAHorizonClasses {
        if let c = classes[d] { return c }
        let c = DFAHorizonClasses(table: table, stateCount: stateCount)
        classes[d] = c
        return c
    }

    /// Where the entry's bits start in `bits`, nil when it was never stored.
    @inline(__always) func lookup(_ key: Key) -> Int? { entries[key] }

    /// Whether `words` more words fit the budget.
    func hasRoom(_ words: Int) -> Bool { bitCount + words <= StringSubtreeMemo.budgetWords }

    /// Stores an entry's bits (the caller checked `hasRoom`).
    func store(_ key: Key, _ source: UnsafePointer<UInt64>, words: Int) {
        if bits == nil { bits = .allocate(capacity: StringSubtreeMemo.budgetWords) }
        entries[key] = bitCount
        (bits! + bitCount).update(from: source, count: words)
        bitCount += words
    }

    deinit { bits?.deallocate() }

    /// Approximate bytes held.
    var retainedBytes: Int {
        var b = bitCount * 8 + entries.count * 64 + shapes.count * 48
        for (_, c) in classes { b += c.retainedBytes }
        return b
    }
}

