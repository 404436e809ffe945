import Engine
import Foundation
import LoomSupport
import Provider

/// What the compute thread reports while generating.
enum GenerationUpdate: Sendable {
    /// The prompt is in the KV cache.
    case prefilled(promptTokens: Int, cachedTokens: Int)
    /// New output text and the tokens that produced it (text may be empty while a character or a
    /// possible stop sequence is held back).
    case text(String, tokenCount: Int)
    /// Log-probabilities of the tokens the next `.text` updates credit (requests that ask).
    case logProbabilities(LogProbabilityRows)
    /// Generation ended.
    case finished(GenerationSummary)
}

/// Totals of one generation.
struct GenerationSummary: Sendable {
    enum Stop: String, Sendable {
        case endOfGeneration, maximumTokens, stopSequence, grammarComplete
    }
    var stop: Stop
    var promptTokens = 0
    var cachedTokens = 0
    var outputTokens = 0
    /// Seconds from the start of the request to the first output token.
    var timeToFirstToken: Double?
    /// Output tokens per second after the first.
    var tokensPerSecond: Double?
    /// Guided generation only: tokens drawn by the sampler, how many fell outside the mask they
    /// were drawn under (always 0 — this is the sampler's instrumentation), tokens forced by the
    /// grammar, and sampled tokens replaced by the budget-closing plan.
    var sampledTokens = 0
    var sampledOutsideMask = 0
    var forcedTokens = 0
    var budgetSteers = 0
    /// Speculation: tokens proposed by prompt lookup and verified, and how many of them the
    /// model's own choice confirmed.
    var proposedTokens = 0
    var acceptedTokens = 0
    /// Verified runs (each one forward pass for its token and proposal).
    var speculativeRuns = 0

    init(stop: Stop) { self.stop = stop }
}

/// One generation on a borrowed sequential engine: prefill with prefix reuse, then sample token by
/// token (under the grammar's mask when guided), forcing the grammar's only continuations as one
/// batch, closing structures before the budget runs out, and streaming decoded text.
struct GenerationLoop {
    let engine: SequentialEngine
    let tokenizer: Tokenizer
    let sampler: Sampler
    let guide: GuidedDecoding?
    /// Strings that end generation (not part of the output), e.g. the next plain-format role line.
    let stopSequences: [String]
    /// Control tokens decoded as their text (tool-call and reasoning markers).
    let markerTokens: Set<Int32>
    /// Output tokens allowed (already capped by the context).
    let maximumTokens: Int
    let cancellation: CancellationFlag
    let reusePrefix: Bool
    /// The most tokens one speculative proposal may hold; 0 turns speculation off.
    var speculation = 0
    /// Computes each output token's log-probabilities (requests that ask for them; nil: none).
    var logProbabilities: LogProbabilityRecorder? = nil
    let started: ContinuousClock.Instant
    let emit: (GenerationUpdate) -> Void

    func run(prompt: [Int32]) throws -> GenerationSummary {
        let prefill = try engine.prefill(prompt, reusePrefix: reusePrefix, cancellation: cancellation)
        emit(.prefilled(promptTokens: prompt.count, cachedTokens: prefill.cachedTokenCount))
        if sampler.parameters.repeatPenalty != 1 || sampler.parameters.presencePenalty != 0
            || sampler.parameters.frequencyPenalty != 0 {
            for t in prompt.suffix(sampler.parameters.penaltyWindow) { sampler.accept(t) }
        }
        var output = OutputText(tokenizer: tokenizer, stopSequences: stopSequences, markerTokens: markerTokens, emit: emit)
        var summary = GenerationSummary(stop: .maximumTokens)
        summary.promptTokens = prompt.count
        summary.cachedTokens = prefill.cachedTokenCount
        var firstTokenAt: ContinuousClock.Instant?
        let ends = tokenizer.endOfGenerationTokens
        var logits = engine.logits
        var generated = 0

        // Speculation: after a token is chosen, prompt lookup may propose the tokens after it;
        // the token and the proposal are evaluated as one run (`verify`), and the loop then
        // reads the run's rows in order, exactly as if each token had been stepped alone: it
        // samples from each row as it would have (the same draw, the same mask), and while its
        // choice equals the proposal the next row is already computed. The first difference
        // rolls the rest back. So the output is the one plain decoding gives, for greedy and
        // seeded sampling alike, whenever the rows equal single steps (they do: a run is one
        // fused segment, whose rows are bit-identical to one-row steps).
        var lookup = speculation > 0
            ? PromptLookup(prompt: prompt, maxRun: min(speculation, engine.maxVerifiedRun - 1)) : nil
        var proposal: [Int32] = []
        proposal.reserveCapacity(max(speculation, 0) + 1)
        var outstanding: [Int32] = []
        outstanding.reserveCapacity(max(speculation, 0))
        var rows = UnsafeBufferPointer<Float>(start: nil, count: 0)
        var cursor = 0
        let vocabulary = engine.model.config.vocabularySize

        /// Appends the chosen `token` to the sequence and leaves the next logits in `logits`.
        func advance(_ token: Int32) throws {
            lookup?.append(token)
            if cursor < outstanding.count, outstanding[cursor] == token {
                // Confirmed: its keys and values are in, and the next row is computed.
                cursor += 1
                logits = UnsafeBufferPointer(rebasing: rows[cursor * vocabulary..<(cursor + 1) * vocabulary])
                return
            }
            dropOutstanding()
            if lookup != nil {
                // The scan is cheap and usually finds nothing; the scheduler's load (a lock) and
                // the grammar's check are asked only about an actual proposal.
                lookup!.propose(limit: maximumTokens - generated, into: &proposal)
                if !proposal.isEmpty, !engine.speculationWelcome { proposal.removeAll(keepingCapacity: true) }
                if let guide { admitOnlyPlainStates(guide, &proposal) }
            }
            if proposal.isEmpty {
                logits = try engine.step(token, cancellation: cancellation)
                return
            }
            outstanding.append(contentsOf: proposal)
            proposal.insert(token, at: 0)
            rows = try engine.verify(proposal, cancellation: cancellation)
            logits = UnsafeBufferPointer(rebasing: rows[0..<vocabulary])
        }

        /// Ends the verified run: proposals not confirmed leave the sequence (before another
        /// token, or a forced run, is appended) and the proposer learns how it did.
        func dropOutstanding() {
            guard !outstanding.isEmpty else { return }
            let drop = outstanding.count - cursor
            lookup?.record(proposed: outstanding.count, accepted: cursor)
            summary.proposedTokens += outstanding.count
            summary.acceptedTokens += cursor
            summary.speculativeRuns += 1
            outstanding.removeAll(keepingCapacity: true)
            cursor = 0
            if drop > 0 { engine.rollback(drop) }
        }

        func record(_ ids: [Int32]) -> Bool {
            if firstTokenAt == nil {
                firstTokenAt = .now
                summary.timeToFirstToken = (firstTokenAt! - started).seconds
            }
            generated += ids.count
            if let rows = logProbabilities?.take() { emit(.logProbabilities(rows)) }
            return output.append(ids)
        }

        func finish(_ stop: GenerationSummary.Stop) -> GenerationSummary {
            output.flush()
            summary.stop = output.stopped ? .stopSequence : stop
            summary.outputTokens = generated
            if let firstTokenAt, generated > 1 {
                let seconds = (ContinuousClock.now - firstTokenAt).seconds
                if seconds > 0 { summary.tokensPerSecond = Double(generated - 1) / seconds }
            }
            return summary
        }

        if let guide {
            // Refuse up front when even the shortest valid output cannot fit.
            if let plan = guide.completionPlan(), plan.count > maximumTokens {
                throw BudgetTooSmall(minimumTokens: plan.count)
            }
            var maskReady = false
            while true {
                if cancellation.isCancelled { throw EngineError.cancelled }
                let remaining = maximumTokens - generated
                if guide.matcher.isComplete {
                    if !maskReady { guide.computeMask(); maskReady = true }
                    if guide.maskOnlyEnds(ends) || remaining == 0 { return finish(.grammarComplete) }
                }
                if remaining == 0 { return finish(.maximumTokens) }

                // Jump forward over text only the grammar can write.
                let forced = guide.matcher.forcedBytes()
                if !forced.isEmpty, let ids = guide.spell(forced), guide.accept(ids) {
                    if ids.count <= remaining, fits(guide, remaining - ids.count) {
                        summary.forcedTokens += ids.count
                        logProbabilities?.forced(ids)
                        maskReady = false
                        if record(ids) { return finish(.stopSequence) }
                        if generated == maximumTokens { continue }
                        if guide.matcher.isComplete {
                            guide.computeMask()
                            maskReady = true
                            if guide.maskOnlyEnds(ends) { return finish(.grammarComplete) }
                        }
                        dropOutstanding()
                        lookup?.append(contentsOf: ids)
                        logits = try engine.force(ids, cancellation: cancellation)
                        continue
                    }
                    guide.matcher.rollback(ids.count)
                    let plan = try closingPlan(guide, remaining: remaining)
                    summary.forcedTokens += plan.count
                    logProbabilities?.forced(plan)
                    if !plan.isEmpty { _ = record(plan) }
                    return finish(.grammarComplete)
                }

                if !maskReady { guide.computeMask() }
                maskReady = false
                guard let token = guide.mask.withUnsafeBufferPointer({ sampler.sample(logits, mask: $0.baseAddress) }) else {
                    throw LocalLanguageModelError.internalFailure("the grammar allows no token here")
                }
                summary.sampledTokens += 1
                if !guide.maskAllows(token) { summary.sampledOutsideMask += 1 }
                if tokenizer.isEndOfGeneration(token) {
                    guard guide.matcher.isComplete else {
                        throw LocalLanguageModelError.internalFailure("end of generation sampled before the output was complete")
                    }
                    return finish(.endOfGeneration)
                }
                guard guide.matcher.accept(token: Int(token)) else {
                    throw LocalLanguageModelError.internalFailure("the grammar rejected token \(token) its own mask allowed")
                }
                if !fits(guide, remaining - 1) {
                    // This token would leave too little room to close the output: write the
                    // shortest completion from before it instead.
                    guide.matcher.rollback(1)
                    summary.budgetSteers += 1
                    let plan = try closingPlan(guide, remaining: remaining)
                    summary.forcedTokens += plan.count
                    logProbabilities?.forced(plan)
                    if !plan.isEmpty { _ = record(plan) }
                    return finish(.grammarComplete)
                }
                if let logProbabilities {
                    guide.mask.withUnsafeBufferPointer { logProbabilities.sampled(token, logits: logits, mask: $0.baseAddress) }
                }
                sampler.accept(token)
                if record([token]) { return finish(.stopSequence) }
                if generated == maximumTokens { continue }
                if guide.matcher.isComplete {
                    guide.computeMask()
                    maskReady = true
                    if guide.maskOnlyEnds(ends) { return finish(.grammarComplete) }
                }
                try advance(token)
            }
        }

        while true {
            if cancellation.isCancelled { throw EngineError.cancelled }
            if generated == maximumTokens { return finish(.maximumTokens) }
            guard let token = sampler.sample(logits) else {
                throw LocalLanguageModelError.internalFailure("no token could be sampled (non-finite logits)")
            }
            if tokenizer.isEndOfGeneration(token) { return finish(.endOfGeneration) }
            logProbabilities?.sampled(token, logits: logits, mask: nil)
            sampler.accept(token)
            if record([token]) { return finish(.stopSequence) }
            if generated == maximumTokens { return finish(.maximumTokens) }
            try advance(token)
        }
    }

    /// Cuts `proposal` to the tokens the grammar accepts whose states the guided loop samples in
    /// plainly: no text forced there and the output not complete (the loop does something else
    /// in those states, so a proposal never runs through them). Leaves the matcher as it was.
    private func admitOnlyPlainStates(_ guide: GuidedDecoding, _ proposal: inout [Int32]) {
        guard !proposal.isEmpty else { return }
        guard guide.matcher.forcedBytes().isEmpty, !guide.matcher.isComplete else {
            proposal.removeAll(keepingCapacity: true)
            return
        }
        var kept = 0
        for t in proposal {
            guard guide.matcher.accept(token: Int(t)) else { break }
            if !guide.matcher.forcedBytes().isEmpty || guide.matcher.isComplete {
                guide.matcher.rollback(1)
                break
            }
            kept += 1
        }
        if kept > 0 { guide.matcher.rollback(kept) }
        proposal.removeLast(proposal.count - kept)
    }

    /// Whether the output can still be completed within `remaining` more tokens. Unknown
    /// distances (a plan search that gave up) count as fitting.
    private func fits(_ guide: GuidedDecoding, _ remaining: Int) -> Bool {
        guard let bound = guide.completionBound() else { return true }
        if bound <= remaining { return true }
        guard let plan = guide.completionPlan() else { return true }
        return plan.count <= remaining
    }

    /// The shortest completion, accepted into the matcher (the caller writes it and ends).
    private func closingPlan(_ guide: GuidedDecoding, remaining: Int) throws -> [Int32] {
        guard let plan = guide.completionPlan(), plan.count <= remaining, guide.accept(plan) else {
            throw LocalLanguageModelError.internalFailure("no completion of the structured output fits the remaining \(remaining) tokens")
        }
        return plan
    }
}

/// Thrown by the loop when a schema's shortest output exceeds the budget.
struct BudgetTooSmall: Error {
    var minimumTokens: Int
}

/// Thrown by the worker when the schema's grammar has no sentence at all.
struct SchemaAdmitsNothing: Error {}

/// Decodes output tokens to text, holding back an unfinished character and any text that may be
/// the start of a stop sequence.
struct OutputText {
    private var decoder: StreamingDecoder
    private let stopSequences: [String]
    private let markerTokens: Set<Int32>
    private let tokenizer: Tokenizer
    private let emit: (GenerationUpdate) -> Void
    private var held = ""
    private var heldTokens = 0
    private(set) var stopped = false

    init(tokenizer: Tokenizer, stopSequences: [String], markerTokens: Set<Int32> = [],
         emit: @escaping (GenerationUpdate) -> Void) {
        decoder = StreamingDecoder(tokenizer: tokenizer, isStartOfText: false)
        self.tokenizer = tokenizer
        self.stopSequences = stopSequences
        self.markerTokens = markerTokens
        self.emit = emit
    }

    /// Adds tokens; returns true when a stop sequence appeared (the text before it was emitted).
    mutating func append(_ ids: [Int32]) -> Bool {
        var piece = ""
        for id in ids {
            if markerTokens.contains(id) {
                piece += decoder.finish() + (tokenizer.tokenText(id) ?? "")
            } else {
                piece += (try? decoder.append(id)) ?? ""
            }
        }
        held += piece
        heldTokens += ids.count
        guard !stopSequences.isEmpty else {
            emit(.text(held, tokenCount: heldTokens))
            held = ""
            heldTokens = 0
            return false
        }
        for stop in stopSequences {
            if let r = held.range(of: stop) {
                emit(.text(String(held[..<r.lowerBound]), tokenCount: heldTokens))
                held = ""
                heldTokens = 0
                stopped = true
                return true
            }
        }
        // Keep back the longest tail that could begin a stop sequence.
        var keep = 0
        for stop in stopSequences {
            var k = min(stop.count - 1, held.count)
            while k > keep {
                if held.hasSuffix(stop.prefix(k)) { keep = k; break }
                k -= 1
            }
        }
        let cut = held.index(held.endIndex, offsetBy: -keep)
        let out = String(held[..<cut])
        if !out.isEmpty || keep == 0 {
            emit(.text(out, tokenCount: heldTokens))
            heldTokens = 0
        }
        held = String(held[cut...])
        return false
    }

    /// Emits whatever is held back.
    mutating func flush() {
        if stopped { return }
        let rest = held + decoder.finish()
        if !rest.isEmpty || heldTokens > 0 { emit(.text(rest, tokenCount: heldTokens)) }
        held = ""
        heldTokens = 0
    }
}

extension Duration {
    /// The duration in seconds.
    var seconds: Double {
        let (s, a) = components
        return Double(s) + Double(a) * 1e-18
    }
}
