#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import CTensor
import LoomSupport

/// The scheduler's thread and everything it owns: the transformer, the KV pool, the queue of
/// waiting sequences and the running ones. Outside threads reach it only through `shared`
/// (submissions, wake-ups, statistics).
final class SchedulerCore: @unchecked Sendable {
    // @unchecked: every field but `shared` is touched only by the scheduler thread (after
    // `start`), and `shared` is a lock.

    /// What outside threads and the scheduler thread tell each other.
    struct Shared {
        /// Sequences submitted and not yet taken by the thread.
        var submitted: [ScheduledSequence] = []
        /// Bumped by every outside event (a caller's tokens, room in a ring, a close).
        var events = 0
        var stopping = false
        var threadRunning = false
        var statistics = SchedulerStatistics()
        var nextID = 0
        var stepObserver: (@Sendable (Int) -> Void)?
    }

    let transformer: Transformer
    /// The scheduler thread, joined by `stop()`; written only by `start()` and `stop()`, which
    /// the owning `Scheduler` calls from its own thread.
    private var thread: DedicatedThread.Handle?
    /// Keys and values of every layer, or of the global layers when `localPool` is set.
    let pool: KVBlockPool
    /// Keys and values of the local (sliding-window) layers of a model that has both kinds, for
    /// the last `window + rollbackMargin` positions of each sequence (blocks behind that go back,
    /// cached); nil when every layer is global.
    let localPool: KVBlockPool?
    /// Positions a local layer attends to (0 without `localPool`).
    let window: Int
    /// Positions a sequence keeps behind its window so the longest run it may verify can be
    /// rolled back without recomputing (`prefillChunk`, the longest run a step verifies).
    let rollbackMargin: Int
    /// Local-pool blocks one sequence holds at most: its window, the margin and one step's rows.
    let localBlocksPerSequence: Int
    let policy: SchedulerPolicy
    let shared = Locked(Shared())

    let batch: StepBatch
    /// Running sequences, oldest first.
    var running: [ScheduledSequence] = []
    /// Sequences waiting for admission, oldest first.
    var waiting: [ScheduledSequence] = []
    /// Rows each running sequence takes in the step being built (same order as `running`).
    var plannedRows: [Int] = []
    /// The sequence of each segment of the step.
    var stepSequences: [ScheduledSequence?] = []
    /// Caller-driven sequences that received logits in the last step.
    var lastDelivered: [CallerChannel] = []
    var stats = SchedulerStatistics()
    /// The thread's copy of `Shared.stepObserver`, taken at every wake-up (reading a closure
    /// out of the lock in the step itself would box it: an allocation per step).
    var stepObserver: (@Sendable (Int) -> Void)?
    /// Prompt chunks at least this long take the prompt path (products and attention of their
    /// own); shorter ones join the step's fused rows.
    let promptPathRows: Int
    /// Prompt chunks at least this long take their attention in tiles of queries: the default
    /// chunk (16) and longer, whichever BLAS the products use (the tiles do not depend on it);
    /// shorter ones are prompts' tails.
    let tiledAttentionRows = 16
    let maxBlocks: Int
    /// Where full prompt blocks are persisted and restored from; nil without a prompt cache.
    let promptCache: PromptCacheStore?
    /// One block image, the buffer restores read into (allocated with the store).
    let promptCacheScratch: UnsafeMutableRawBufferPointer?

    init(model: Model, configuration: TransformerConfiguration, policy: SchedulerPolicy,
         promptCache options: PromptCacheOptions? = nil) throws(EngineError) {
        try policy.validate()
        var config = configuration
        config.maxBatch = policy.rowsPerStep
        transformer = try Transformer(model: model, configuration: config)
        let c = model.config
        let context = transformer.contextLength
        let bs = policy.blockSize, type = configuration.kvCacheType
        maxBlocks = (context + bs - 1) / bs
        let locals = c.localLayerCount
        let split = locals > 0 && locals < c.blockCount
        window = split ? c.slidingWindow : 0
        rollbackMargin = split ? policy.prefillChunk : 0
        localBlocksPerSequence = split ? min(maxBlocks, (window + rollbackMargin + policy.rowsPerStep + bs - 1) / bs + 2) : 0
        let globals = c.blockCount - (split ? locals : 0)
        // Local layers: every sequence's window, and as many blocks again to keep ended
        // sequences' last windows cached for the next turn.
        var localBlocks = split ? min(2 * localBlocksPerSequence * policy.maxSequences, maxBlocks * policy.maxSequences) : 0
        let localBlockBytes = 2 * locals * type.rowBytes(elements: c.kvLength) * bs
        let budget = policy.kvBudgetBytes
            ?? 2 * globals * type.rowBytes(elements: c.kvLength) * maxBlocks * bs * policy.maxSequences + localBlocks * localBlockBytes
        func globalBlocks() -> Int {
            KVBlockPool.blockCount(budgetBytes: budget - localBlocks * localBlockBytes, type: type, layers: globals,
                                   kvLength: c.kvLength, blockSize: bs)
        }
        var blocks = globalBlocks()
        if split, blocks < maxBlocks {
            // A tight budget: one sequence's window for the local layers, the rest for a context.
            localBlocks = localBlocksPerSequence
            blocks = globalBlocks()
        }
        guard blocks >= maxBlocks, budget - localBlocks * localBlockBytes > 0 else {
            throw .invalidConfiguration("a KV budget of \(budget) bytes holds \(blocks * bs) positions, less than one context of \(context)")
        }
        pool = try KVBlockPool(type: type, layers: globals, kvLength: c.kvLength, blockSize: bs, blockCount: blocks)
        localPool = split
            ? try KVBlockPool(type: type, layers: locals, kvLength: c.kvLength, blockSize: bs, blockCount: localBlocks)
            : nil
        self.policy = policy
        batch = StepBatch(rows: policy.rowsPerStep, segments: policy.segmentsPerStep)
        running.reserveCapacity(policy.maxSequences)
        lastDelivered.reserveCapacity(policy.maxSequences)
        plannedRows = Array(repeating: 0, count: policy.maxSequences)
        stepSequences = Array(repeating: nil, count: policy.segmentsPerStep)
        promptPathRows = Int(loom_prompt_path_min_rows())
        // A sliding-window model's local layers keep only their last window of positions, so a
        // block's image would not hold what a restore needs: such models persist nothing.
        if let options, c.slidingWindow == 0 {
            let identity = PromptCacheIdentity(
                modelFingerprint: model.file.contentFingerprint, kvType: configuration.kvCacheType.rawValue,
                blockSize: policy.blockSize, layers: c.blockCount, kvLength: c.kvLength, blockBytes: pool.bytesPerBlock)
            promptCache = try PromptCacheStore(options: options, identity: identity)
            promptCacheScratch = .allocate(byteCount: pool.bytesPerBlock, alignment: 64)
        } else {
            if let options {
                PromptCacheStore.standardErrorWarning(
                    "prompt cache: \(options.directory) not used: the model has sliding-window layers")
            }
            promptCache = nil
            promptCacheScratch = nil
        }
    }

    deinit { promptCacheScratch?.deallocate() }

    /// The checks a prompt passes before it is queued.
    func validate(_ prompt: [Int32]) throws(EngineError) {
        guard !prompt.isEmpty else { throw .emptyBatch }
        let context = transformer.contextLength
        guard prompt.count <= context else { throw .contextLimitExceeded(contextSize: context, tokenCount: prompt.count) }
        let vocabulary = transformer.model.config.vocabularySize
        for t in prompt where t < 0 || Int(t) >= vocabulary {
            throw .tokenOutOfRange(id: Int(t), vocabularySize: vocabulary)
        }
    }

    /// Queues a sequence and wakes the thread.
    func submit(prompt: [Int32], cancellation: CancellationFlag, timeout: Duration?, reusePrefix: Bool,
                driver: ScheduledSequence.Driver) {
        let deadline = timeout.map { Self.now() &+ UInt64(max(0, $0.components.seconds)) * 1_000_000_000
            &+ UInt64(max(0, $0.components.attoseconds / 1_000_000_000)) }
        shared.withLockSignalling { state in
            let sequence = ScheduledSequence(id: state.nextID, prompt: prompt, context: transformer.contextLength,
                                             maxBlocks: maxBlocks, cancellation: cancellation, deadline: deadline,
                                             driver: driver, reusesPrefix: reusePrefix)
            state.nextID += 1
            state.submitted.append(sequence)
        }
    }

    /// Wakes the thread to look at its sequences again.
    func poke() { shared.withLockSignalling { $0.events &+= 1 } }

    /// Monotonic nanoseconds.
    static func now() -> UInt64 {
        var t = timespec()
        clock_gettime(CLOCK_MONOTONIC, &t)
        return UInt64(t.tv_sec) * 1_000_000_000 + UInt64(t.tv_nsec)
    }

    // MARK: - Thread

    /// Starts the scheduler thread; false if it could not be created.
    func start() -> Bool {
        shared.withLock { $0.threadRunning = true }
        thread = DedicatedThread.startJoinable(stackSize: 8 << 20) { [self] in self.run() }
        if thread == nil { shared.withLock { $0.threadRunning = false } }
        return thread != nil
    }

    /// Ends every sequence (`.cancelled`), stops the thread and waits for it.
    func stop() {
        shared.withLockSignalling { $0.stopping = true }
        shared.wait(until: { !$0.threadRunning }) { _, _ in }
        // Joined as well: the thread's body holds this core (and through it the model) until the
        // thread ends, and the owner's last reference must be the last one.
        thread?.join()
        thread = nil
    }

    private func run() {
        var seenEvents = 0
        while true {
            let runnable = hasRunnableWork()
            // Sleep when nothing can run; wake on any event. With sequences in flight, wake at
            // least every housekeeping interval for cancellation flags and deadlines raised
            // without an event.
            let (incoming, stopping) = shared.wait(
                until: { runnable || $0.stopping || !$0.submitted.isEmpty || $0.events != seenEvents },
                timeoutNanoseconds: (running.isEmpty && waiting.isEmpty)
                    ? nil : UInt64(policy.housekeepingIntervalMicroseconds) * 1000
            ) { state, met in
                if !met { stats.timerWakeups += 1 }
                seenEvents = state.events
                stepObserver = state.stepObserver
                // Swapped out, not copied: an empty queue costs no allocation per step.
                var taken: [ScheduledSequence] = []
                if !state.submitted.isEmpty { swap(&taken, &state.submitted) }
                return (taken, state.stopping)
            }
            if stopping { break }
            if !incoming.isEmpty {
                waiting.append(contentsOf: incoming)
                if promptCache != nil { for s in incoming { restorePersisted(s) } }
            }
            step()
            waitForCallers(from: seenEvents)
            publishStatistics()
        }
        let leftovers = shared.withLock { state in
            let taken = state.submitted
            state.submitted.removeAll()
            return taken
        }
        waiting.append(contentsOf: leftovers)
        for s in running + waiting { end(s, reason: .cancelled, error: .cancelled) }
        running.removeAll()
        waiting.removeAll()
        publishStatistics()
        // Blocks already queued still reach the disk: a stopped scheduler's prompts stay cached.
        promptCache?.close()
        shared.withLockSignalling { $0.threadRunning = false }
    }

    /// After a step that gave logits to caller-driven sequences, waits up to the policy's window
    /// for them to answer, so a guided sequence joins the very next step instead of every other.
    /// It counts events on its own: the loop's count stays behind, so the loop sees the callers'
    /// answers as new events and takes them in before deciding whether it can run.
    private func waitForCallers(from seenEvents: Int) {
        guard !lastDelivered.isEmpty, policy.callerWindowMicroseconds > 0 else { return }
        let deadline = Self.now() + UInt64(policy.callerWindowMicroseconds) * 1000
        var seen = seenEvents
        while callersStillThinking() {
            let now = Self.now()
            guard now < deadline else { return }
            let last = seen
            seen = shared.wait(until: { $0.events != last || $0.stopping }, timeoutNanoseconds: deadline - now) {
                state, _ in state.events
            }
        }
    }

    func publishStatistics() {
        var s = stats
        s.running = running.count
        s.waiting = waiting.count
        s.pool = pool.statistics
        s.localPool = localPool?.statistics
        shared.withLock { $0.statistics = s }
    }
}
