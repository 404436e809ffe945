#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Keeping the directory within its budget: the least recently used files (by modification
/// time, which a load refreshes) go first, down to nine tenths of the budget so the next scan
/// waits for a tenth's worth of writes.
extension PromptCacheStore {
    /// A temporary file older than this belongs to a writer that died mid-write: removed.
    static let staleTemporarySeconds = 600

    /// Counts the directory's cache files and removes the oldest while they exceed the budget,
    /// under an exclusive lock on `.lock` (shared with other processes using the directory).
    func evict() {
        let lock = open(directory + "/.lock", O_RDWR | O_CREAT | O_CLOEXEC, 0o644)
        if lock >= 0 {
            while flock(lock, LOCK_EX) != 0 && errno == EINTR {}
        }
        defer {
            if lock >= 0 {
                flock(lock, LOCK_UN)
                closeDescriptor(lock)
            }
        }
        var files: [(name: String, size: Int, modified: Int)] = []
        var total = 0
        var now = timespec()
        clock_gettime(CLOCK_REALTIME, &now)
        if let dir = opendir(directory) {
            while let entry = readdir(dir) {
                let name = withUnsafePointer(to: &entry.pointee.d_name) {
                    String(cString: UnsafeRawPointer($0).assumingMemoryBound(to: CChar.self))
                }
                let isFile = name.hasSuffix(PromptCacheFile.fileExtension)
                let isPartial = name.hasSuffix(PromptCacheFile.partialSuffix)
                guard isFile || isPartial else { continue }
                var st = stat()
                guard stat(directory + "/" + name, &st) == 0 else { continue }
                let modified = Int(st.st_mtim.tv_sec)
                if isPartial {
                    if now.tv_sec - modified > Self.staleTemporarySeconds { unlink(directory + "/" + name) }
                    continue
                }
                files.append((name, Int(st.st_size), modified * 1_000_000_000 + Int(st.st_mtim.tv_nsec)))
                total += Int(st.st_size)
            }
            closedir(dir)
        }
        var removed: [String] = []
        if total > budgetBytes {
            let target = budgetBytes / 10 * 9
            for file in files.sorted(by: { $0.modified < $1.modified }) where total > target {
                if unlink(directory + "/" + file.name) == 0 || errno == ENOENT {
                    total -= file.size
                    removed.append(file.name)
                }
            }
        }
        state.withLock { s in
            s.statistics.bytes = total
            s.statistics.evictions += removed.count
            for name in removed { s.known.remove(name) }
        }
    }
}
