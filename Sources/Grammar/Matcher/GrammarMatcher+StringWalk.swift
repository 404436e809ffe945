import LoomJSON

/// The trie walk for a lone JSON string frame, with the string's state unpacked into a few
/// integers instead of interned configurations.
///
/// Inside a string with a length counter or a pattern, nearly every token leads to a new state, and
/// the generic walk interned a configuration for each trie node it visited (thousands per mask).
/// Isolated (over the sentinel) a string frame can never close, so its walk needs no parser at
/// all: this mirrors `stringConsume` byte for byte on a value type, with the patterns' transition
/// tables read in place, and allocates nothing.
struct StringWalkState {
    var phase: Int32 = 0, need: Int32 = 0, lo: Int32 = 0, hi: Int32 = 0
    var hexCount: Int32 = 0, hex: Int32 = 0, high: Int32 = 0, length: Int32 = 0
    /// The patterns' states (the first `StringWalkSpec.dfaCount` lanes).
    var dfa = SIMD4<Int32>(repeating: 0)
}

/// What the walk needs of a `StringSpec`: bounds and up to four pattern tables.
struct StringWalkSpec {
    var minLength: Int32 = 0
    var maxLength: Int32 = -1
    var dfaCount = 0
    /// `StringSpec.tracksValue`: `\u` escapes are decoded, and a surrogate pair counts once.
    var tracksValue = false
    var tables: (UnsafePointer<Int32>?, UnsafePointer<Int32>?, UnsafePointer<Int32>?, UnsafePointer<Int32>?) = (nil, nil, nil, nil)
    /// The grammar's ids of those patterns (-1 past `dfaCount`).
    var dfaIds = SIMD4<Int32>(repeating: -1)
    /// The first pattern's `GrammarAutomaton.dfaLoops`, when there is one pattern and it is known.
    var firstLoops: UnsafePointer<UInt16>?

    static let maxDFAs = 4

    @inline(__always) func table(_ k: Int) -> UnsafePointer<Int32> {
        switch k {
        case 0: return tables.0!
        case 1: return tables.1!
        case 2: return tables.2!
        default: return tables.3!
        }
    }
}

/// How a string walk advances its patterns' states by one byte; false when a pattern dies.
protocol StringPatternFeed {
    func feed(_ states: inout SIMD4<Int32>, _ b: UInt8) -> Bool
    /// The `ByteRunClass` classes on which every pattern stays in its state (0 when unknown).
    func selfLoops(_ states: SIMD4<Int32>) -> UInt16
}

/// A string without constraining patterns.
struct NoPatterns: StringPatternFeed {
    @inline(__always) func feed(_ states: inout SIMD4<Int32>, _ b: UInt8) -> Bool { true }
    @inline(__always) func selfLoops(_ states: SIMD4<Int32>) -> UInt16 { ByteRunClass.runnable }
}

/// One pattern, its table held directly (the common case: a `pattern` or a `format`).
struct OnePattern: StringPatternFeed {
    let table: UnsafePointer<Int32>
    let loops: UnsafePointer<UInt16>?
    @inline(__always) func feed(_ states: inout SIMD4<Int32>, _ b: UInt8) -> Bool {
        let t = table[Int(states[0]) &* 256 &+ Int(b)]
        states[0] = t
        return t >= 0
    }
    @inline(__always) func selfLoops(_ states: SIMD4<Int32>) -> UInt16 { loops?[Int(states[0])] ?? 0 }
}

/// Any number of patterns (up to `StringWalkSpec.maxDFAs`), read from the spec.
struct SpecPatterns: StringPatternFeed {
    let spec: StringWalkSpec
    @inline(__always) func feed(_ states: inout SIMD4<Int32>, _ b: UInt8) -> Bool {
        var k = 0
        while k < spec.dfaCount {
            let t = spec.table(k)[Int(states[k]) &* 256 &+ Int(b)]
            if t < 0 { return false }
            states[k] = t
            k += 1
        }
        return true
    }
    @inline(__always) func selfLoops(_ states: SIMD4<Int32>) -> UInt16 { 0 }
}

// Phases of the string aux layout (see GrammarAutomaton+Nodes.swift).
private let pOpen: Int32 = 0, pContent: Int32 = 1, pEscape: Int32 = 2, pHex: Int32 = 3
private let pLowBackslash: Int32 = 4, pLowU: Int32 = 5, pLowHex: Int32 = 6

extension StringWalkState {
    /// The slots that say where in a string the walk stands (phase, UTF-8 position, escape
    /// state): everything but the length and the patterns' states.
    var placeSlots: [Int32] { [phase, need, lo, hi, hexCount, hex, high] }

    /// Inside the string's content, between characters, with nothing counted yet.
    static var content: StringWalkState {
        var s = StringWalkState()
        s.phase = pContent
        return s
    }

    @inline(__always) private mutating func feed(_ spec: StringWalkSpec, _ b: UInt8) -> Bool {
        feed(SpecPatterns(spec: spec), b)
    }

    @inline(__always) private mutating func feed<P: StringPatternFeed>(_ patterns: P, _ b: UInt8) -> Bool {
        patterns.feed(&dfa, b)
    }

    /// Whether some scalar in `lo...hi` keeps every pattern live from this state's pattern states.
    private func scalarsLive(_ spec: StringWalkSpec, _ lo: UInt32, _ hi: UInt32) -> Bool {
        someScalarIsLive(lo, hi, from: dfa) { states, b in
            var probe = StringWalkState()
            probe.dfa = states
            return probe.feed(spec, b) ? probe.dfa : nil
        }
    }

    /// `hexEscapePrefixCanFinish` for this state's patterns.
    private func hexCanFinish(_ spec: StringWalkSpec, value: Int32, digits: Int32, high: Int32) -> Bool {
        hexEscapePrefixCanFinish(value, digits: digits, high: high,
                                 scalarsLive: spec.dfaCount == 0 ? nil : { self.scalarsLive(spec, $0, $1) })
    }

    @inline(__always) private mutating func countChar(_ spec: StringWalkSpec) -> Bool {
        if spec.maxLength >= 0 {
            if length >= spec.maxLength { return false }
            length += 1
        } else if length < spec.minLength {
            length += 1
        }
        return true
    }

    /// Consumes one byte as the isolated string frame would; false when the frame rejects it or
    /// would close (closing over the sentinel is a dead end).
    @inline(__always) mutating func step(_ b: UInt8, _ spec: StringWalkSpec) -> Bool {
        step(b, spec, SpecPatterns(spec: spec))
    }

    /// `step` with the patterns' transitions specialised (`fillStringMask` picks the feed once
    /// per walk, so the common cases run without a loop over pattern tables per byte).
    @inline(__always) mutating func step<P: StringPatternFeed>(_ b: UInt8, _ spec: StringWalkSpec, _ patterns: P) -> Bool {
        let tracksValue = spec.tracksValue
        switch phase {
        case pOpen:
            guard b == 0x22 else { return false }
            phase = pContent
            return true
        case pContent:
            if need > 0 {
                guard Int32(b) >= lo && Int32(b) <= hi else { return false }
                need -= 1
                lo = 0x80
                hi = 0xBF
                if need == 0 { lo = 0; hi = 0 }
                return feed(patterns, b)
            }
            if b == 0x22 { return false }
            if b == 0x5C {
                if !countChar(spec) { return false }
                if spec.dfaCount > 0, !scalarsLive(spec, 0, 0x10FFFF) { return false }
                phase = pEscape
                return true
            }
            if b < 0x20 { return false }
            guard let lead = UTF8LeadByte(b) else { return false }
            if !countChar(spec) { return false }
            if !feed(patterns, b) { return false }
            if lead.continuationCount > 0 {
                need = Int32(lead.continuationCount)
                lo = Int32(lead.firstContinuation.lowerBound)
                hi = Int32(lead.firstContinuation.upperBound)
            }
            return true
        case pEscape:
            if b == UInt8(ascii: "u") {
                phase = pHex
                hexCount = 0
                hex = 0
                return true
            }
            guard let decoded = JSONEscape.unescape(b) else { return false }
            if !feed(patterns, decoded) { return false }
            phase = pContent
            return true
        case pHex, pLowHex:
            guard let d = JSONEscape.hexDigit(b) else { return false }
            if tracksValue { hex = hex &* 16 &+ Int32(d) }
            hexCount += 1
            if hexCount < 4 {
                return !tracksValue || hexCanFinish(spec, value: hex, digits: hexCount, high: phase == pLowHex ? high : 0)
            }
            let v = UInt32(bitPattern: hex)
            hexCount = 0
            hex = 0
            if !tracksValue {
                phase = pContent
                return true
            }
            var cp: UInt32
            if phase == pLowHex {
                guard (0xDC00...0xDFFF).contains(v) else { return false }
                cp = 0x10000 + ((UInt32(bitPattern: high) - 0xD800) << 10) + (v - 0xDC00)
                high = 0
            } else if (0xD800...0xDBFF).contains(v) {
                if !hexCanFinish(spec, value: Int32(bitPattern: v), digits: 4, high: 0) { return false }
                high = Int32(v)
                phase = pLowBackslash
                return true
            } else if (0xDC00...0xDFFF).contains(v) {
                return false
            } else {
                cp = v
            }
            // UTF-8 of the code point, fed byte by byte (the escape counted as it started).
            if cp < 0x80 {
                if !feed(patterns, UInt8(cp)) { return false }
            } else if cp < 0x800 {
                if !feed(patterns, UInt8(0xC0 | (cp >> 6))) || !feed(patterns, UInt8(0x80 | (cp & 0x3F))) { return false }
            } else if cp < 0x10000 {
                if !feed(patterns, UInt8(0xE0 | (cp >> 12))) || !feed(patterns, UInt8(0x80 | ((cp >> 6) & 0x3F)))
                    || !feed(patterns, UInt8(0x80 | (cp & 0x3F))) { return false }
            } else {
                if !feed(patterns, UInt8(0xF0 | (cp >> 18))) || !feed(patterns, UInt8(0x80 | ((cp >> 12) & 0x3F)))
                    || !feed(patterns, UInt8(0x80 | ((cp >> 6) & 0x3F))) || !feed(patterns, UInt8(0x80 | (cp & 0x3F))) { return false }
            }
            cp = 0
            phase = pContent
            return true
        case pLowBackslash:
            guard b == 0x5C else { return false }
            phase = pLowU
            return true
        case pLowU:
            guard b == 0x75 else { return false }
            phase = pLowHex
            return true
        default:
            return false
        }
    }
}

extension GrammarMatcher {
    /// ORs into `out` the tokens of `trie` that the lone string frame takes without closing.
    /// With `memo`, large subtrees come from (and go to) the automaton's `StringSubtreeMemo`.
    func fillStringMask(_ spec: StringWalkSpec, _ start: StringWalkState, _ out: UnsafeMutablePointer<UInt64>,
                        _ trie: TokenTrie, _ states: UnsafeMutablePointer<StringWalkState>,
                        memo: StringSubtreeMemo? = nil) {
        switch spec.dfaCount {
        case 0: fillStringMask(spec, NoPatterns(), start, out, trie, states, memo)
        case 1: fillStringMask(spec, OnePattern(table: spec.table(0), loops: spec.firstLoops), start, out, trie, states, memo)
        default: fillStringMask(spec, SpecPatterns(spec: spec), start, out, trie, states, memo)
        }
    }

    private func fillStringMask<P: StringPatternFeed>(_ spec: StringWalkSpec, _ patterns: P, _ start: StringWalkState,
                                                      _ out: UnsafeMutablePointer<UInt64>, _ trie: TokenTrie,
                                                      _ states: UnsafeMutablePointer<StringWalkState>, _ memo: StringSubtreeMemo?) {
        states[0] = start
        let shape = memo?.shape(StringSubtreeMemo.Shape(dfas: spec.dfaIds, dfaCount: spec.dfaCount,
                                                        maxLength: spec.maxLength, tracksValue: spec.tracksValue))
        guard let memo, let shape, memo.worthUsing(shape) else {
            Self.walkString(spec, patterns, from: 0, to: trie.nodeCount, out, trie, states, record: nil, base: 0)
            return
        }
        var lanes: [DFAHorizonClasses] = []
        for k in 0..<spec.dfaCount {
            let d = spec.dfaIds[k]
            lanes.append(memo.horizonClasses(d, table: spec.table(k), stateCount: automaton.pattern(d).stateCount))
        }
        let n = trie.nodeCount
        let byte = trie.byte, depth = trie.depth, skip = trie.skip, height = trie.height
        let ts = trie.tokStart, toks = trie.tokens
        let record = subtreeScratch
        var i = 0
        while i < n {
            let d = Int(depth[i])
            var s = states[d - 1]
            if !s.advance(byte[i], spec, patterns) {
                i = Int(skip[i])
                continue
            }
            let h = height[i]
            let first = Int(ts[i])
            let count = trie.subtreeTokenEnd(i) - first
            if h <= StringSubtreeMemo.maxHeight && count >= StringSubtreeMemo.minTokens {
                let horizon = Int(h) + StringSubtreeMemo.lookahead
                var key = StringSubtreeMemo.Key(shape: shape, node: Int32(i), phase: s.phase, need: s.need, lo: s.lo, hi: s.hi,
                                                hexCount: s.hexCount, hex: s.hex, high: s.high, remaining: -1,
                                                classes: SIMD4(repeating: -1))
                if spec.maxLength >= 0 {
                    let left = spec.maxLength - s.length
                    key.remaining = left > Int32(horizon) ? -1 : left
                }
                for k in 0..<lanes.count { key.classes[k] = lanes[k].classOf(s.dfa[k], atHorizon: horizon) }
                let words = (count + 63) >> 6
                let found = memo.lookup(key)
                memo.count(shape, hit: found != nil)
                if let at = found, let all = memo.bits {
                    for w in 0..<words {
                        var m = all[at + w]
                        while m != 0 {
                            let t = Int(toks[first + (w << 6) + m.trailingZeroBitCount])
                            out[t >> 6] |= 1 << UInt64(t & 63)
                            m &= m &- 1
                        }
                    }
                } else {
                    record.initialize(repeating: 0, count: words)
                    states[d] = s
                    trie.setTokens(of: i, in: out, record: record, base: first)
                    Self.walkString(spec, patterns, from: i + 1, to: Int(skip[i]), out, trie, states, record: record, base: first)
                    if memo.hasRoom(words) { memo.store(key, record, words: words) }
                }
                i = Int(skip[i])
                continue
            }
            states[d] = s
            trie.setTokens(of: i, in: out)
            i += 1
        }
    }

    /// Several lone string frames in one walk of `trie`: a node is left once every frame has
    /// rejected its prefix, and each frame's tokens go to its own mask (`outs`, one mask after
    /// another). `states` holds `frames.count` states per depth.
    func fillStringMasks(_ frames: [(spec: StringWalkSpec, state: StringWalkState)], _ outs: UnsafeMutablePointer<UInt64>,
                         _ trie: TokenTrie, _ states: UnsafeMutablePointer<StringWalkState>) {
        let lanes = frames.count
        precondition(lanes <= GrammarMatcher.maxLanes, "at most maxLanes frames walk together")
        let words = vocabulary.maskWordCount
        let n = trie.nodeCount
        let byte = trie.byte, depth = trie.depth, skip = trie.skip
        let ts = trie.tokStart, te = trie.tokEnd, toks = trie.tokens
        var alive = [UInt8](repeating: 0, count: trie.maxDepth + 1)
        alive[0] = UInt8(truncatingIfNeeded: (1 << lanes) - 1)
        for k in 0..<lanes { states[k] = frames[k].state }
        let specs = frames.map(\.spec)
        specs.withUnsafeBufferPointer { specs in
            var i = 0
            while i < n {
                let d = Int(depth[i])
                let b = byte[i]
                var parent = alive[d - 1]
                var now: UInt8 = 0
                while parent != 0 {
                    let k = parent.trailingZeroBitCount
                    parent &= parent &- 1
                    var s = states[(d - 1) * lanes + k]
                    if s.advance(b, specs[k], SpecPatterns(spec: specs[k])) {
                        states[d * lanes + k] = s
                        now |= 1 << UInt8(k)
                    }
                }
                if now == 0 {
                    i = Int(skip[i])
                    continue
                }
                alive[d] = now
                var k = Int(ts[i])
                let e = Int(te[i])
                while k < e {
                    let t = Int(toks[k])
                    var m = now
                    while m != 0 {
                        let lane = m.trailingZeroBitCount
                        m &= m &- 1
                        outs[lane * words + (t >> 6)] |= 1 << UInt64(t & 63)
                    }
                    k += 1
                }
                i += 1
            }
        }
    }

    /// The plain walk over nodes `from ..< to` (parents' states already in `states`), specialised
    /// per pattern feed. With `record`, each token taken also sets its bit at `tokens` index − `base`.
    @inline(__always)
    static func walkString<P: StringPatternFeed>(_ spec: StringWalkSpec, _ patterns: P, from: Int, to n: Int,
                                                  _ out: UnsafeMutablePointer<UInt64>, _ trie: TokenTrie,
                                                  _ states: UnsafeMutablePointer<StringWalkState>,
                                                  record: UnsafeMutablePointer<UInt64>?, base: Int) {
        let byte = trie.byte, depth = trie.depth, skip = trie.skip, below = trie.classesBelow, height = trie.height
        var i = from
        while i < n {
            let d = Int(depth[i])
            var s = states[d - 1]
            if !s.advance(byte[i], spec, patterns) {
                i = Int(skip[i])
                continue
            }
            trie.setTokens(of: i, in: out, record: record, base: base)
            let classes = below[i]
            // A subtree of bytes the state loops on keeps the string where it is: take it whole.
            if classes != 0, s.phase == pContent, s.need == 0, classes & ~patterns.selfLoops(s.dfa) == 0,
               spec.maxLength < 0 || spec.maxLength - s.length >= height[i] {
                trie.setTokensBelow(i, in: out, record: record, base: base)
                i = Int(skip[i])
                continue
            }
            states[d] = s
            i += 1
        }
    }
}

extension StringWalkState {
    /// `step`, with printable ASCII other than `"` and `\` between characters inline: that is
    /// most of every vocabulary and only counts and feeds the patterns; everything else (escapes,
    /// UTF-8 sequences) takes the full `step`.
    @inline(__always)
    mutating func advance<P: StringPatternFeed>(_ b: UInt8, _ spec: StringWalkSpec, _ patterns: P) -> Bool {
        guard phase == pContent, need == 0, b >= 0x20, b < 0x80, b != 0x22, b != 0x5C else {
            return step(b, spec, patterns)
        }
        return countChar(spec) && patterns.feed(&dfa, b)
    }
}

extension GrammarAutomaton {
    /// For an isolated configuration that is one string frame over the sentinel (with at most
    /// `StringWalkSpec.maxDFAs` patterns), the frame unpacked for `fillStringMask`; else nil.
    func isolatedStringFrame(_ c: Int32) -> (spec: StringWalkSpec, state: StringWalkState)? {
        let ready = cfgReady[Int(c)]
        guard ready.count == 1 else { return nil }
        let s = Int(ready[0])
        guard stParent[s] == GrammarAutomaton.sentinel, case .string(let spec) = nodes[Int(stNode[s])] else { return nil }
        let a = aux[Int(stState[s])]
        // A pattern that can no longer die takes every token the string does: leave it out.
        let constraining = spec.dfas.indices.filter { !patternIsUniversal(spec, $0, in: a) }
        guard constraining.count <= StringWalkSpec.maxDFAs else { return nil }
        var w = StringWalkSpec()
        w.minLength = Int32(spec.minLength)
        w.maxLength = Int32(spec.maxLength)
        w.dfaCount = constraining.count
        w.tracksValue = spec.tracksValue
        var st = StringWalkState()
        st.phase = a[0]; st.need = a[1]; st.lo = a[2]; st.hi = a[3]
        st.hexCount = a[4]; st.hex = a[5]; st.high = a[6]; st.length = a[7]
        for (k, i) in constraining.enumerated() {
            let table = UnsafePointer(dfaTable(spec.dfas[i]))
            w.dfaIds[k] = spec.dfas[i]
            if k == 0 { w.firstLoops = dfaLoops(spec.dfas[i]) }
            let q = a[8 + i]
            switch k {
            case 0: w.tables.0 = table
            case 1: w.tables.1 = table
            case 2: w.tables.2 = table
            default: w.tables.3 = table
            }
            st.dfa[k] = q
        }
        return (w, st)
    }
}
