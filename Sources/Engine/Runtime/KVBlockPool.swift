/// The keys and values of every sequence a scheduler runs, in one pool of fixed-size blocks.
///
/// Storage is one `KVCache` whose positions are the pool's rows: block `b` holds rows
/// `b * blockSize ..< (b + 1) * blockSize` of every layer, and a sequence finds its logical
/// position `p` at row `table[p / blockSize] * blockSize + p % blockSize` (`BlockTable`). The
/// attention kernel reads that layout directly (`loom_attention_desc.block_table`), with results
/// bit-identical to a contiguous cache.
///
/// Blocks are reference-counted. A block whose last owner lets go keeps its keys and values and
/// its tokens as long as nothing needs the space (least recently used first), so the next
/// prompt that starts with the same tokens — a shared system prompt, the earlier turns of a
/// conversation — reuses it instead of recomputing:
/// - a *full* block is found by the hash of every token up to its end (chained block by block,
///   then checked token by token), and shared read-only by every sequence that matches it;
/// - where a prompt diverges inside a block, the matching positions of a cached block with the
///   same predecessor are copied into a fresh block (copy-on-write at the first divergent
///   block), so sequences never write into a block they share.
///
/// Only the scheduler's thread touches a pool; bookkeeping happens when a sequence is admitted,
/// crosses a block boundary or ends, never per token.
public final class KVBlockPool {
    /// Counters since the pool was made.
    public struct Statistics: Sendable, Equatable {
        /// Blocks in the pool.
        public var blockCount = 0
        /// Blocks some sequence holds now.
        public var blocksInUse = 0
        /// Blocks no sequence holds that keep reusable keys and values.
        public var cachedBlocks = 0
        /// Prompt lookups that reused at least one position.
        public var hits = 0
        /// Prompt lookups that reused nothing.
        public var misses = 0
        /// Positions reused by hits (shared blocks and copied positions).
        public var reusedTokenCount = 0
        /// Positions copied into a fresh block where a prompt diverged inside a cached block.
        public var copiedTokenCount = 0
        /// Cached blocks given up to make room.
        public var evictions = 0
        /// Blocks handed out (fresh or evicted), over the pool's life.
        public var allocations = 0

        /// All counters zero.
        public init() {}
    }

    /// Positions per block.
    public let blockSize: Int
    /// Blocks in the pool.
    public let blockCount: Int
    /// Element type of keys and values.
    public var type: KVCacheType { storage.type }
    /// Bytes of keys and values one block holds across every layer.
    public var bytesPerBlock: Int { storage.byteCount(positions: blockSize) }
    /// Bytes of keys and values the whole pool can hold.
    public var byteCount: Int { bytesPerBlock * blockCount }

    /// The pool's rows (`blockCount * blockSize` positions).
    let storage: KVCache

    private var stats = Statistics()
    private var refCount: [Int32]
    /// Positions of the block whose tokens are recorded (its content, valid while it is indexed).
    private var filled: [Int32]
    /// Tokens of every block, `blockSize` each.
    private let tokens: UnsafeMutablePointer<Int32>
    /// Hash of every token before the block (its place in a prefix).
    private var parentHash: [UInt64]
    /// Hash of every token through the end of the block, for blocks in `fullIndex`.
    private var chainHash: [UInt64]
    private var indexed: [Bool]
    /// Blocks never used or given up, ready to hand out.
    private var free: [Int32]
    /// Least recently released first: cached blocks (no owner, content kept).
    private var lruPrev: [Int32], lruNext: [Int32]
    private var lruHead: Int32 = -1, lruTail: Int32 = -1
    /// Blocks on the LRU list and blocks some sequence holds, kept as they change so the
    /// counters the scheduler reads every step cost nothing to read.
    private var cachedCount = 0, inUseCount = 0
    /// Full blocks by the hash of their whole prefix (capacity reserved for every block, so
    /// inserting never allocates).
    private var fullIndex: [UInt64: Int32] = [:]
    /// The first of the blocks with recorded content placed after a prefix, by that prefix's
    /// hash; the rest follow through `nextSibling` (an intrusive list: indexing allocates nothing).
    private var firstChild: [UInt64: Int32] = [:]
    private var nextSibling: [Int32], prevSibling: [Int32]

    /// The hash of the empty prefix.
    static let rootHash: UInt64 = 0xcbf2_9ce4_8422_2325

    /// A pool of `blockCount` blocks of `blockSize` positions for a model of `layers` layers and
    /// `kvLength` elements per position.
    public init(type: KVCacheType, layers: Int, kvLength: Int, blockSize: Int, blockCount: Int) throws(EngineError) {
        guard blockSize > 0, blockCount > 0 else {
            throw .invalidConfiguration("a KV pool needs positive block size and count (\(blockSize), \(blockCount))")
        }
        let (rows, overflow) = blockSize.multipliedReportingOverflow(by: blockCount)
        guard !overflow, rows <= Int(Int32.max) else { throw .invalidConfiguration("KV pool of \(blockCount) blocks is too large") }
        storage = try KVCache(type: type, layers: layers, kvLength: kvLength, capacity: rows)
        self.blockSize = blockSize
        self.blockCount = blockCount
        refCount = Array(repeating: 0, count: blockCount)
        filled = Array(repeating: 0, count: blockCount)
        tokens = .allocate(capacity: rows)
        tokens.initialize(repeating: -1, count: rows)
        parentHash = Array(repeating: 0, count: blockCount)
        chainHash = Array(repeating: 0, count: blockCount)
        indexed = Array(repeating: false, count: blockCount)
        free = (0..<Int32(blockCount)).reversed()
        lruPrev = Array(repeating: -1, count: blockCount)
        lruNext = Array(repeating: -1, count: blockCount)
        nextSibling = Array(repeating: -1, count: blockCount)
        prevSibling = Array(repeating: -1, count: blockCount)
        fullIndex.reserveCapacity(blockCount)
        firstChild.reserveCapacity(blockCount)
        stats.blockCount = blockCount
    }

    deinit { tokens.deallocate() }

    /// Blocks of `blockSize` positions that fit in `bytes` for this geometry (at least one).
    public static func blockCount(budgetBytes bytes: Int, type: KVCacheType, layers: Int, kvLength: Int,
                                  blockSize: Int) -> Int {
        let perBlock = 2 * layers * type.rowBytes(elements: kvLength) * blockSize
        return max(1, bytes / max(perBlock, 1))
    }

    /// Counters since creation.
    public var statistics: Statistics {
        var s = stats
        s.blocksInUse = inUseCount
        s.cachedBlocks = cachedCount
        return s
    }

    /// Blocks that could be handed out now (free or cached).
    public var availableBlocks: Int { free.count + cachedCount }

    // MARK: - Ownership

    /// A block for a sequence to write: a never-used one, else the least recently released cached
    /// one (forgotten). Nil when every block is held.
    func allocate() -> Int32? {
        let block: Int32
        if let b = free.popLast() {
            block = b
        } else if lruHead >= 0 {
            block = lruHead
            unlinkLRU(block)
            unindex(block)
            stats.evictions += 1
        } else {
            return nil
        }
        refCount[Int(block)] = 1
        inUseCount += 1
        filled[Int(block)] = 0
        stats.allocations += 1
        return block
    }

    /// One more owner of `block` (a sequence sharing a cached or another sequence's full block).
    func retain(_ block: Int32) {
        if refCount[Int(block)] == 0 {
            unlinkLRU(block)
            inUseCount += 1
        }
        refCount[Int(block)] += 1
    }

    /// One owner fewer; a block nobody holds keeps its content (cached) if it is indexed.
    func release(_ block: Int32) {
        let b = Int(block)
        precondition(refCount[b] > 0, "KV block \(block) released more often than held")
        refCount[b] -= 1
        guard refCount[b] == 0 else { return }
        inUseCount -= 1
        if indexed[b] {
            linkLRU(block)
        } else {
            filled[b] = 0
            free.append(block)
        }
    }

    /// How many sequences hold `block`.
    func owners(of block: Int32) -> Int { Int(refCount[Int(block)]) }

    // MARK: - Content

    /// The hash of `parent` followed by `tokens` (FNV-1a over the token ids' bytes, then a final
    /// mix): blocks are found by it and then compared token by token, so a collision costs a
    /// lookup, never a wrong reuse.
    static func hash(_ parent: UInt64, _ tokens: UnsafeBufferPointer<Int32>) -> UInt64 {
        var h = parent ^ 0x9e37_79b9_7f4a_7c15
        for t in tokens {
            var v = UInt32(bitPattern: t)
            for _ in 0..<4 {
                h = (h ^ UInt64(v & 0xff)) &* 0x0000_0100_0000_01b3  // FNV-1a prime: wrapping by definition
                v >>= 8
            }
        }
        h ^= h >> 33
        h = h &* 0xff51_afd7_ed55_8ccd  // murmur3's finaliser: wrapping by definition
        h ^= h >> 33
        return h
    }

    /// Records that `block`, placed after the prefix hashed `parent`, holds `tokens` at its first
    /// positions (appending to what it held). When the block becomes full it is indexed for
    /// sharing, and `chain` is the prefix hash through it; otherwise `chain` is nil.
    @discardableResult
    func record(_ block: Int32, at start: Int, parent: UInt64, tokens new: UnsafeBufferPointer<Int32>) -> UInt64? {
        let b = Int(block)
        precondition(start == Int(filled[b]) && start + new.count <= blockSize, "KV block written out of order")
        let base = tokens + b * blockSize
        (base + start).update(from: new.baseAddress!, count: new.count)
        if start == 0 {
            parentHash[b] = parent
            let head = firstChild[parent] ?? -1
            nextSibling[b] = head
            prevSibling[b] = -1
            if head >= 0 { prevSibling[Int(head)] = block }
            firstChild[parent] = block
            indexed[b] = true
        }
        filled[b] = Int32(start + new.count)
        guard start + new.count == blockSize else { return nil }
        let chain = Self.hash(parent, UnsafeBufferPointer(start: base, count: blockSize))
        chainHash[b] = chain
        if fullIndex[chain] == nil { fullIndex[chain] = block }
        return chain
    }

    /// Forgets `block`'s positions from `count` on (a sequence rolled back into it). The caller
    /// holds the block alone.
    func truncate(_ block: Int32, to count: Int) {
        let b = Int(block)
        guard Int(filled[b]) > count else { return }
        if Int(filled[b]) == blockSize, fullIndex[chainHash[b]] == block { fullIndex[chainHash[b]] = nil }
        if count == 0 { unindex(block) } else { filled[b] = Int32(count) }
    }

    /// The longest reusable prefix of `prompt[0..<limit]`: full blocks to share (in order) and,
    /// where the prompt diverges inside a block, a cached block and how many of its leading
    /// positions match (to copy). `hash` is the prefix hash after the shared blocks.
    func lookup(_ prompt: UnsafeBufferPointer<Int32>, limit: Int) -> (shared: [Int32], hash: UInt64, partial: (block: Int32, count: Int)?) {
        var shared: [Int32] = []
        var h = Self.rootHash
        var at = 0
        while at + blockSize <= limit {
            let chunk = UnsafeBufferPointer(rebasing: prompt[at..<at + blockSize])
            let next = Self.hash(h, chunk)
            guard let b = fullBlock(hash: next, parent: h, holding: chunk) else { break }
            shared.append(b)
            h = next
            at += blockSize
        }
        let remaining = min(limit - at, blockSize)
        let best = remaining > 0 ? partialBlock(after: h, matching: UnsafeBufferPointer(rebasing: prompt[at..<at + remaining])) : nil
        return (shared, h, best)
    }

    /// The full block whose prefix hash through it is `hash`, placed after the prefix hashed
    /// `parent` and holding `chunk`; nil when no block holds it (never used, or evicted).
    func fullBlock(hash: UInt64, parent: UInt64, holding chunk: UnsafeBufferPointer<Int32>) -> Int32? {
        guard let b = fullIndex[hash], parentHash[Int(b)] == parent, matches(b, chunk) == blockSize else { return nil }
        return b
    }

    /// The block placed after the prefix hashed `parent` whose recorded tokens match most of
    /// `chunk`'s leading ones, and how many match; nil when none matches any.
    func partialBlock(after parent: UInt64, matching chunk: UnsafeBufferPointer<Int32>) -> (block: Int32, count: Int)? {
        var best: (block: Int32, count: Int)?
        guard var c = firstChild[parent] else { return nil }
        while c >= 0 {
            let n = matches(c, chunk)
            if n > (best?.count ?? 0) { best = (c, n) }
            c = nextSibling[Int(c)]
        }
        return best
    }

    /// Counts a prompt admitted with `reused` positions found by `lookup`.
    func noteLookup(reused: Int) {
        if reused > 0 {
            stats.hits += 1
            stats.reusedTokenCount += reused
        } else {
            stats.misses += 1
        }
    }

    /// Copies the first `count` positions of `source` (every layer) into `destination`.
    func copy(_ source: Int32, into destination: Int32, count: Int) {
        storage.copyRows(from: Int(source) * blockSize, to: Int(destination) * blockSize, count: count)
        stats.copiedTokenCount += count
    }

    /// Leading positions of `block`'s recorded tokens equal to `chunk`'s.
    private func matches(_ block: Int32, _ chunk: UnsafeBufferPointer<Int32>) -> Int {
        let base = tokens + Int(block) * blockSize
        let n = min(Int(filled[Int(block)]), chunk.count)
        var i = 0
        while i < n && base[i] == chunk[i] { i += 1 }
        return i
    }

    private func unindex(_ block: Int32) {
        let b = Int(block)
        guard indexed[b] else { return }
        indexed[b] = false
        if Int(filled[b]) == blockSize, fullIndex[chainHash[b]] == block { fullIndex[chainHash[b]] = nil }
        let p = prevSibling[b], n = nextSibling[b]
        if p >= 0 {
            nextSibling[Int(p)] = n
        } else if n >= 0 {
            firstChild[parentHash[b]] = n
        } else {
            firstChild[parentHash[b]] = nil
        }
        if n >= 0 { prevSibling[Int(n)] = p }
        nextSibling[b] = -1
        prevSibling[b] = -1
        filled[b] = 0
    }

    private func linkLRU(_ block: Int32) {
        let b = Int(block)
        lruPrev[b] = lruTail
        lruNext[b] = -1
        if lruTail >= 0 { lruNext[Int(lruTail)] = block } else { lruHead = block }
        lruTail = block
        cachedCount += 1
    }

    private func unlinkLRU(_ block: Int32) {
        let b = Int(block)
        let p = lruPrev[b], n = lruNext[b]
        if p >= 0 { lruNext[Int(p)] = n } else { lruHead = n }
        if n >= 0 { lruPrev[Int(n)] = p } else { lruTail = p }
        lruPrev[b] = -1
        lruNext[b] = -1
        cachedCount -= 1
    }
}
