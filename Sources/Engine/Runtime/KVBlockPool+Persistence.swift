/// Moving whole blocks between the pool and a `PromptCacheStore`: a block's keys and values
/// leave as one byte image, and an image read back becomes a cached block exactly as if its
/// tokens had been evaluated here (indexed by the same prefix hash, found by `lookup`).
extension KVBlockPool {
    /// Copies the keys and values of full `block` into `image` (`bytesPerBlock`).
    func copyBlock(_ block: Int32, into image: UnsafeMutableRawBufferPointer) {
        storage.copyRows(from: Int(block) * blockSize, count: blockSize, into: image)
    }

    /// Puts a block image computed after the prefix hashed `parent` for `tokens` (a full block)
    /// into a block of the pool and indexes it; the block is held by the caller (release it to
    /// leave it cached). Nil when every block is held.
    func adopt(_ image: UnsafeRawBufferPointer, parent: UInt64, tokens: UnsafeBufferPointer<Int32>) -> (block: Int32, chain: UInt64)? {
        precondition(tokens.count == blockSize)
        guard let block = allocate() else { return nil }
        storage.copyRows(to: Int(block) * blockSize, count: blockSize, from: image)
        guard let chain = record(block, at: 0, parent: parent, tokens: tokens) else {
            preconditionFailure("a full block's record yields its prefix hash")
        }
        return (block, chain)
    }
}
