/// How a `Scheduler` shares its forward passes between sequences.
///
/// Every step evaluates one row for each decoding sequence (up to `maxSequences`) plus prompt
/// chunks of sequences still reading their prompt, up to `maxPrefillTokensPerStep` prompt
/// tokens; while every running sequence is still reading its prompt, prompts may fill the rows
/// decoding would take as well, a prompt several whole chunks. A prompt is always cut into the
/// same chunks of `prefillChunk` tokens, whatever else runs, so a sequence's arithmetic — and so
/// its logits and tokens — does not depend on its neighbours; the per-step budget only decides
/// how many chunks share a step, which bounds how much a long prompt arriving delays the streams
/// already running.
public struct SchedulerPolicy: Sendable, Equatable, Codable {
    /// Sequences that run together (each decodes one row per step); more wait in a queue.
    public var maxSequences: Int
    /// Prompt tokens of one sequence evaluated in one step.
    public var prefillChunk: Int
    /// Prompt tokens evaluated in one step across sequences (at least `prefillChunk`), while any
    /// running sequence is past its prompt; before that, prompts may fill the step's rows.
    public var maxPrefillTokensPerStep: Int
    /// Positions per KV block.
    public var blockSize: Int
    /// Bytes of keys and values for the whole pool; nil: `maxSequences` full contexts. At least
    /// one full context, so any prompt that fits the context can run.
    public var kvBudgetBytes: Int?
    /// How long a step waits for sequences whose callers are choosing their next token from the
    /// last step's logits (guided generation), before stepping without them.
    public var callerWindowMicroseconds: Int
    /// How often the thread wakes without an event while sequences are in flight, to see
    /// cancellation flags raised and deadlines passed without telling it.
    public var housekeepingIntervalMicroseconds: Int
    /// Speculation (verifying proposed tokens in one step) runs only while at most this many
    /// sequences share the scheduler: a verified run adds rows to a step that every sequence
    /// in it waits for, and a full batch keeps the machine busy without them (0: never).
    public var speculationMaxSequences: Int

    /// A policy; the defaults decode 8 sequences together with 16-token prompt chunks, up to two
    /// (of different sequences) per step. A chunk is the most a long prompt adds to a step that
    /// running streams wait for: with 7 streams decoding SmolLM2 on the AVX2-only EPYC while a
    /// 1,000-token prompt was read, their inter-token p99 was 54–72 ms with 16-token chunks
    /// against 83–110 ms with 32, while that prompt's first token came about a quarter later (it
    /// shares twice as many steps with them). Two chunks per step, and while nothing decodes as
    /// many as the step's rows hold, keep bursts of prompts and a lone prompt in steps of 32
    /// tokens or more.
    public init(maxSequences: Int = 8, prefillChunk: Int = 16, maxPrefillTokensPerStep: Int = 32, blockSize: Int = 16,
                kvBudgetBytes: Int? = nil, callerWindowMicroseconds: Int = 2000,
                housekeepingIntervalMicroseconds: Int = 50_000, speculationMaxSequences: Int = 2) {
        self.maxSequences = maxSequences
        self.prefillChunk = prefillChunk
        self.maxPrefillTokensPerStep = maxPrefillTokensPerStep
        self.blockSize = blockSize
        self.kvBudgetBytes = kvBudgetBytes
        self.callerWindowMicroseconds = callerWindowMicroseconds
        self.housekeepingIntervalMicroseconds = housekeepingIntervalMicroseconds
        self.speculationMaxSequences = speculationMaxSequences
    }

    /// Checks the values against each other.
    func validate() throws(EngineError) {
        guard maxSequences > 0 else { throw .invalidConfiguration("maxSequences \(maxSequences) must be positive") }
        guard prefillChunk > 0 else { throw .invalidConfiguration("prefillChunk \(prefillChunk) must be positive") }
        guard maxPrefillTokensPerStep >= prefillChunk else {
            throw .invalidConfiguration("maxPrefillTokensPerStep \(maxPrefillTokensPerStep) is below prefillChunk \(prefillChunk)")
        }
        guard blockSize > 0 else { throw .invalidConfiguration("blockSize \(blockSize) must be positive") }
        guard callerWindowMicroseconds >= 0 else {
            throw .invalidConfiguration("callerWindowMicroseconds \(callerWindowMicroseconds) must not be negative")
        }
        guard speculationMaxSequences >= 0 else {
            throw .invalidConfiguration("speculationMaxSequences \(speculationMaxSequences) must not be negative")
        }
        guard housekeepingIntervalMicroseconds > 0 else {
            throw .invalidConfiguration("housekeepingIntervalMicroseconds \(housekeepingIntervalMicroseconds) must be positive")
        }
    }

    /// Most rows one step can hold.
    var rowsPerStep: Int { maxSequences + maxPrefillTokensPerStep }

    /// Most segments one step can hold: one per sequence, and while every running sequence reads
    /// its prompt a prompt may take several whole chunks, each a segment of its own.
    var segmentsPerStep: Int { maxSequences + rowsPerStep / prefillChunk }
}
