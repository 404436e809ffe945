extension GGUFFile {
    /// A 64-bit fingerprint of the file's content, for caches that outlive the process (a
    /// persistent prompt cache keys its files by it): the size, the first mebibyte (header,
    /// metadata and tensor directory) and 64 samples of 4 KiB spread evenly over the rest.
    ///
    /// Hashing every byte of a multi-gigabyte file at every start would cost seconds; the
    /// samples make two different models (or two quantisations of one) differ with certainty
    /// in practice, and a file edited in place at unsampled bytes only (not something model
    /// files undergo) is the one case it does not see. A path, size or modification time would
    /// not do: a copied or re-downloaded file keeps its content and changes those.
    public var contentFingerprint: UInt64 {
        let head = min(fileSize, 1 << 20)
        var h = ContentHash.hash(UnsafeRawBufferPointer(start: mapping, count: head), seed: UInt64(fileSize))
        let rest = fileSize - head
        let sample = 4096, samples = 64
        guard rest > sample * samples else {
            return ContentHash.hash(UnsafeRawBufferPointer(start: mapping + head, count: rest), seed: h)
        }
        let stride = (rest - sample) / (samples - 1)
        for i in 0..<samples {
            h = ContentHash.hash(UnsafeRawBufferPointer(start: mapping + head + i * stride, count: sample), seed: h)
        }
        return h
    }
}
