/// The scheduler's side of the persistent prompt cache: a prompt's full blocks go to the store
/// as they are evaluated, and a waiting prompt's next blocks are loaded from it before
/// admission looks for its prefix, so restored blocks are shared exactly like blocks evaluated
/// here (and count as cached prompt tokens).
extension SchedulerCore {
    /// Loads from the store the blocks of `s`'s prompt that follow what the pool already holds,
    /// as cached blocks of the pool, stopping at the first block with no good file or when the
    /// pool could no longer hold the rest of `s`.
    func restorePersisted(_ s: ScheduledSequence) {
        guard let cache = promptCache, s.reusesPrefix, let scratch = promptCacheScratch else { return }
        let bs = policy.blockSize
        let limit = s.tokens.count - 1
        s.tokens.withUnsafeBufferPointer { t in
            let found = pool.lookup(t, limit: limit)
            guard (found.shared.count + 1) * bs <= limit else { return }
            // Held while restoring, so making room for the next block never evicts a block of
            // this very prefix.
            var held = found.shared
            for b in held { pool.retain(b) }
            defer { for b in held { pool.release(b) } }
            let needed = (min(s.tokens.count + 1, transformer.contextLength) + bs - 1) / bs
            var parent = found.hash
            var at = found.shared.count * bs
            while at + bs <= limit, pool.availableBlocks >= needed - held.count {
                let chunk = UnsafeBufferPointer(rebasing: t[at..<at + bs])
                let chain = KVBlockPool.hash(parent, chunk)
                guard cache.restore(parent: parent, chain: chain, tokens: chunk, into: scratch),
                      let adopted = pool.adopt(UnsafeRawBufferPointer(scratch), parent: parent, tokens: chunk)
                else { break }
                held.append(adopted.block)
                parent = chain
                at += bs
            }
        }
    }

    /// Queues full prompt block `block` of `s` (ending at position `end`, after the prefix
    /// hashed `parent`, whole prefix hashed `chain`) for writing, unless the store has it.
    func persist(_ s: ScheduledSequence, block: Int32, end: Int, parent: UInt64, chain: UInt64,
                 tokens: UnsafeBufferPointer<Int32>) {
        guard let cache = promptCache, s.reusesPrefix, end <= s.promptLength, cache.wants(chain: chain) else { return }
        cache.persist(parent: parent, chain: chain, tokens: UnsafeBufferPointer(rebasing: tokens[end - policy.blockSize..<end])) {
            pool.copyBlock(block, into: $0)
        }
    }
}
