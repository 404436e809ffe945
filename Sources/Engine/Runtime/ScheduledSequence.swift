import LoomSupport

/// One sequence inside a `Scheduler`: its tokens, how many of them the KV pool holds, its block
/// table, and who chooses its next token.
///
/// `tokens[0..<evaluated]` have keys and values in the pool; `tokens[evaluated...]` are pending
/// (the rest of a prompt, a sampled token, a forced run) and go into the next steps. Only the
/// scheduler's thread reads or writes these fields; callers reach a sequence through its
/// driver's hand-over (`TokenRing` or `CallerChannel`).
final class ScheduledSequence: @unchecked Sendable {
    // @unchecked: made by a submitting thread and handed to the scheduler thread through its
    // lock; only the scheduler thread touches it after that.
    /// Who picks tokens once the pending ones are evaluated.
    enum Driver: Sendable {
        /// Sampling inside the scheduler; tokens flow to a ring.
        case sampling(SamplingDriver)
        /// A caller reads each step's logits and submits tokens (`SequenceSession`).
        case caller(CallerChannel)
    }

    /// Arrival order: older sequences are admitted first and preempted last.
    let id: Int
    /// Prompt, then generated or submitted tokens (capacity reserved for the whole context).
    var tokens: [Int32]
    /// Tokens of the original prompt.
    let promptLength: Int
    /// Leading tokens whose keys and values the pool holds.
    var evaluated = 0
    /// Physical blocks of logical blocks `0..<blockCount`.
    let table: UnsafeMutablePointer<Int32>
    /// Blocks held.
    var blockCount = 0
    /// With a pool of its own for local (sliding-window) layers: their physical block of each
    /// logical block `localFirst..<blockCount`; blocks before `localFirst` lie behind the window
    /// and were given back (-1).
    let localTable: UnsafeMutablePointer<Int32>
    /// First logical block whose local-layer keys and values the sequence holds.
    var localFirst = 0
    /// Hash of every token in the full blocks before the block being filled.
    var chain = KVBlockPool.rootHash
    /// What the prompt evaluation reused and computed (reported once the prompt is in).
    var prefill = PrefillResult(cachedTokenCount: 0, evaluatedTokenCount: 0)
    /// Whether `prefill` was reported.
    var prefillReported = false
    /// Times this sequence was preempted (its blocks freed, to be recomputed).
    var preemptions = 0
    /// Raised by the caller to end the sequence at the next step.
    let cancellation: CancellationFlag
    /// Monotonic nanoseconds after which the sequence ends with `.deadlineExceeded`.
    let deadline: UInt64?
    /// Who chooses tokens.
    let driver: Driver
    /// Whether admission may reuse cached blocks (false: evaluate everything, for cold timings).
    let reusesPrefix: Bool
    /// Rows of logits the caller wants once the pending tokens are evaluated (the last
    /// `logitRows` of them; more than one verifies a speculated run).
    var logitRows = 1

    init(id: Int, prompt: [Int32], context: Int, maxBlocks: Int, cancellation: CancellationFlag, deadline: UInt64?,
         driver: Driver, reusesPrefix: Bool) {
        self.reusesPrefix = reusesPrefix
        self.id = id
        tokens = []
        tokens.reserveCapacity(context)
        tokens.append(contentsOf: prompt)
        promptLength = prompt.count
        table = .allocate(capacity: maxBlocks)
        table.initialize(repeating: -1, count: maxBlocks)
        localTable = .allocate(capacity: maxBlocks)
        localTable.initialize(repeating: -1, count: maxBlocks)
        self.cancellation = cancellation
        self.deadline = deadline
        self.driver = driver
    }

    deinit {
        table.deallocate()
        localTable.deallocate()
    }

    /// Tokens waiting to be evaluated.
    var pending: Int { tokens.count - evaluated }

    /// Whether the sequence is still reading its original prompt (its chunks take the prompt
    /// path; generated and forced runs always take the fused path).
    var inPrompt: Bool { evaluated < promptLength }
}

/// The pipelined driver: the scheduler samples, applies stop tokens and the token budget, and
/// pushes tokens into a ring the consumer drains.
final class SamplingDriver: @unchecked Sendable {
    // @unchecked: like its sequence, touched only by the scheduler thread once submitted (the
    // ring is the thread-safe hand-over to the consumer).
    let sampler: Sampler
    /// A handful of ids: a linear scan beats hashing per token.
    let stopTokens: [Int32]
    let maxTokens: Int
    let ring: TokenRing
    /// Tokens handed to the consumer.
    var generated = 0
    /// A sampled token the full ring did not take yet (the sequence waits for room).
    var unsent: Int32?
    /// Prompt-lookup speculation, when on.
    var lookup: PromptLookup?
    /// Proposed tokens evaluated in the last step after the sampled one, not yet confirmed by
    /// sampling (the sequence's last `outstanding.count` tokens).
    var outstanding: [Int32] = []

    init(sampler: Sampler, stopTokens: [Int32], maxTokens: Int, ring: TokenRing, lookup: PromptLookup?) {
        self.sampler = sampler
        self.stopTokens = stopTokens
        self.maxTokens = maxTokens
        self.ring = ring
        self.lookup = lookup
        outstanding.reserveCapacity(lookup?.maxRun ?? 0)
    }
}
