/// Masks computed per configuration, so a state reached again costs one copy.
///
/// Stored in fixed blocks that never move: doubling one buffer would copy up to hundreds of
/// megabytes in the middle of a mask.
final class MaskCache {
    let words: Int
    // Unchecked exclusivity, as in `GrammarAutomaton`: one matcher family's thread, no
    // overlapping accesses; the checks cost more than the lookups they guard.
    @exclusivity(unchecked) private var slot: [Int32] = []
    @exclusivity(unchecked) private var blocks: [UnsafeMutablePointer<UInt64>] = []
    @exclusivity(unchecked) private var used = 0
    private let perBlock: Int
    /// Memory bound for cached masks.
    static let maxBytes = 256 << 20

    init(words: Int) {
        self.words = words
        perBlock = max(1, (256 << 10) / (words * 8))
    }

    deinit { for b in blocks { b.deallocate() } }

    /// Bytes held by the cached masks and their index.
    var retainedBytes: Int { blocks.count * perBlock * words * 8 + slot.count * MemoryLayout<Int32>.stride }

    func lookup(_ c: Int32) -> UnsafeMutablePointer<UInt64>? {
        let i = Int(c)
        guard i >= 0, i < slot.count else { return nil }
        let k = Int(slot[i])
        guard k >= 0 else { return nil }
        return blocks[k / perBlock] + (k % perBlock) * words
    }

    func store(_ c: Int32, _ mask: UnsafeMutablePointer<UInt64>) {
        let i = Int(c)
        if i < slot.count, slot[i] >= 0 { return }
        if used == blocks.count * perBlock {
            guard (used + perBlock) * words * 8 <= MaskCache.maxBytes else { return }
            blocks.append(.allocate(capacity: perBlock * words))
        }
        if i >= slot.count { slot.append(contentsOf: repeatElement(-1, count: i + 1 - slot.count + 64)) }
        (blocks[used / perBlock] + (used % perBlock) * words).initialize(from: mask, count: words)
        slot[i] = Int32(used)
        used += 1
    }
}
