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
            logits = try transformer.forward(batch: batch, pool: pool, localPool: localPool)
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

    /// What admission reuses for a sequence: full blocks to share, a cached block to copy where
    /// the prompt diverges inside it, and with a local pool the local layers' blocks of the
    /// window before the first position to evaluate.
    struct Reuse {
        /// Shared full blocks (of `pool`), in order from position 0.
        var shared: [Int32]
        /// Prefix hash after the shared blocks.
        var hash: UInt64
        /// A cached block whose leading `count` positions continue the prefix.
        var partial: (block: Int32, count: Int)?
        /// First logical block the local layers need (the others lie behind the window).
        var localFirst = 0
        /// Local-pool blocks of logical blocks `localFirst..<shared.count`.
        var localShared: [Int32] = []
        /// The local-pool block to copy `partial.count` positions from.
        var localPartial: Int32?
    }

    /// The longest reusable prefix of `s` (all but its last token): the pool's lookup, and with
    /// a local pool cut back to the longest prefix whose window the local pool also holds.
    private func reuse(for s: ScheduledSequence) -> Reuse {
        s.tokens.withUnsafeBufferPointer { t in
            let found = pool.lookup(t, limit: s.reusesPrefix ? t.count - 1 : 0)
            guard let local = localPool else { return Reuse(shared: found.shared, hash: found.hash, partial: found.partial) }
            let bs = policy.blockSize
            func chunk(_ k: Int) -> UnsafeBufferPointer<Int32> { UnsafeBufferPointer(rebasing: t[k * bs..<(k + 1) * bs]) }
            var hashes = [KVBlockPool.rootHash]
            for k in 0..<found.shared.count { hashes.append(KVBlockPool.hash(hashes[k], chunk(k))) }
            var blocks = found.shared.count, partial = found.partial
            while true {
                let end = blocks * bs + (partial?.count ?? 0)
                let first = max(0, end - (window - 1)) / bs
                var held: [Int32] = []
                var complete = true
                for k in first..<blocks {
                    guard let b = local.fullBlock(hash: hashes[k + 1], parent: hashes[k], holding: chunk(k)) else {
                        complete = false
                        break
                    }
                    held.append(b)
                }
                var localPartial: Int32?
                if complete, let p = partial {
                    let head = UnsafeBufferPointer(rebasing: t[blocks * bs..<blocks * bs + p.count])
                    if let c = local.partialBlock(after: hashes[blocks], matching: head), c.count >= p.count {
                        localPartial = c.block
                    } else {
                        complete = false
                    }
                }
                if complete {
                    return Reuse(shared: Array(found.shared.prefix(blocks)), hash: hashes[blocks], partial: partial,
                                 localFirst: first, localShared: held, localPartial: localPartial)
                }
                // The local pool gave up part of that window: try the previous block boundary.
                if partial != nil { partial = nil } else { blocks -= 1 }
            }
        }
    }

    /// The reusable prefix of `s` when the pools can also give the blocks it needs beyond it to
    /// evaluate all its tokens and one more; nil when they cannot now.
    private func admission(for s: ScheduledSequence) -> Reuse? {
        let found = reuse(for: s)
        let positions = min(s.tokens.count + 1, transformer.contextLength)
        let blocks = (positions + policy.blockSize - 1) / policy.blockSize
        // Shared blocks nobody holds are cached: holding them takes them out of the free space.
        let revived = found.shared.reduce(0) { $0 + (pool.owners(of: $1) == 0 ? 1 : 0) }
        guard pool.availableBlocks >= blocks - found.shared.count + revived else { return nil }
        if let local = localPool {
            let fresh = max(0, min(blocks - found.localFirst, localBlocksPerSequence) - found.localShared.count)
            let revived = found.localShared.reduce(0) { $0 + (local.owners(of: $1) == 0 ? 1 : 0) }
            guard local.availableBlocks >= fresh + revived else { return nil }
        }
        return found
    }

    /// Gives `s` its reusable prefix (shared blocks, a copied partial block) and positions it
    /// after it; false when the pool cannot hold the rest of its tokens now.
    private func admit(_ s: ScheduledSequence) -> Bool {
        guard let found = admission(for: s) else { return false }
        take(found, into: s)
        return true
    }

    /// Makes `s` (holding no blocks) hold `found`.
    private func take(_ found: Reuse, into s: ScheduledSequence) {
        let bs = policy.blockSize
        for b in found.shared {
            pool.retain(b)
            s.table[s.blockCount] = b
            s.blockCount += 1
        }
        if let local = localPool {
            s.localFirst = found.localFirst
            for (i, b) in found.localShared.enumerated() {
                local.retain(b)
                s.localTable[found.localFirst + i] = b
            }
        }
        s.chain = found.hash
        var reused = found.shared.count * bs
        if let partial = found.partial, let fresh = pool.allocate() {
            var localFresh: Int32?
            if let local = localPool {
                localFresh = local.allocate()
                if localFresh == nil { pool.release(fresh) }
            }
            if localPool == nil || localFresh != nil {
                pool.copy(partial.block, into: fresh, count: partial.count)
                if let local = localPool, let lf = localFresh, let source = found.localPartial {
                    local.copy(source, into: lf, count: partial.count)
                    s.localTable[s.blockCount] = lf
                }
                s.table[s.blockCount] = fresh
                s.blockCount += 1
                let parent = s.chain
                s.tokens.withUnsafeBufferPointer { t in
                    let head = UnsafeBufferPointer(rebasing: t[reused..<reused + partial.count])
                    if let chain = pool.record(fresh, at: 0, parent: parent, tokens: head) { s.chain = chain }
                    if let local = localPool, let lf = localFresh { local.record(lf, at: 0, parent: parent, tokens: head) }
                }
                reused += partial.count
            }
        }
        if localPool != nil, max(0, reused - (window - 1)) / bs < s.localFirst {
            // No block for the partial copy (admission counted one, so this does not happen):
            // the shorter prefix needs local blocks the lookup did not take; start over.
            releaseBlocks(s)
            reused = 0
        }
        pool.noteLookup(reused: reused)
        s.evaluated = reused
        if !s.prefillReported {
            let fromPrompt = min(reused, s.promptLength)
            s.prefill = PrefillResult(cachedTokenCount: fromPrompt, evaluatedTokenCount: s.promptLength - fromPrompt,
                                      restoredTokenCount: fromPrompt)
        }
    }

    /// Gives `s` blocks for positions below `end`; false when a pool has none left.
    private func ensureBlocks(_ s: ScheduledSequence, through end: Int) -> Bool {
        while s.blockCount * policy.blockSize < end {
            guard let b = pool.allocate() else { return false }
            if let local = localPool {
                guard let lb = local.allocate() else {
                    pool.release(b)
                    return false
                }
                s.localTable[s.blockCount] = lb
            }
            s.table[s.blockCount] = b
            s.blockCount += 1
        }
        return true
    }

    /// Frees every block of `s` (their content stays cached) and forgets its positions.
    private func releaseBlocks(_ s: ScheduledSequence) {
        for i in 0..<s.blockCount { pool.release(s.table[i]) }
        if let local = localPool {
            for i in s.localFirst..<max(s.localFirst, s.blockCount) where s.localTable[i] >= 0 {
                local.release(s.localTable[i])
                s.localTable[i] = -1
            }
            s.localFirst = 0
        }
        s.blockCount = 0
        s.evaluated = 0
        s.chain = KVBlockPool.rootHash
    }

    /// Gives back the local-layer blocks of `s` wholly behind its window and rollback margin:
    /// no query of the sequence reads them again. They stay cached (indexed), so a prompt whose
    /// window falls there can still find them until the space is needed.
    private func releaseBehindWindow(_ s: ScheduledSequence) {
        guard let local = localPool else { return }
        let keepFrom = min(max(0, s.evaluated - (window - 1) - rollbackMargin) / policy.blockSize, s.blockCount)
        while s.localFirst < keepFrom {
            let b = s.localTable[s.localFirst]
            if b >= 0 { local.release(b) }
            s.localTable[s.localFirst] = -1
            s.localFirst += 1
        }
    }

    /// Forgets positions `n...` of `s`: whole blocks past `n` go back to the pool, and the block
    /// holding `n` is cut — or, when another sequence shares it, given back and its kept
    /// positions evaluated again. A rollback deeper than the local layers' margin finds its
    /// prefix again as admission does (cached blocks) and recomputes the rest.
    private func truncate(_ s: ScheduledSequence, to n: Int) {
        guard n < s.evaluated else { return }
        let bs = policy.blockSize
        let keep = (n + bs - 1) / bs
        while s.blockCount > keep {
            s.blockCount -= 1
            pool.release(s.table[s.blockCount])
            if let local = localPool, s.blockCount >= s.localFirst {
                local.release(s.localTable[s.blockCount])
                s.localTable[s.blockCount] = -1
            }
        }
        s.localFirst = min(s.localFirst, s.blockCount)
        let full = n / bs
        s.evaluated = n
        if n % bs != 0 {
            let last = s.table[keep - 1]
            let localLast: Int32 = localPool != nil && keep - 1 >= s.localFirst ? s.localTable[keep - 1] : -1
            if pool.owners(of: last) > 1 || (localLast >= 0 && localPool!.owners(of: localLast) > 1) {
                s.blockCount -= 1
                pool.release(last)
                if localLast >= 0 {
                    localPool!.release(localLast)
                    s.localTable[keep - 1] = -1
                }
                s.localFirst = min(s.localFirst, s.blockCount)
                s.evaluated = full * bs
            } else {
                pool.truncate(last, to: n % bs)
                if localLast >= 0 { localPool!.truncate(localLast, to: n % bs) }
            }
        }
        s.chain = KVBlockPool.rootHash
        s.tokens.withUnsafeBufferPointer { t in
            for b in 0..<full {
                s.chain = KVBlockPool.hash(s.chain, UnsafeBufferPointer(rebasing: t[b * bs..<(b + 1) * bs]))
            }
        }
        if localPool != nil, s.evaluated > 0, max(0, s.evaluated - (window - 1)) / bs < s.localFirst {
            releaseBlocks(s)
            if let found = admission(for: s) { take(found, into: s) }
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
        // While every running sequence is still reading its prompt, nobody waits on this step
        // but the prompts themselves: they may take the rows decoding would (each sequence keeps
        // one row outside the budget).
        let burst = !running.contains { !$0.inPrompt }
        if burst { budget = policy.rowsPerStep - running.count }
        for (i, s) in running.enumerated() {
            plannedRows[i] = 0
            guard isRunnable(s) else { continue }
            // A rollback into the prompt leaves fewer pending tokens than the prompt's rest.
            var n = s.inPrompt ? min(policy.prefillChunk, s.promptLength - s.evaluated, s.pending)
                               : min(s.pending, policy.prefillChunk)
            // A run recomputed after preemption may span steps: its last step must still hold
            // every row whose logits the caller asked for.
            if !s.inPrompt, s.pending > n, s.pending - n < s.logitRows { n = s.pending - s.logitRows }
            if n > 1 {
                guard budget >= n else { continue }
                budget -= n
            }
            if burst, s.inPrompt, n == policy.prefillChunk {
                // As many more whole chunks as the budget and the prompt hold, each a segment cut
                // exactly as in a step of its own.
                let more = min(budget, min(s.promptLength - s.evaluated, s.pending) - n) / n * n
                n += more
                budget -= more
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

    /// How `rows` rows of `s` are evaluated this step. Only prompt chunks are tiled or take the
    /// prompt path: they are cut the same way whatever else runs, while a generated run's length
    /// depends on what the sampler or proposer chose, and its rows must get the bits one row at a
    /// time would.
    private func segmentKind(_ s: ScheduledSequence, rows: Int) -> StepBatch.SegmentKind {
        guard s.inPrompt, rows >= tiledAttentionRows else { return .untiled }
        return rows >= promptPathRows ? .promptPath : .tiled
    }

    /// Fills the step's rows: fused segments with one-query attention, fused prompt chunks with
    /// tiled attention, then prompt-path chunks.
    private func buildBatch() {
        batch.reset()
        // Kinds by raw value: a literal array of them would be built every step.
        for raw in StepBatch.SegmentKind.untiled.rawValue...StepBatch.SegmentKind.promptPath.rawValue {
            let pass = StepBatch.SegmentKind(rawValue: raw)!
            for (i, s) in running.enumerated() {
                let planned = plannedRows[i]
                // Several chunks of a prompt (planned only whole) are a segment each, all of one kind.
                let chunk = s.inPrompt ? min(planned, policy.prefillChunk) : planned
                guard planned > 0, segmentKind(s, rows: chunk) == pass else { continue }
                for start in stride(from: s.evaluated, to: s.evaluated + planned, by: chunk) {
                    addSegment(s, start: start, count: chunk, kind: pass)
                }
            }
        }
        stats.steps += 1
        stats.rows += batch.rowCount
        var sequences = 0
        for i in 0..<running.count where plannedRows[i] > 0 { sequences += 1 }
        stats.maxSequencesInStep = max(stats.maxSequencesInStep, sequences)
    }

    /// Rows `start ..< start + count` of `s` as one segment of the step.
    private func addSegment(_ s: ScheduledSequence, start: Int, count n: Int, kind: StepBatch.SegmentKind) {
        let seg = batch.addSegment(start: start, count: n, table: s.table, localTable: localPool == nil ? nil : s.localTable,
                                   kind: kind)
        stepSequences[seg] = s
        if start < s.promptLength { stats.promptRows += n }
        if kind == .promptPath { stats.promptPathRows += n }
        let row0 = Int(batch.segments[seg].row)
        let bs = policy.blockSize
        for j in 0..<n {
            let p = start + j
            batch.tokens[row0 + j] = s.tokens[p]
            batch.positions[row0 + j] = Int32(p)
            batch.kvRows[row0 + j] = s.table[p / bs] * Int32(bs) + Int32(p % bs)
            batch.localKVRows[row0 + j] = s.localTable[p / bs] * Int32(bs) + Int32(p % bs)
        }
        if start + n == s.tokens.count { batch.requestLogits(segment: seg, lastRows: min(s.logitRows, n)) }
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
                    let parent = s.chain, written = UnsafeBufferPointer(rebasing: t[p..<p + count])
                    if let chain = pool.record(block, at: off, parent: parent, tokens: written) {
                        if promptCache != nil { persist(s, block: block, end: p + count, parent: parent, chain: chain, tokens: t) }
                        s.chain = chain
                    }
                    localPool?.record(s.localTable[p / bs], at: off, parent: parent, tokens: written)
                    p += count
                }
            }
            s.evaluated = end
            releaseBehindWindow(s)
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
            // A sequence that ends inside a verified run still reports the run: its first i
            // proposals were confirmed.
            if s.cancellation.isCancelled { return endRun(d, confirmed: i, (.cancelled, nil)) }
            if d.maxTokens == 0 { return (.maxTokens, nil) }
            guard let token = d.sampler.sample(row) else {
                return endRun(d, confirmed: i, (nil, .invalidConfiguration("no token can be sampled: every logit is non-finite")))
            }
            if d.stopTokens.contains(token) { return endRun(d, confirmed: i, (.stopToken(token), nil)) }
            d.sampler.accept(token)
            let confirmed = i < d.outstanding.count && d.outstanding[i] == token
            if !confirmed { dropProposals(s, d, confirmed: i) }
            switch d.ring.offer(token) {
            case .none: return endRun(d, confirmed: i, (.cancelled, nil))
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
                    if d.generated == d.maxTokens { return endRun(d, confirmed: i + 1, (.maxTokens, nil)) }
                    continue
                }
                return afterEmit(s, d, token)
            }
        }
        return nil
    }

    /// Reports a verified run cut short by the sequence's end (its tokens and blocks go with the
    /// sequence), and passes `outcome` through.
    private func endRun(_ d: SamplingDriver, confirmed: Int, _ outcome: (FinishReason?, EngineError?))
        -> (FinishReason?, EngineError?)
    {
        recordRun(d, confirmed: confirmed)
        return outcome
    }

    /// Ends a verified run: proposals past the first `confirmed` leave the sequence and the KV
    /// pool, and the proposer learns how it did.
    private func dropProposals(_ s: ScheduledSequence, _ d: SamplingDriver, confirmed: Int) {
        let rejected = d.outstanding.count - confirmed
        guard recordRun(d, confirmed: confirmed), rejected > 0 else { return }
        s.tokens.removeLast(rejected)
        truncate(s, to: s.evaluated - rejected)
    }

    /// Tells the proposer how the outstanding run did and clears it; false when there was none.
    @discardableResult
    private func recordRun(_ d: SamplingDriver, confirmed: Int) -> Bool {
        guard !d.outstanding.isEmpty else { return false }
        d.lookup?.record(proposed: d.outstanding.count, accepted: confirmed)
        d.outstanding.removeAll(keepingCapacity: true)
        return true
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
