#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import LoomSupport

/// A directory of KV blocks that outlives the process: blocks of evaluated prompts are written in
/// the background, and a later process (or this one, after its pool forgot them) loads them
/// instead of evaluating their tokens again.
///
/// A block's file is named by its prefix hash (the hash chained over every token through the end
/// of the block, as `KVBlockPool` indexes full blocks) mixed with the `identity`, and its header
/// repeats the identity, the block's tokens and checksums (`PromptCacheFile`): a file that is
/// truncated, damaged, from another model, KV type or format version is counted in
/// `Statistics.rejected`, warned about once, and never loaded.
///
/// Crash safety and sharing: a file is written under a temporary name, flushed to disk
/// (`fsync`) and renamed to its final name, so a complete file appears atomically and a crash
/// leaves only a temporary file, which is never loaded (stale ones are removed by a later
/// eviction). Processes sharing the directory may write the same block at once (the last
/// rename wins, with equal content); evictions take an exclusive `flock` on `.lock` so two
/// processes do not both trim the same surplus, and removing a file another process is reading
/// does not disturb that read.
///
/// Threads: `persist` and `restore` are called by the scheduler's thread; files are written by
/// a thread of the store's own (`DedicatedThread`), so no write, `fsync` or eviction is ever on
/// a step's path. Call `close()` before dropping a store: its thread holds it until then.
public final class PromptCacheStore: Sendable {
    /// Counters since the store was opened.
    public struct Statistics: Sendable, Equatable {
        /// Blocks loaded from files.
        public var hits = 0
        /// Lookups that found no file for the next block of a prompt.
        public var misses = 0
        /// Files written.
        public var writes = 0
        /// Files ignored as damaged, truncated or foreign.
        public var rejected = 0
        /// Files removed (least recently used first) to keep the directory within its budget.
        public var evictions = 0
        /// Blocks not written because the write queue already held its limit.
        public var dropped = 0
        /// Bytes of cache files in the directory, as last counted plus this process's writes since.
        public var bytes = 0
        /// Blocks waiting to be written.
        public var pendingWrites = 0

        /// All counters zero.
        public init() {}
    }

    /// The directory of cache files.
    public let directory: String
    /// Bytes the directory may hold before eviction.
    public let budgetBytes: Int
    /// What every file here must match.
    public let identity: PromptCacheIdentity
    /// Bytes of blocks the write queue may hold; a burst beyond it is dropped rather than held in
    /// memory (those blocks are simply not persisted).
    let queueLimitBytes: Int
    let warn: @Sendable (String) -> Void

    struct Job {
        var name: String
        var parent: UInt64
        var chain: UInt64
        var tokens: [Int32]
        var payload: [UInt8]
    }

    struct State {
        var queue: [Job] = []
        var queuedBytes = 0
        var writing = false
        var stopping = false
        var threadRunning = false
        var statistics = Statistics()
        /// Files this process wrote or loaded: a block found here is not written again.
        var known: Set<String> = []
        /// Files already warned about (one warning per file, however often it is met).
        var warned: Set<String> = []
    }

    let state = Locked(State())

    /// Opens (creating when missing) the cache in `options.directory` for blocks of `identity`,
    /// trims it to its budget and starts the writer thread. `warn` receives one line per
    /// rejected file or failed write (standard error by default).
    public init(options: PromptCacheOptions, identity: PromptCacheIdentity,
                warn: @escaping @Sendable (String) -> Void = PromptCacheStore.standardErrorWarning) throws(EngineError) {
        guard options.budgetBytes > 0 else {
            throw .invalidConfiguration("a prompt cache needs a positive byte budget (\(options.budgetBytes))")
        }
        var path = options.directory
        while path.count > 1, path.hasSuffix("/") { path.removeLast() }
        try Self.makeDirectory(path)
        directory = path
        budgetBytes = options.budgetBytes
        self.identity = identity
        queueLimitBytes = max(identity.blockBytes, min(options.budgetBytes, 256 << 20))
        self.warn = warn
        evict()
        state.withLock { $0.threadRunning = true }
        guard DedicatedThread.start({ [self] in self.writeLoop() }) else {
            state.withLock { $0.threadRunning = false }
            throw .threadPoolUnavailable
        }
    }

    /// Writes a warning line to standard error.
    public static let standardErrorWarning: @Sendable (String) -> Void = { line in
        let text = Array("loom: \(line)\n".utf8)
        text.withUnsafeBytes { _ = write(STDERR_FILENO, $0.baseAddress, $0.count) }
    }

    /// Counters since the store was opened.
    public var statistics: Statistics {
        state.withLock { s in
            var out = s.statistics
            out.pendingWrites = s.queue.count + (s.writing ? 1 : 0)
            return out
        }
    }

    /// Blocks the calling thread until every block queued so far is on disk (written, flushed
    /// and renamed). Never call it from a Swift concurrency thread.
    public func flush() {
        state.wait(until: { $0.queue.isEmpty && !$0.writing }) { _, _ in }
    }

    /// Writes what is queued, then stops the writer thread and waits for it. Later `persist`
    /// calls are ignored.
    public func close() {
        state.withLockSignalling { $0.stopping = true }
        state.wait(until: { !$0.threadRunning }) { _, _ in }
    }

    /// Whether the block with prefix hash `chain` still needs writing (this process has not
    /// written or loaded it): lets the caller skip copying its keys and values out.
    func wants(chain: UInt64) -> Bool {
        let name = identity.fileName(chain: chain)
        return state.withLock { !$0.stopping && !$0.known.contains(name) }
    }

    /// Queues the block with prefix hash `chain` (after the prefix hashed `parent`, holding
    /// `tokens`) for writing; `fill` copies its keys and values into the buffer it is given
    /// (`identity.blockBytes`). Returns at once: the writer thread does the rest.
    func persist(parent: UInt64, chain: UInt64, tokens: UnsafeBufferPointer<Int32>,
                 fill: (UnsafeMutableRawBufferPointer) -> Void) {
        let name = identity.fileName(chain: chain)
        let size = identity.blockBytes
        let accepted = state.withLock { s -> Bool in
            guard !s.stopping, !s.known.contains(name) else { return false }
            guard s.queuedBytes + size <= queueLimitBytes else {
                s.statistics.dropped += 1
                return false
            }
            s.known.insert(name)
            s.queuedBytes += size
            return true
        }
        guard accepted else { return }
        let payload = [UInt8](unsafeUninitializedCapacity: size) { buffer, count in
            fill(UnsafeMutableRawBufferPointer(buffer))
            count = size
        }
        let job = Job(name: name, parent: parent, chain: chain, tokens: Array(tokens), payload: payload)
        state.withLockSignalling { $0.queue.append(job) }
    }

    /// Counts a rejected file and warns about it the first time.
    func reject(_ name: String, _ reason: PromptCacheRejection) {
        let first = state.withLock { s -> Bool in
            s.statistics.rejected += 1
            s.known.remove(name)
            return s.warned.insert(name).inserted
        }
        if first { warn("prompt cache: ignoring \(directory)/\(name): \(reason)") }
    }

    static func makeDirectory(_ path: String) throws(EngineError) {
        var prefix = path.hasPrefix("/") ? "" : "."
        for part in path.split(separator: "/") {
            prefix += "/" + part
            if mkdir(prefix, 0o755) != 0 && errno != EEXIST {
                throw .invalidConfiguration("cannot create prompt cache directory \(prefix) (errno \(errno))")
            }
        }
        var st = stat()
        guard stat(path, &st) == 0, st.st_mode & S_IFMT == S_IFDIR else {
            throw .invalidConfiguration("prompt cache path \(path) is not a directory")
        }
    }
}

/// Closes a file descriptor (inside `PromptCacheStore`, `close` names the store's own method).
func closeDescriptor(_ fd: Int32) {
    _ = close(fd)
}
