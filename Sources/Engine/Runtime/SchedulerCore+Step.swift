/// One scheduler step, in order: take what callers said (tokens, closes, cancellations,
/// deadlines, room in rings), admit waiting sequences oldest first, plan each running
/// sequence's rows and give them KV blocks (preempting the youngest when the pool is full),
/// run the forward pass, then record the new positions and act on the logits.
extension SchedulerCore {
    /// Whether a step would do anything now.
    func hasRunnableWork() -> Bool {
        if let head = waiting.first, running.count < policy.maxSequences, head.pending > 0, admission(for: head) != nil {
            return true
        }
        for s in running where isRunnable(s) { return true }
        return false
    }

    /// Whether `s` has tokens to evaluate and nothing holds it back.
    private func isRunnable(_ s: ScheduledSequence) -> Bool {
        if case .sampling(let d) = s.driver, d.unsent != nil { return false }
        return s.pending > 0
    }

    func step() {
        absorbEvents()
        admitWaiting()
        guard planRows() else { return }
        buildBatch()
        let logits: UnsafeBufferPointer<Float>
        do {
            logits = try transformer.forward(batch: batch, pool: pool)
        } catch {
            // Every input was validated; a failure here is the engine's, so it ends the step's
            // sequences with it rather than retrying forever.
            for i in 0..<batch.segmentCount {
                if let s = stepSequences[i] { remove(s, reason: nil, error: error) }
            }
            return
        }
        if let observer = stepObserver { observer(stats.steps) }
        finishStep(logits)
    }

    // MARK: - Events

    private func absorbEvents() {
        let now = Self.now()
        // Running sequences, then waiting ones (which hold no blocks), newest first so removals
        // keep the indices still to visit.
        for pass in 0..<2 {
            let inQueue = pass == 1
            var i = (inQueue ? waiting.count : running.count) - 1
            while i >= 0 {
                let s = inQueue ? waiting[i] : running[i]
                if let (reason, error) = endCondition(s, now: now) {
                    if inQueue { waiting.remove(at: i) } else { running.remove(at: i) }
                    end(s, reason: reason, error: error)
                }
                i -= 1
            }
        }
    }

    /// Why `s` should end now (after applying what its caller said), or nil to keep it.
    private func endCondition(_ s: ScheduledSequence, now: UInt64) -> (FinishReason?, EngineError?)? {
        if s.cancellation.isCancelled { return (.cancelled, .cancelled) }
        if let deadline = s.deadline, now >= deadline { return (nil, .deadlineExceeded) }
        switch s.driver {
        case .caller(let channel):
            guard s.pending == 0 else { return nil }
            let (closed, rollback) = channel.state.withLock { state -> (Bool, Int) in
                if state.closed { return (true, 0) }
                guard !state.inbox.isEmpty else { return (false, 0) }
                let r = state.rollback
                s.tokens.append(contentsOf: state.inbox)
                s.logitRows = min(state.logitRows, state.inbox.count)
                state.inbox.removeAll(keepingCapacity: true)
                state.rollback = 0
                state.logitRows = 1
                return (false, r)
            }
            if closed { return (.cancelled, nil) }
            if rollback > 0 {
                let appended = s.pending
                guard rollback <= s.tokens.count - appended else {
                    return (nil, .invalidConfiguration("rollback of \(rollback) positions beyond the \(s.tokens.count - appended) held"))
                }
                let kept = s.tokens.count - appended - rollback
                s.tokens.removeSubrange(kept..<s.tokens.count - appended)
                truncate(s, to: kept)
            }
            if s.tokens.count > transformer.contextLength {
                return (nil, .contextFull(needed: s.tokens.count, capacity: transformer.contextLength))
            }
        case .sampling(let d):
            guard let token = d.unsent else { return nil }
            switch d.ring.offer(token) {
            case .none: return (.cancelled, nil)
            case .some(false): return nil
            case .some(true):
                d.unsent = nil
                return afterEmit(s, d, token)
            }
        }
        return nil
    }

    // MARK: - Admission and blocks

    private func admitWaiting() {
        while running.count < policy.maxSequences, let s = waiting.first {
            guard s.pending > 0, admit(s) else { return }
            waiting.removeFirst()
            let at = running.firstIndex { $0.id > s.id } ?? running.count
            running.insert(s, at: at)
            stats.admissions += 1
        }
    }

    /// The reusable prefix of `s` when the pool can also give the blocks it needs beyond it to
    /// evaluate all its tokens and one more; nil when it cannot now.
    private func admission(for s: ScheduledSequence)
        -> (shared: [Int32], hash: UInt64, partial: (block: Int32, count: Int)?)?
    {
        let found = s.tokens.withUnsafeBufferPointer { pool.lookup($0, limit: s.reusesPrefix ? s.tokens.count - 1 : 0) }
        let positions = min(s.tokens.count + 1, transformer.contextLength)
        let fresh = (positions + policy.blockSize - 1) / policy.blockSize - found.shared.count
        // Shared blocks nobody holds are cached: holding them takes them out of the free space.
        let revived = found.shared.reduce(0) { $0 + (pool.owners(of: $1) == 0 ? 1 : 0) }
        return pool.availableBlocks >= fresh + revived ? found : nil
    }

    /// Gives `s` its reusable prefix (shared blocks, a copied partial block) and positions it
    /// after it; false when the pool cannot hold the rest of its tokens now.
    private func admit(_ s: ScheduledSequence) -> Bool {
        guard let found = admission(for: s) else { return false }
        let bs = policy.blockSize
        for b in found.shared {
            pool.retain(b)
            s.table[s.blockCount] = b
            s.blockCount += 1
        }
        s.chain = found.hash
        var reused = found.shared.count * bs
        if let partial = found.partial, let fresh = pool.allocate() {
            pool.copy(partial.block, into: fresh, count: partial.count)
            s.table[s.blockCount] = fresh
            s.blockCount += 1
            s.tokens.withUnsafeBufferPointer { t in
                if let chain = pool.record(fresh, at: 0, parent: s.chain,
                                           tokens: UnsafeBufferPointer(rebasing: t[reused..<reused + partial.count])) {
                    s.chain = chain
                }
            }
            reused += partial.count
        }
        pool.noteLookup(reused: reused)
        s.evaluated = reused
        if !s.prefillReported {
            let fromPrompt = min(reused, s.promptLength)
            s.prefill = PrefillResult(cachedTokenCount: fromPrompt, evaluatedTokenCount: s.promptLength - fromPrompt,
                                      restoredTokenCount: fromPrompt)
        }
        return true
    }

    /// Gives `s` blocks for positions below `end`; false when the pool has none left.
    private func ensureBlocks(_ s: ScheduledSequence, through end: Int) -> Bool {
        while s.blockCount * policy.blockSize < end {
            guard let b = pool.allocate() else { return false }
            s.table[s.blockCount] = b
            s.blockCount += 1
        }
        return true
    }

    /// Frees every block of `s` (their content stays cached) and forgets its positions.
    private func releaseBlocks(_ s: ScheduledSequence) {
        for i in 0..<s.blockCount { pool.release(s.table[i]) }
        s.blockCount = 0
        s.evaluated = 0
        s.chain = KVBlockPool.rootHash
    }

    /// Forgets positions `n...` of `s`: whole blocks past `n` go back to the pool, and the block
    /// holding `n` is cut — or, when another sequence shares it, given back and its kept
    /// positions evaluated again.
    private func truncate(_ s: ScheduledSequence, to n: Int) {
        guard n < s.evaluated else { return }
        let bs = policy.blockSize
        let keep = (n + bs - 1) / bs
        while s.blockCount > keep {
            s.blockCount -= 1
            pool.release(s.table[s.blockCount])
        }
        let full = n / bs
        s.evaluated = n
        if n % bs != 0 {
            let last = s.table[keep - 1]
            if pool.owners(of: last) > 1 {
                s.blockCount -= 1
                pool.release(last)
                s.evaluated = full * bs
            } else {
                pool.truncate(last, to: n % bs)
            }
        }
        s.chain = KVBlockPool.rootHash
        s.tokens.withUnsafeBufferPointer { t in
            for b in 0..<full {
                s.chain = KVBlockPool.hash(s.chain, UnsafeBufferPointer(rebasing: t[b * bs..<(b + 1) * bs]))
            }
        }
    }

    /// Frees `victim`'s blocks and queues it again (in arrival order) to be recomputed.
    private func preempt(_ victim: ScheduledSequence) {
        releaseBlocks(victim)
        victim.preemptions += 1
        stats.preemptions += 1
        if let i = running.firstIndex(where: { $0 === victim }) {
            running.remove(at: i)
            plannedRows.remove(at: i)
            plannedRows.append(0)
        }
        let at = waiting.firstIndex { $0.id > victim.id } ?? waiting.count
        waiting.insert(victim, at: at)
    }

    // MARK: - Planning

    /// Chooses each running sequence's rows for this step and gives them blocks; false when no
    /// row is planned.
    private func planRows() -> Bool {
        var budget = policy.maxPrefillTokensPerStep
        for (i, s) in running.enumerated() {
            plannedRows[i] = 0
            guard isRunnable(s) else { continue }
            var n = s.inPrompt ? min(policy.prefillChunk, s.promptLength - s.evaluated)
                               : min(s.pending, policy.prefillChunk)
            // A run recomputed after preemption may span steps: its last step must still hold
            // every row whose logits the caller asked for.
            if !s.inPrompt, s.pending > n, s.pending - n < s.logitRows { n = s.pending - s.logitRows }
            if n > 1 {
                guard budget >= n else { continue }
                budget -= n
            }
            plannedRows[i] = n
        }
        var i = 0
        while i < running.count {
            let s = running[i]
            let n = plannedRows[i]
            if n > 0, !ensureBlocks(s, through: s.evaluated + n) {
                // The pool is full: the youngest sequence that is not waiting on its consumer or
                // caller gives its blocks back (it may be this one) and is recomputed later.
                guard let victim = running.last(where: { $0.pending > 0 && isRunnable($0) }) else {
                    plannedRows[i] = 0
                    i += 1
                    continue
                }
                preempt(victim)
                continue
            }
            i += 1
        }
        return plannedRows.prefix(running.count).contains { $0 > 0 }
    }

    /// Fills the step's rows: fused segments first, then prompt-path ones.
    private func buildBatch() {
        batch.reset()
        for pass in 0..<2 {
            let promptPass = pass == 1
            for (i, s) in running.enumerated() {
                let n = plannedRows[i]
                guard n > 0 else { continue }
                let prompt = s.inPrompt && n >= promptPathRows
                guard prompt == promptPass else { continue }
                let seg = batch.addSegment(start: s.evaluated, count: n, table: s.table, promptPath: prompt)
                stepSequences[seg] = s
                let row0 = Int(batch.segments[seg].row)
                let bs = policy.blockSize
                for j in 0..<n {
                    let p = s.evaluated + j
                    batch.tokens[row0 + j] = s.tokens[p]
                    batch.positions[row0 + j] = Int32(p)
                    batch.kvRows[row0 + j] = s.table[p / bs] * Int32(bs) + Int32(p % bs)
                }
                if s.evaluated + n == s.tokens.count { batch.requestLogits(segment: seg, lastRows: min(s.logitRows, n)) }
            }
        }
        stats.steps += 1
        stats.rows += batch.rowCount
        stats.promptRows += (0..<batch.segmentCount).reduce(0) { $0 + (batch.promptPath[$1] ? Int(batch.segments[$1].n_tokens) : 0) }
        stats.maxSequencesInStep = max(stats.maxSequencesInStep, batch.segmentCount)
    }

    // MARK: - After the forward pass

    private func finishStep(_ logits: UnsafeBufferPointer<Float>) {
        // Published before any consumer or caller hears of this step, so counters they read
        // include it.
        publishStatistics()
        let vocabulary = transformer.model.config.vocabularySize
        let bs = policy.blockSize
        var logitIndex = 0
        lastDelivered.removeAll(keepingCapacity: true)
        for seg in 0..<batch.segmentCount {
            guard let s = stepSequences[seg] else { continue }
            stepSequences[seg] = nil
            let n = Int(batch.segments[seg].n_tokens)
            var p = s.evaluated
            let end = p + n
            s.tokens.withUnsafeBufferPointer { t in
                while p < end {
                    let off = p % bs, count = min(bs - off, end - p)
                    let block = s.table[p / bs]
                    if let chain = pool.record(block, at: off, parent: s.chain,
                                               tokens: UnsafeBufferPointer(rebasing: t[p..<p + count])) {
                        if promptCache != nil { persist(s, block: block, end: p + count, parent: s.chain, chain: chain, tokens: t) }
                        s.chain = chain
                    }
                    p += count
                }
            }
            s.evaluated = end
            guard s.pending == 0 else { continue }
            let rows = min(s.logitRows, n)
            s.logitRows = 1
            let block = UnsafeBufferPointer(rebasing: logits[logitIndex * vocabulary..<(logitIndex + rows) * vocabulary])
            logitIndex += rows
            act(on: s, logits: block, rows: rows)
        }
    }

    /// What a sequence does with the logits of its last `rows` tokens (one row, except for a
    /// caller verifying a run).
    private func act(on s: ScheduledSequence, logits: UnsafeBufferPointer<Float>, rows: Int) {
        switch s.driver {
        case .caller(let channel):
            let report = !s.prefillReported
            s.prefillReported = true
            channel.logits.update(from: logits.baseAddress!, count: logits.count)
            let prefill = s.prefill
            channel.state.withLockSignalling { state in
                if report { state.prefill = prefill }
                state.deliveredRows = rows
                state.logitsReady = true
            }
            lastDelivered.append(channel)
        case .sampling(let d):
            if !s.prefillReported {
                s.prefillReported = true
                d.ring.setPrefill(s.prefill)
            }
            if let outcome = sample(s, d, logits, rows: rows) { remove(s, reason: outcome.0, error: outcome.1) }
        }
    }

    /// The pipelined loop's order per token: cancelled? → sample → stop token? → emit → budget?
    /// Returns how the sequence ends, or nil when it goes on.
    ///
    /// After a speculated run, `rows` rows are read in order, each exactly as if its tokens had
    /// been stepped one by one: while the draw equals the proposal at that row, the next row is
    /// already computed; the first draw that differs (or a ring too full to take it) cuts the
    /// unconfirmed proposals from the sequence and its KV blocks.
    private func sample(_ s: ScheduledSequence, _ d: SamplingDriver, _ logits: UnsafeBufferPointer<Float>, rows: Int)
        -> (FinishReason?, EngineError?)?
    {
        let vocabulary = transformer.model.config.vocabularySize
        for i in 0..<rows {
            let row = UnsafeBufferPointer(rebasing: logits[i * vocabulary..<(i + 1) * vocabulary])
            if s.cancellation.isCancelled { return (.cancelled, nil) }
            if d.maxTokens == 0 { return (.maxTokens, nil) }
            guard let token = d.sampler.sample(row) else {
                return (nil, .invalidConfiguration("no token can be sampled: every logit is non-finite"))
            }
            if d.stopTokens.contains(token) { return (.stopToken(token), nil) }
            d.sampler.accept(token)
            let confirmed = i < d.outstanding.count && d.outstanding[i] == token
            if !confirmed { dropProposals(s, d, confirmed: i) }
            switch d.ring.offer(token) {
            case .none: return (.cancelled, nil)
            case .some(false):
                // The token waits outside the sequence until the consumer makes room.
                if confirmed { dropProposals(s, d, confirmed: i) }
                d.unsent = token
                return nil
            case .some(true):
                if confirmed {
                    // Already in the sequence and its KV blocks, and its successor's row is next.
                    d.generated += 1
                    d.lookup?.append(token)
                    if d.generated == d.maxTokens { return (.maxTokens, nil) }
                    continue
                }
                return afterEmit(s, d, token)
            }
        }
        return nil
    }

    /// Ends a verified run: proposals past the first `confirmed` leave the sequence and the KV
    /// pool, and the proposer learns how it did.
    private func dropProposals(_ s: ScheduledSequence, _ d: SamplingDriver, confirmed: Int) {
        guard !d.outstanding.isEmpty else { return }
        let rejected = d.outstanding.count - confirmed
        d.lookup?.record(proposed: d.outstanding.count, accepted: confirmed)
        d.outstanding.removeAll(keepingCapacity: true)
        guard rejected > 0 else { return }
        s.tokens.removeLast(rejected)
        truncate(s, to: s.evaluated - rejected)
    }

    /// After a token reached the consumer: end at the budget or a full context, else queue the
    /// token for evaluation, with the tokens prompt lookup proposes after it.
    private func afterEmit(_ s: ScheduledSequence, _ d: SamplingDriver, _ token: Int32) -> (FinishReason?, EngineError?)? {
        d.generated += 1
        if d.generated == d.maxTokens || s.evaluated == transformer.contextLength { return (.maxTokens, nil) }
        s.tokens.append(token)
        if d.lookup != nil {
            d.lookup!.append(token)
            guard running.count <= policy.speculationMaxSequences else { return nil }
            let room = min(d.maxTokens - d.generated, transformer.contextLength - s.tokens.count)
            d.lookup!.propose(limit: room, into: &d.outstanding)
            if !d.outstanding.isEmpty {
                s.tokens.append(contentsOf: d.outstanding)
                s.logitRows = 1 + d.outstanding.count
            }
        }
        return nil
    }

    /// Ends a running sequence found in this step.
    private func remove(_ s: ScheduledSequence, reason: FinishReason?, error: EngineError?) {
        if let i = running.firstIndex(where: { $0 === s }) { running.remove(at: i) }
        end(s, reason: reason, error: error)
    }

    /// Releases `s`'s blocks and tells its consumer or caller how it ended.
    func end(_ s: ScheduledSequence, reason: FinishReason?, error: EngineError?) {
        releaseBlocks(s)
        stats.completed += 1
        // Published before the consumer hears of the end, so it reads counters that include it.
        publishStatistics()
        switch s.driver {
        case .sampling(let d):
            if !s.prefillReported {
                s.prefillReported = true
                d.ring.setPrefill(s.prefill)
            }
            if let lookup = d.lookup {
                d.ring.setSpeculation(proposed: lookup.proposedTokens, accepted: lookup.acceptedTokens,
                                      runs: lookup.verifiedRuns)
            }
            // A cancelled pipelined stream ends quietly, as its consumer asked.
            d.ring.finish(error == nil || error == .cancelled ? (reason ?? .cancelled) : nil,
                          error: error == .cancelled ? nil : error)
        case .caller(let channel):
            channel.state.withLockSignalling { $0.ended = error ?? .cancelled }
        }
    }

    /// Whether a caller given logits in the last step has not answered yet.
    func callersStillThinking() -> Bool {
        lastDelivered.contains { channel in
            channel.state.withLock { $0.logitsReady && !$0.closed && $0.ended == nil }
        }
    }
}
