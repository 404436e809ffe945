/// Per-generation state of a grammar over a vocabulary: masks, token acceptance, rollback.
///
/// Call order for generation: `mask(into:)` → sample a token inside the mask → `accept(token:)`;
/// repeat until an end-of-generation token is accepted. `forcedBytes()` gives the only legal
/// continuation (for jump-forward), `rollback(_:)` undoes accepted tokens (speculative decoding,
/// prefix reuse). Not thread-safe: one matcher per generation; `fork()` shares the warmed-up
/// automaton with a new independent matcher.
public final class GrammarMatcher {
    /// The compiled grammar.
    public let grammar: Grammar
    /// The vocabulary masks are computed over.
    public let vocabulary: GrammarVocabulary
    let automaton: GrammarAutomaton
    private let cache: MaskCache
    /// Configuration after each accepted step; `history[0]` is the start. -3 marks termination.
    /// (Unchecked exclusivity: a matcher is used by one thread and never re-enters itself.)
    @exclusivity(unchecked) private var history: [Int32]
    /// Per-depth configuration scratch for the trie walk.
    private let walk: UnsafeMutablePointer<Int32>
    /// Mask-sized scratch buffers (string components; number slices).
    private let scratch: UnsafeMutablePointer<UInt64>
    private let sliceScratch: UnsafeMutablePointer<UInt64>
    /// Per-depth string states for `fillStringMask`.
    private let stringStates: UnsafeMutablePointer<StringWalkState>
    /// One trie subtree's bits while `fillStringMask` records it for the subtree memo.
    let subtreeScratch: UnsafeMutablePointer<UInt64>
    /// Per lane of `fillStringMasks`: its mask, and its per-depth string states.
    private let laneMasks: UnsafeMutablePointer<UInt64>
    private let laneStates: UnsafeMutablePointer<StringWalkState>
    /// Isolated string frames walked together at most.
    static let maxLanes = 8
    /// Masks whose string frames together took every string (tests read it to see the shortcut taken).
    private(set) var jointPlainMasks = 0
    /// Masks whose string frames were walked as one joined pattern (tests read it too).
    private(set) var unionMasks = 0
    /// Masks whose string frames were all covered by one without a pattern that can die (likewise).
    private(set) var plainCoverMasks = 0

    static let terminated: Int32 = -3


    /// A matcher at the start of the grammar.
    public convenience init(grammar: Grammar, vocabulary: GrammarVocabulary) {
        self.init(grammar: grammar, vocabulary: vocabulary, automaton: GrammarAutomaton(grammar),
                  cache: MaskCache(words: vocabulary.maskWordCount))
    }

    init(grammar: Grammar, vocabulary: GrammarVocabulary, automaton: GrammarAutomaton, cache: MaskCache) {
        self.grammar = grammar
        self.vocabulary = vocabulary
        self.automaton = automaton
        self.cache = cache
        history = [automaton.start]
        automaton.isolationTokenBytes = vocabulary.maxTokenLength
        history.reserveCapacity(1024)
        walk = .allocate(capacity: vocabulary.maxTokenLength + 2)
        scratch = .allocate(capacity: vocabulary.maskWordCount)
        scratch.initialize(repeating: 0, count: vocabulary.maskWordCount)
        sliceScratch = .allocate(capacity: vocabulary.maskWordCount)
        stringStates = .allocate(capacity: vocabulary.maxTokenLength + 2)
        stringStates.initialize(repeating: StringWalkState(), count: vocabulary.maxTokenLength + 2)
        sliceScratch.initialize(repeating: 0, count: vocabulary.maskWordCount)
        subtreeScratch = .allocate(capacity: vocabulary.trie.tokenCount / 64 + 1)
        laneMasks = .allocate(capacity: GrammarMatcher.maxLanes * vocabulary.maskWordCount)
        laneStates = .allocate(capacity: GrammarMatcher.maxLanes * (vocabulary.maxTokenLength + 2))
        laneStates.initialize(repeating: StringWalkState(), count: GrammarMatcher.maxLanes * (vocabulary.maxTokenLength + 2))
    }

    deinit {
        walk.deallocate()
        scratch.deallocate()
        sliceScratch.deallocate()
        stringStates.deallocate()
        subtreeScratch.deallocate()
        laneMasks.deallocate()
        laneStates.deallocate()
    }

    /// A new matcher in the same state that shares this one's caches (not thread-safe together).
    public func fork() -> GrammarMatcher {
        let m = GrammarMatcher(grammar: grammar, vocabulary: vocabulary, automaton: automaton, cache: cache)
        m.history = history
        return m
    }

    /// Approximate bytes of what this matcher has learned about its grammar (automaton
    /// configurations and cached masks, shared with its forks): what keeping it warm costs.
    public var retainedBytes: Int { automaton.retainedBytes + cache.retainedBytes }

    /// Number of `UInt64` words `mask(into:)` writes.
    public var maskWordCount: Int { vocabulary.maskWordCount }

    var current: Int32 { history[history.count - 1] }

    /// True when the output so far is a complete sentence (end-of-generation is allowed).
    public var isComplete: Bool {
        let c = current
        return c >= 0 && automaton.cfgAccept[Int(c)]
    }

    /// True once an end-of-generation token has been accepted.
    public var isTerminated: Bool { current == GrammarMatcher.terminated }

    /// True when the matcher can still accept something (not dead and not terminated).
    public var isLive: Bool { current >= 0 }

    /// Number of accepted steps (tokens or byte strings) that `rollback` can undo.
    public var acceptedCount: Int { history.count - 1 }

    /// Writes the allowed-token mask: bit `i % 64` of word `i / 64` is set iff token `i` may come next.
    ///
    /// `buffer` must hold at least `maskWordCount` words. (A buffer, not a bare pointer: an
    /// array passed as `&array` would silently convert to a pointer and be overrun when short;
    /// arrays take the `inout [UInt64]` overload, which sizes them.)
    public func mask(into buffer: UnsafeMutableBufferPointer<UInt64>) {
        let words = vocabulary.maskWordCount
        precondition(buffer.count >= words, "mask buffer shorter than maskWordCount")
        let out = buffer.baseAddress!
        let c = current
        guard c >= 0 else {
            out.initialize(repeating: 0, count: words)
            return
        }
        body(c, out)
        if automaton.cfgAccept[Int(c)] {
            for t in vocabulary.endOfGeneration { out[t >> 6] |= 1 << UInt64(t & 63) }
        }
    }

    /// The tokens allowed from configuration `c` (cached; end-of-generation bits excluded).
    private func body(_ c: Int32, _ out: UnsafeMutablePointer<UInt64>) {
        let words = vocabulary.maskWordCount
        if let cached = cache.lookup(c) {
            out.update(from: cached, count: words)
            return
        }
        let slice = automaton.numberSlice(c, maxNumberTokenBytes: vocabulary.numberTrie.maxDepth)
        if slice >= 0 {
            // A union over stacks: the unsliced ones together, then each number frame.
            let s = automaton.numberSlices[Int(slice)]
            if s.rest >= 0 { body(s.rest, out) } else { out.initialize(repeating: 0, count: words) }
            for p in s.parts {
                numberMask(p.isolated, p.alone, sliceScratch)
                for w in 0..<words { out[w] |= sliceScratch[w] }
            }
        } else {
            let iso = automaton.isolatedString(c)
            if iso >= 0 {
                // Inside a JSON string: tokens without `"` cannot leave it, so their validity depends only
                // on the string's own state — a mask cached per string state, shared by every context.
                mask(of: iso, into: out)
                fillMask(c, out, vocabulary.quoteTrie)
            } else {
                out.initialize(repeating: 0, count: words)
                fillMask(c, out, vocabulary.trie)
            }
        }
        cache.store(c, out)
    }

    /// The mask of a lone number stack (`alone`): the tokens of number bytes its frame takes by
    /// itself (`isolated`, shared by every context), plus the other tokens walked in context.
    private func numberMask(_ isolated: Int32, _ alone: Int32, _ out: UnsafeMutablePointer<UInt64>) {
        let words = vocabulary.maskWordCount
        if let cached = cache.lookup(alone) {
            out.update(from: cached, count: words)
            return
        }
        if let cached = cache.lookup(isolated) {
            out.update(from: cached, count: words)
        } else {
            out.initialize(repeating: 0, count: words)
            if let frame = automaton.isolatedNumberFrame(isolated) {
                fillNumberMask(frame.spec, frame.state, out, vocabulary.numberTrie)
            } else {
                fillMask(isolated, out, vocabulary.numberTrie)
            }
            cache.store(isolated, out)
        }
        fillMask(alone, out, vocabulary.nonNumberTrie)
        cache.store(alone, out)
    }

    /// When the string frames among `parts` together take every string (`JointStringLiveness`),
    /// writes their union — the plain string's mask, shared by every grammar over this vocabulary
    /// — and the other parts' masks into `out` (zeroed by the caller) and returns true.
    private func jointPlainMask(_ parts: [(part: Int32, frame: (spec: StringWalkSpec, state: StringWalkState)?)],
                                _ out: UnsafeMutablePointer<UInt64>) -> Bool {
        let frames = parts.compactMap(\.frame)
        let others = parts.filter { $0.frame == nil }.map(\.part)
        guard !frames.isEmpty, let plain = plainKey(frames), JointStringLiveness.isUniversal(frames) else { return false }
        jointPlainMasks += 1
        let words = vocabulary.maskWordCount
        if !vocabulary.sharedStringMasks.copy(plain.key, into: out) {
            fillStringMask(plain.spec, plain.state, out, vocabulary.trie, stringStates)
            vocabulary.sharedStringMasks.store(plain.key, out, words: words)
        }
        for p in others {
            mask(of: p, into: scratch)
            for w in 0..<words { out[w] |= scratch[w] }
        }
        return true
    }

    /// For string frames that stand at the same place (every field of their states but the
    /// patterns' and the length agree, and no `maxLength` is within a token's reach), the plain
    /// string at that place: its walk spec and state, and its key in the shared masks (the
    /// `sharedKey` layout). nil when the frames differ.
    private func plainKey(_ frames: [(spec: StringWalkSpec, state: StringWalkState)]) -> (key: [Int32], spec: StringWalkSpec, state: StringWalkState)? {
        guard let f = frames.first else { return nil }
        let s = f.state
        for g in frames {
            let t = g.state
            guard t.phase == s.phase, t.need == s.need, t.lo == s.lo, t.hi == s.hi, t.hexCount == s.hexCount,
                  t.hex == s.hex, t.high == s.high, g.spec.tracksValue == f.spec.tracksValue else { return nil }
            guard GrammarAutomaton.lengthOutOfReach(maxLength: Int(g.spec.maxLength), length: Int(t.length),
                                                    maxTokenBytes: vocabulary.maxTokenLength) else { return nil }
        }
        var spec = StringWalkSpec()
        spec.tracksValue = f.spec.tracksValue
        var state = s
        state.length = 0
        state.dfa = SIMD4(repeating: 0)
        let key = GrammarAutomaton.plainStringKey(s.placeSlots, budget: -1, tracksValue: f.spec.tracksValue)
        return (key, spec, state)
    }

    /// The mask of an isolated string configuration `c` (cached), without end-of-generation bits.
    private func mask(of c: Int32, into out: UnsafeMutablePointer<UInt64>) {
        if let cached = cache.lookup(c) {
            out.update(from: cached, count: vocabulary.maskWordCount)
            return
        }
        let parts = automaton.isolatedComponents(c)
        if !parts.isEmpty {
            // A token that stays inside is valid iff it is valid for one of the frames (a key's
            // alternatives: property names, patterns, "any other name"). In order: a frame that
            // covers the others, frames that together take every string, frames walked once as
            // their joined pattern, and frames walked together, each keeping its own mask.
            let words = vocabulary.maskWordCount
            out.initialize(repeating: 0, count: words)
            if let covered = automaton.coveringPlainPart(parts, maxTokenBytes: vocabulary.maxTokenLength) {
                plainCoverMasks += 1
                for p in [covered.cover] + covered.others {
                    mask(of: p, into: scratch)
                    for w in 0..<words { out[w] |= scratch[w] }
                }
                cache.store(c, out)
                return
            }
            let framed = parts.map { (part: $0, frame: automaton.isolatedStringFrame($0)) }
            if jointPlainMask(framed, out) {
                cache.store(c, out)
                return
            }
            var together: [(part: Int32, frame: (spec: StringWalkSpec, state: StringWalkState))] = []
            for (p, frame) in framed {
                if together.count < GrammarMatcher.maxLanes, let frame, cache.lookup(p) == nil,
                   automaton.lengthBudgetSplit(p, maxTokenBytes: vocabulary.maxTokenLength) == nil,
                   automaton.sharedKey(p, maxTokenBytes: vocabulary.maxTokenLength) == nil {
                    together.append((p, frame))
                    continue
                }
                mask(of: p, into: scratch)
                for w in 0..<words { out[w] |= scratch[w] }
            }
            if together.count == 1 {
                mask(of: together[0].part, into: scratch)
                for w in 0..<words { out[w] |= scratch[w] }
            } else if together.count > 1, plainKey(together.map(\.frame)) != nil,
                      let union = automaton.unionFrame(together.map(\.frame)) {
                // One walk of the joined pattern, which the subtree memo serves like any other.
                scratch.initialize(repeating: 0, count: words)
                fillStringMask(union.spec, union.state, scratch, vocabulary.trie, stringStates, memo: automaton.stringSubtrees)
                for w in 0..<words { out[w] |= scratch[w] }
                unionMasks += 1
            } else if together.count > 1 {
                let lanes = laneMasks
                lanes.initialize(repeating: 0, count: together.count * words)
                fillStringMasks(together.map(\.frame), lanes, vocabulary.trie, laneStates)
                for (k, t) in together.enumerated() {
                    let lane = lanes + k * words
                    cache.store(t.part, lane)
                    for w in 0..<words { out[w] |= lane[w] }
                }
            }
            cache.store(c, out)
            return
        }
        if let split = automaton.lengthBudgetSplit(c, maxTokenBytes: vocabulary.maxTokenLength) {
            // Each remaining length would otherwise walk the whole trie afresh: one unbounded mask
            // per string state, cut to the budget by the tokens' character counts.
            mask(of: split.unbounded, into: out)
            vocabulary.stringBudgets.restrict(out, toBudget: split.budget, tracksValue: split.tracksValue)
            cache.store(c, out)
            return
        }
        let key = automaton.sharedKey(c, maxTokenBytes: vocabulary.maxTokenLength)
        if let key, vocabulary.sharedStringMasks.copy(key, into: out) {
            cache.store(c, out)
            return
        }
        out.initialize(repeating: 0, count: vocabulary.maskWordCount)
        if let frame = automaton.isolatedStringFrame(c) {
            fillStringMask(frame.spec, frame.state, out, vocabulary.trie, stringStates, memo: automaton.stringSubtrees)
        } else if let literal = automaton.isolatedLiteral(c) {
            vocabulary.trie.setProperPrefixTokens(of: literal, in: out)
        } else {
            fillMask(c, out, vocabulary.trie)
        }
        cache.store(c, out)
        if let key { vocabulary.sharedStringMasks.store(key, out, words: vocabulary.maskWordCount) }
    }

    /// A one-line summary of the current state (for diagnostics; not a stable format).
    public var debugSummary: String {
        let c = current
        guard c >= 0 else { return "dead" }
        let ready = automaton.cfgReady[Int(c)]
        return "cfgs \(automaton.configurationCount) cfg \(c) ready \(ready.count) iso \(automaton.isolatedString(c)) top: " + (ready.first.map { automaton.describe($0) } ?? "-")
    }

    /// Writes the mask into an array (resized to `maskWordCount`).
    public func mask(into out: inout [UInt64]) {
        if out.count != maskWordCount { out = Array(repeating: 0, count: maskWordCount) }
        out.withUnsafeMutableBufferPointer { mask(into: $0) }
    }

    /// Walks the token trie from configuration `c`, skipping each subtree whose prefix is rejected.
    private func fillMask(_ c: Int32, _ out: UnsafeMutablePointer<UInt64>, _ trie: TokenTrie) {
        let n = trie.nodeCount
        let byte = trie.byte, depth = trie.depth, skip = trie.skip
        let at = walk
        at[0] = c
        let trans = automaton.trans
        var i = 0
        while i < n {
            let d = Int(depth[i])
            let parent = at[d - 1]
            let b = byte[i]
            var nx = trans[Int(parent) &* 256 &+ Int(b)]
            if nx == -2 {
                nx = automaton.step(parent, b)
            }
            if nx < 0 {
                i = Int(skip[i])
                continue
            }
            at[d] = nx
            trie.setTokens(of: i, in: out)
            i += 1
        }
    }

    /// True when `token` is allowed next (the same decision the mask encodes).
    public func isAllowed(token: Int) -> Bool {
        let c = current
        guard c >= 0, token >= 0, token < vocabulary.size else { return false }
        if vocabulary.isEndOfGeneration(token) { return automaton.cfgAccept[Int(c)] }
        return state(after: token, from: c) != nil
    }

    /// The configuration after `token`'s bytes from `c`; nil when a byte is rejected or the token
    /// has no bytes (a control token, never allowed by a mask).
    @inline(__always)
    private func state(after token: Int, from c: Int32) -> Int32? {
        let a = Int(vocabulary.tokenOffsets[token]), b = Int(vocabulary.tokenOffsets[token + 1])
        if a == b { return nil }
        var s = c
        for k in a..<b {
            s = automaton.next(s, vocabulary.tokenBytes[k])
            if s < 0 { return nil }
        }
        return s
    }

    /// Advances by one token; false (state unchanged) when the token is not allowed.
    @discardableResult
    public func accept(token: Int) -> Bool {
        let c = current
        guard c >= 0, token >= 0, token < vocabulary.size else { return false }
        if vocabulary.isEndOfGeneration(token) {
            guard automaton.cfgAccept[Int(c)] else { return false }
            history.append(GrammarMatcher.terminated)
            return true
        }
        guard let s = state(after: token, from: c) else { return false }
        history.append(s)
        return true
    }

    /// Advances by a byte string as one step (jump-forward text); false (state unchanged) if rejected.
    @discardableResult
    public func accept(bytes: [UInt8]) -> Bool {
        let c = current
        guard c >= 0 else { return false }
        let s = automaton.run(c, bytes)
        if s < 0 { return false }
        history.append(s)
        return true
    }

    /// Undoes the last `k` accepted steps (clamped to what was accepted).
    public func rollback(_ k: Int) {
        let n = min(max(k, 0), history.count - 1)
        history.removeLast(n)
    }

    /// Back to the start of the grammar.
    public func reset() { history.removeLast(history.count - 1) }

    /// The bytes that must come next whatever is sampled: the longest string such that every
    /// byte is the only one allowed and the grammar is not complete before it.
    public func forcedBytes(limit: Int = 256) -> [UInt8] {
        var out: [UInt8] = []
        var c = current
        while c >= 0, out.count < limit, !automaton.cfgAccept[Int(c)] {
            var only: Int = -1
            var next: Int32 = -1
            for b in 0..<256 {
                let t = automaton.next(c, UInt8(b))
                if t >= 0 {
                    if only >= 0 { only = -2; break }
                    only = b
                    next = t
                }
            }
            guard only >= 0 else { break }
            out.append(UInt8(only))
            c = next
        }
        return out
    }
}
