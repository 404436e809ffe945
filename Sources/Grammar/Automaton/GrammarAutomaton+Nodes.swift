import LoomJSON

/// Per-node semantics for the automaton's slow path: what each node does in each state.
///
/// A frame either consumes a byte (`consume`), or moves without input (`forEachMove`): it calls a
/// child (to return to `ret`) or is done (pops). Nodes with rich state (strings, numbers, objects,
/// arrays) keep it in interned `aux` arrays; the frame state is the aux id.
enum Move {
    case call(Int32, ret: Int32)
    case done
}

// String aux layout.
private let sPhase = 0, sNeed = 1, sLo = 2, sHi = 3, sHexCount = 4, sHex = 5, sHigh = 6, sLen = 7, sDFA = 8
// String phases.
private let pOpen: Int32 = 0, pContent: Int32 = 1, pEscape: Int32 = 2, pHex: Int32 = 3
private let pLowBackslash: Int32 = 4, pLowU: Int32 = 5, pLowHex: Int32 = 6, pClosed: Int32 = 7

// Container aux layout: [phase, count, last, seen words...]; phases 0 before opener, 1 after opener,
// 2 after a member, 3 after a comma, 4 closed.
private let cPhase = 0, cCount = 1, cLast = 2, cSeen = 3

extension GrammarAutomaton {
    func initialState(_ n: Int32) -> Int32 {
        switch nodes[Int(n)] {
        case .string(let s):
            return internAux([pOpen, 0, 0, 0, 0, 0, 0, 0] + s.dfas.map { _ in 0 })
        case .number:
            return internAux([0])
        case .object(let o):
            return internAux([0, 0, -1] + Array(repeating: 0, count: (o.members.count + o.witnessCount + 31) / 32))
        case .array(let a):
            // Slot 2 counts items matching `contains`.
            return internAux([0, 0, 0] + Array(repeating: 0, count: ((a.uniqueChoices?.count ?? 0) + 31) / 32))
        default:
            return 0
        }
    }

    func canConsume(_ n: Int32, _ st: Int32) -> Bool {
        switch nodes[Int(n)] {
        case .literal(let b): return Int(st) < b.count
        case .bytes: return st == 0
        case .dfa(let d): return dfas[Int(d)].hasOutgoing[Int(st)]
        case .string: return aux[Int(st)][sPhase] != pClosed
        case .number: return true
        case .object, .array: return aux[Int(st)][cPhase] < 4
        default: return false
        }
    }

    /// True when the frame can only pop: returning to it is the same as returning to its parent.
    func isFinalOnly(_ n: Int32, _ st: Int32) -> Bool {
        switch nodes[Int(n)] {
        case .literal(let b): return Int(st) == b.count
        case .bytes: return st == 1
        case .dfa(let d): return dfas[Int(d)].accepting[Int(st)] && !dfas[Int(d)].hasOutgoing[Int(st)]
        case .seq(let xs): return Int(st) == xs.count
        case .alt: return st == 1
        case .rep(_, _, let hi): return hi >= 0 && st >= hi
        case .string: return aux[Int(st)][sPhase] == pClosed
        case .object, .array: return aux[Int(st)][cPhase] == 4
        default: return false
        }
    }

    func forEachMove(_ n: Int32, _ st: Int32, _ body: (Move) -> Void) {
        switch nodes[Int(n)] {
        case .fail: return
        case .literal(let b): if Int(st) == b.count { body(.done) }
        case .bytes: if st == 1 { body(.done) }
        case .dfa(let d): if dfas[Int(d)].accepting[Int(st)] { body(.done) }
        case .seq(let xs):
            if Int(st) < xs.count { body(.call(xs[Int(st)], ret: st + 1)) } else { body(.done) }
        case .alt(let xs):
            if st == 0 { for x in xs { body(.call(x, ret: 1)) } } else { body(.done) }
        case .rep(let x, let lo, let hi):
            if hi < 0 || st < hi { body(.call(x, ret: hi < 0 ? min(st + 1, lo) : st + 1)) }
            if st >= lo { body(.done) }
        case .string:
            if aux[Int(st)][sPhase] == pClosed { body(.done) }
        case .number(let spec):
            if numberComplete(spec, aux[Int(st)]) { body(.done) }
        case .object(let o):
            let a = aux[Int(st)]
            let phase = a[cPhase]
            if phase == 4 { body(.done); return }
            guard phase == 1 || phase == 3 else { return }
            let count = a[cCount]
            if o.maxProperties >= 0 && Int(count) >= o.maxProperties { return }
            let last = Int(a[cLast])
            for (i, m) in o.members.enumerated() where !bit(a, i) {
                if o.schemaOrder {
                    if i <= last { continue }
                    // Skipping a required member would make the object impossible to close.
                    if o.required.contains(where: { $0 > last && $0 < i && !bit(a, $0) }) { continue }
                }
                var b = a
                b[cPhase] = 2
                b[cCount] = count + 1
                if o.schemaOrder { b[cLast] = Int32(i) }
                setBit(&b, i)
                body(.call(m, ret: internAux(b)))
                if o.needsWitness {
                    for (w, member) in o.witnessDeclared.enumerated() where member == i {
                        var c = b
                        claim(&c, o.witnessDeclaredClaims[w], o)
                        body(.call(o.witnessDeclaredNodes[w], ret: internAux(c)))
                    }
                }
            }
            if !o.extraMembers.isEmpty || !o.witnessExtraMembers.isEmpty {
                if o.schemaOrder && o.required.contains(where: { !bit(a, $0) }) { return }
                var b = a
                b[cPhase] = 2
                // Extra members do not count toward the cap on distinct states beyond what bounds need.
                let cap = max(o.minProperties, o.maxProperties >= 0 ? o.maxProperties : 0)
                b[cCount] = min(count + 1, Int32(max(cap, Int(count))))
                if o.maxProperties >= 0 || Int(count) < o.minProperties { b[cCount] = count + 1 }
                if o.schemaOrder { b[cLast] = Int32(o.members.count) }
                let r = internAux(b)
                for m in o.extraMembers { body(.call(m, ret: r)) }
                for (w, m) in o.witnessExtraMembers.enumerated() {
                    var c = b
                    claim(&c, o.witnessExtraClaims[w], o)
                    body(.call(m, ret: internAux(c)))
                }
            }
        case .array(let spec):
            let a = aux[Int(st)]
            let phase = a[cPhase]
            if phase == 4 { body(.done); return }
            guard phase == 1 || phase == 3 else { return }
            let count = Int(a[cCount])
            if spec.maxItems >= 0 && count >= spec.maxItems { return }
            if let choices = spec.uniqueChoices {
                for (j, c) in choices.enumerated() where !bit(a, j) {
                    var b = a
                    b[cPhase] = 2
                    b[cCount] = Int32(count + 1)
                    setBit(&b, j)
                    body(.call(c, ret: internAux(b)))
                }
                return
            }
            var b = a
            b[cPhase] = 2
            let cap = max(spec.prefix.count, spec.minItems)
            b[cCount] = Int32(spec.maxItems < 0 && count + 1 > cap ? cap : count + 1)
            if spec.maxItems < 0 && count >= cap { b[cCount] = Int32(cap) }
            let item: Int32?
            if count < spec.prefix.count { item = spec.prefix[count] } else { item = spec.items }
            if let item { body(.call(item, ret: internAux(b))) }
            if spec.coverCount > 0, let claims = count < spec.coverPrefix.count ? spec.coverPrefix[count] : spec.coverItems {
                let claimed = a[cLast]
                for (j, node) in claims.enumerated() where node >= 0 {
                    var c = b
                    c[cLast] = claimed | Int32(j + 1)
                    body(.call(node, ret: internAux(c)))
                }
            }
            if spec.hasContains {
                let matching: Int32? = count < spec.containsPrefix.count ? spec.containsPrefix[count] : spec.containsItems
                let cc = Int(a[cLast])
                if let matching, spec.maxContains < 0 || cc < spec.maxContains {
                    b[cLast] = Int32(spec.maxContains < 0 ? min(cc + 1, spec.minContains) : cc + 1)
                    body(.call(matching, ret: internAux(b)))
                }
            }
        }
    }

    /// Sets the seen bits of the witnesses in `claims` (bit j: witness j).
    private func claim(_ a: inout [Int32], _ claims: Int32, _ o: ObjectSpec) {
        for j in 0..<o.witnessCount where claims >> Int32(j) & 1 == 1 { setBit(&a, o.members.count + j) }
    }

    @inline(__always) private func bit(_ a: [Int32], _ i: Int) -> Bool {
        (UInt32(bitPattern: a[cSeen + i / 32]) >> UInt32(i % 32)) & 1 == 1
    }
    @inline(__always) private func setBit(_ a: inout [Int32], _ i: Int) {
        a[cSeen + i / 32] = Int32(bitPattern: UInt32(bitPattern: a[cSeen + i / 32]) | (1 << UInt32(i % 32)))
    }

    private func objectCanClose(_ o: ObjectSpec, _ a: [Int32]) -> Bool {
        if Int(a[cCount]) < o.minProperties { return false }
        for r in o.required where !bit(a, r) { return false }
        for (k, key) in o.dependencyKeys.enumerated() where bit(a, key) {
            for d in o.dependencies[k] where !bit(a, d) { return false }
        }
        for set in o.forbiddenTogether where set.allSatisfy({ bit(a, $0) }) { return false }
        for j in 0..<o.witnessCount where !bit(a, o.members.count + j) { return false }
        return true
    }

    private func objectCanContinue(_ o: ObjectSpec, _ a: [Int32]) -> Bool {
        if o.maxProperties >= 0 && Int(a[cCount]) >= o.maxProperties { return false }
        if !o.extraMembers.isEmpty || !o.witnessExtraMembers.isEmpty { return true }
        let last = Int(a[cLast])
        for i in 0..<o.members.count where !bit(a, i) && (!o.schemaOrder || i > last) { return true }
        return false
    }

    private func arrayCanContinue(_ s: ArraySpec, _ a: [Int32]) -> Bool {
        let count = Int(a[cCount])
        if s.maxItems >= 0 && count >= s.maxItems { return false }
        if let u = s.uniqueChoices { return (0..<u.count).contains { !bit(a, $0) } }
        if s.hasContains && (count < s.containsPrefix.count || s.containsItems != nil) { return true }
        return count < s.prefix.count || s.items != nil
    }

    private func isWS(_ b: UInt8) -> Bool { b == 0x20 || b == 0x0A || b == 0x0D || b == 0x09 }

    /// The state after consuming `b`, or -1.
    func consume(_ n: Int32, _ st: Int32, _ b: UInt8) -> Int32 {
        switch nodes[Int(n)] {
        case .literal(let bytes):
            return Int(st) < bytes.count && bytes[Int(st)] == b ? st + 1 : -1
        case .bytes(let set):
            return st == 0 && set.contains(b) ? 1 : -1
        case .dfa(let d):
            return dfas[Int(d)].next(st, b)
        case .string(let spec):
            return stringConsume(spec, st, b)
        case .number(let spec):
            return numberConsume(spec, st, b)
        case .object(let o):
            var a = aux[Int(st)]
            switch a[cPhase] {
            case 0:
                guard b == 0x7B else { return -1 }
                a[cPhase] = 1
                return internAux(a)
            case 1, 2, 3:
                if isWS(b) { return o.whitespace ? st : -1 }
                if b == 0x7D, a[cPhase] != 3, objectCanClose(o, a) { a[cPhase] = 4; return internAux(a) }
                if b == 0x2C, a[cPhase] == 2, objectCanContinue(o, a) { a[cPhase] = 3; return internAux(a) }
                return -1
            default: return -1
            }
        case .array(let s):
            var a = aux[Int(st)]
            switch a[cPhase] {
            case 0:
                guard b == 0x5B else { return -1 }
                a[cPhase] = 1
                return internAux(a)
            case 1, 2, 3:
                if isWS(b) { return s.whitespace ? st : -1 }
                if b == 0x5D, a[cPhase] != 3, Int(a[cCount]) >= s.minItems, Int(a[cLast]) >= s.minContains || !s.hasContains,
                   s.coverCount == 0 || a[cLast] == (1 << Int32(s.coverCount)) - 1 {
                    a[cPhase] = 4
                    return internAux(a)
                }
                if b == 0x2C, a[cPhase] == 2, arrayCanContinue(s, a) { a[cPhase] = 3; return internAux(a) }
                return -1
            default: return -1
            }
        default:
            return -1
        }
    }

    // MARK: Strings

    private func feed(_ spec: StringSpec, _ a: inout [Int32], _ byte: UInt8) -> Bool {
        for k in 0..<spec.dfas.count {
            let s = a[sDFA + k]
            let t = dfas[Int(spec.dfas[k])].next(s, byte)
            if t < 0 { return false }
            a[sDFA + k] = t
        }
        return true
    }

    /// Whether some scalar in `lo...hi` keeps every pattern of `spec` live from its state in `a`.
    private func scalarsLive(_ spec: StringSpec, _ a: [Int32], _ lo: UInt32, _ hi: UInt32) -> Bool {
        let start = Array(a[sDFA..<(sDFA + spec.dfas.count)])
        return someScalarIsLive(lo, hi, from: start) { states, b in
            var next = states
            for k in 0..<next.count {
                let t = dfas[Int(spec.dfas[k])].next(next[k], b)
                if t < 0 { return nil }
                next[k] = t
            }
            return next
        }
    }

    /// Whether some character keeps every pattern of `spec` live from its state in `a` (the
    /// question a backslash asks). Universal patterns always agree, and one pattern left is a
    /// per-state answer its `PatternLiveness` remembers; only two or more constraining patterns
    /// walk their product.
    private func someScalarLive(_ spec: StringSpec, _ a: [Int32]) -> Bool {
        let constraining = spec.dfas.indices.filter { !patternIsUniversal(spec, $0, in: a) }
        if constraining.isEmpty { return true }
        if constraining.count == 1 {
            return patternLiveness(spec.dfas[constraining[0]]).someScalarLive(from: a[sDFA + constraining[0]])
        }
        let key = constraining.map { spec.dfas[$0] } + constraining.map { a[sDFA + $0] }
        if let known = jointScalarLive[key] { return known }
        let live = scalarsLive(spec, a, 0, 0x10FFFF)
        jointScalarLive[key] = live
        return live
    }

    /// `hexEscapePrefixCanFinish` for this frame's patterns at their states in `a`.
    private func hexCanFinish(_ spec: StringSpec, _ a: [Int32], value: Int32, digits: Int32, high: Int32) -> Bool {
        hexEscapePrefixCanFinish(value, digits: digits, high: high,
                                 scalarsLive: spec.dfas.isEmpty ? nil : { self.scalarsLive(spec, a, $0, $1) })
    }

    /// Counts one code point; false when `maxLength` is exceeded.
    private func countChar(_ spec: StringSpec, _ a: inout [Int32]) -> Bool {
        if spec.maxLength >= 0 {
            if Int(a[sLen]) >= spec.maxLength { return false }
            a[sLen] += 1
        } else if Int(a[sLen]) < spec.minLength {
            a[sLen] += 1
        }
        return true
    }

    private func stringConsume(_ spec: StringSpec, _ st: Int32, _ b: UInt8) -> Int32 {
        var a = aux[Int(st)]
        let tracksValue = spec.tracksValue
        switch a[sPhase] {
        case pOpen:
            guard b == 0x22 else { return -1 }
            a[sPhase] = pContent
        case pContent:
            if a[sNeed] > 0 {
                guard b >= UInt8(a[sLo]) && b <= UInt8(a[sHi]) else { return -1 }
                a[sNeed] -= 1
                a[sLo] = 0x80
                a[sHi] = 0xBF
                if a[sNeed] == 0 { a[sLo] = 0; a[sHi] = 0 }
                if !feed(spec, &a, b) { return -1 }
            } else if b == 0x22 {
                if Int(a[sLen]) < spec.minLength { return -1 }
                for k in 0..<spec.dfas.count where !dfas[Int(spec.dfas[k])].accepting[Int(a[sDFA + k])] { return -1 }
                a[sPhase] = pClosed
            } else if b == 0x5C {
                // An escape is one character, counted as it starts: at a full length budget a
                // backslash would open an escape that no byte could finish.
                if !countChar(spec, &a) { return -1 }
                // With patterns, some character the escape can still write must be one they take.
                if !spec.dfas.isEmpty, !someScalarLive(spec, a) { return -1 }
                a[sPhase] = pEscape
            } else if b < 0x20 {
                return -1
            } else {
                guard let lead = UTF8LeadByte(b) else { return -1 }
                if !countChar(spec, &a) { return -1 }
                if !feed(spec, &a, b) { return -1 }
                if lead.continuationCount > 0 {
                    a[sNeed] = Int32(lead.continuationCount)
                    a[sLo] = Int32(lead.firstContinuation.lowerBound)
                    a[sHi] = Int32(lead.firstContinuation.upperBound)
                }
            }
        case pEscape:
            if b == UInt8(ascii: "u") {
                a[sPhase] = pHex
                a[sHexCount] = 0
                a[sHex] = 0
                return internAux(a)
            }
            guard let decoded = JSONEscape.unescape(b) else { return -1 }
            if !feed(spec, &a, decoded) { return -1 }
            a[sPhase] = pContent
        case pHex, pLowHex:
            guard let d = JSONEscape.hexDigit(b) else { return -1 }
            if tracksValue { a[sHex] = a[sHex] * 16 + Int32(d) }
            a[sHexCount] += 1
            if a[sHexCount] < 4 {
                if tracksValue, !hexCanFinish(spec, a, value: a[sHex], digits: a[sHexCount],
                                              high: a[sPhase] == pLowHex ? a[sHigh] : 0) {
                    return -1
                }
                return internAux(a)
            }
            let v = UInt32(a[sHex])
            a[sHexCount] = 0
            a[sHex] = 0
            if !tracksValue {
                a[sPhase] = pContent
                return internAux(a)
            }
            var cp: UInt32
            if a[sPhase] == pLowHex {
                guard (0xDC00...0xDFFF).contains(v) else { return -1 }
                cp = 0x10000 + ((UInt32(a[sHigh]) - 0xD800) << 10) + (v - 0xDC00)
                a[sHigh] = 0
            } else if (0xD800...0xDBFF).contains(v) {
                if !hexCanFinish(spec, a, value: Int32(v), digits: 4, high: 0) { return -1 }
                a[sHigh] = Int32(v)
                a[sPhase] = pLowBackslash
                return internAux(a)
            } else if (0xDC00...0xDFFF).contains(v) {
                return -1
            } else {
                cp = v
            }
            for x in CharClass.utf8(cp) where !feed(spec, &a, x) { return -1 }
            cp = 0
            a[sPhase] = pContent
        case pLowBackslash:
            guard b == 0x5C else { return -1 }
            a[sPhase] = pLowU
        case pLowU:
            guard b == 0x75 else { return -1 }
            a[sPhase] = pLowHex
        default:
            return -1
        }
        return internAux(a)
    }

    // MARK: Numbers

    /// Syntax states: 0 start, 1 after '-', 2 int "0", 3 int digits, 4 after '.', 5 fraction,
    /// 6 after 'e', 7 after exponent sign, 8 exponent digits. Complete: 2, 3, 5, 8.
    func numberSyntax(_ spec: NumberSpec, _ s: Int32, _ b: UInt8) -> Int32 {
        let digit = b >= 0x30 && b <= 0x39
        let fractionOK = spec.integer != .digitsOnly
        let zeroFractionOnly = spec.integer == .integralValue && !spec.needsLiteralForIntegral
        switch s {
        case 0: return b == 0x2D ? 1 : b == 0x30 ? 2 : digit ? 3 : -1
        case 1: return b == 0x30 ? 2 : digit ? 3 : -1
        case 2, 3:
            if s == 3 && digit { return 3 }
            if b == 0x2E && fractionOK { return 4 }
            if (b == 0x65 || b == 0x45) && fractionOK && !zeroFractionOnly { return 6 }
            return -1
        case 4, 5:
            if digit { return zeroFractionOnly && b != 0x30 ? -1 : 5 }
            if s == 5 && (b == 0x65 || b == 0x45) && !zeroFractionOnly { return 6 }
            return -1
        case 6: return b == 0x2B || b == 0x2D ? 7 : digit ? 8 : -1
        case 7, 8: return digit ? 8 : -1
        default: return -1
        }
    }

    private func numberConsume(_ spec: NumberSpec, _ st: Int32, _ b: UInt8) -> Int32 {
        var a = aux[Int(st)]
        let t = numberSyntax(spec, a[0], b)
        if t < 0 { return -1 }
        a[0] = t
        if spec.needsLiteral {
            a.append(Int32(b))
            if a.count > 400 { return -1 }
            if !numberPrefixViable(spec, a) { return -1 }
        }
        return internAux(a)
    }

    private func numberComplete(_ spec: NumberSpec, _ a: [Int32]) -> Bool {
        let s = a[0]
        guard s == 2 || s == 3 || s == 5 || s == 8 else { return false }
        guard spec.needsLiteral else { return true }
        guard let v = ExactDecimal(literal: a.dropFirst().map { UInt8($0) }) else { return false }
        return spec.admits(v)
    }

    /// Prunes integer prefixes that no continuation can bring within the bounds, so masks stay
    /// tight for the common `minimum`/`maximum` on integers — and, more importantly, so that every
    /// prefix the mask admits can still be completed. `2.5` must be refused under `maximum: 5`
    /// (only `2.5e1` = 25 and larger are integral), or sampling can wander into a number that no
    /// continuation finishes and the output can never be closed.
    func numberPrefixViable(_ spec: NumberSpec, _ a: [Int32]) -> Bool {
        guard spec.minimum != nil || spec.maximum != nil else { return true }
        let bytes = a.dropFirst().map { UInt8($0) }
        let neg = bytes.first == 0x2D
        let body = neg ? Array(bytes.dropFirst()) : bytes
        if body.isEmpty { return neg ? spec.viableSign(negative: true) : true }
        // With fractions and exponents any leading digits reach every magnitude; only integers
        // (whose reachable values are the integers written with these leading digits) are judged.
        guard spec.integer != .any, spec.integer != .nonIntegral else { return true }
        var intPart: [UInt8] = [], frac: [UInt8] = [], expDigits: [UInt8] = []
        var part = 0, expNegative = false, expSigned = false
        for b in body {
            switch b {
            case 0x2E: part = 1
            case 0x65, 0x45: part = 2
            case 0x2B: expSigned = true
            case 0x2D: expNegative = true; expSigned = true
            default:
                if part == 0 { intPart.append(b) } else if part == 1 { frac.append(b) } else { expDigits.append(b) }
            }
        }
        // Without a fraction or an exponent, the integers written with these leading digits.
        if spec.integer == .digitsOnly { return digitPrefixViable(spec, neg, intPart) }
        // Significant digits of the mantissa: an integral value reachable from here is these
        // digits, then any digits, scaled by a power of ten (an exponent shifts the point).
        let mantissa = intPart + frac
        guard let first = mantissa.firstIndex(where: { $0 != 0x30 }) else {
            // All zeros so far: 0 itself, or (more digits, an exponent) any integer of this sign.
            if spec.admits(ExactDecimal(negative: false, digits: [], exponent: 0)) { return true }
            guard part < 2 else { return false }
            let one = ExactDecimal(negative: neg, digits: [1], exponent: 0)
            let far = ExactDecimal(negative: neg, digits: [1], exponent: 1_000)
            return neg ? spec.intervalIntersects(far, one) : spec.intervalIntersects(one, far)
        }
        let significant = Array(mantissa[first...])
        // More mantissa digits reach every integer written with these leading digits.
        if part < 2, digitPrefixViable(spec, neg, significant) { return true }
        // Without more mantissa digits the value is core · 10^t with t = z + E − n (z trailing
        // zeros of the significant digits, n fraction digits, E the exponent): `2.0` is 2,
        // `20e-1` and `200.0e-2` are 2. Before the exponent any E can still be written.
        var core = significant
        var z = 0
        while core.last == 0x30 { core.removeLast(); z += 1 }
        let n = frac.count
        let expPrefix = Array(expDigits.drop(while: { $0 == 0x30 }))
        let anyExponent = expPrefix.isEmpty
        let coreDigits = core.map { $0 - 0x30 }
        for t in 0..<1_000 {
            let e = t - z + n
            let reachable: Bool
            if part < 2 || (!expSigned && expDigits.isEmpty) { reachable = true }
            else if e == 0 { reachable = anyExponent }
            else if (e < 0) != expNegative { reachable = false }
            else { reachable = anyExponent || Array(String(abs(e)).utf8).starts(with: expPrefix) }
            let v = ExactDecimal(negative: neg, digits: coreDigits, exponent: t)
            if reachable, spec.admits(v) { return true }
            if let m = spec.maximum, !neg, ExactDecimal.compare(v, m) > 0 { return false }
            if let m = spec.minimum, neg, ExactDecimal.compare(v, m) < 0 { return false }
        }
        return false
    }

    /// Whether some integer whose digits start with `digits` (ASCII) meets the bounds.
    private func digitPrefixViable(_ spec: NumberSpec, _ neg: Bool, _ digits: [UInt8]) -> Bool {
        guard !digits.isEmpty, digits.allSatisfy({ $0 >= 0x30 && $0 <= 0x39 }) else { return true }
        guard let p = ExactDecimal(literal: digits) else { return true }
        if p.isZero { return spec.admits(p) }
        // Completions: p·10^k + r, 0 ≤ r < 10^k, for k = 0, 1, 2, …, in magnitude.
        for k in 0..<40 {
            let lo = ExactDecimal(negative: false, digits: p.digits, exponent: p.exponent + k)
            let hi = ExactDecimal(negative: false, digits: plusOneMinusULP(p, k), exponent: 0)
            let (vlo, vhi) = neg ? (hi.negated, lo.negated) : (lo, hi)
            if spec.intervalIntersects(vlo, vhi) { return true }
            if let m = spec.maximum, !neg, ExactDecimal.compare(lo, m) > 0 { return false }
            if let m = spec.minimum, neg, ExactDecimal.compare(lo.negated, m) < 0 { return false }
        }
        return true
    }

    /// The largest integer with the prefix `p` followed by k digits: (p+1)·10^k − 1, as digits.
    private func plusOneMinusULP(_ p: ExactDecimal, _ k: Int) -> [UInt8] {
        // p as a full digit string, then k nines.
        var d = p.digits
        d.append(contentsOf: Array(repeating: 0, count: p.exponent))
        d.append(contentsOf: Array(repeating: 9, count: k))
        return d
    }
}

extension ExactDecimal {
    var negated: ExactDecimal { ExactDecimal(negative: !negative, digits: digits, exponent: exponent) }
}

extension NumberSpec {
    /// Integral-valued literals need the literal only when an exponent may make them integral;
    /// otherwise a zero fraction is checked by syntax.
    var needsLiteralForIntegral: Bool {
        integer == .nonIntegral || minimum != nil || maximum != nil || !multipleOf.isEmpty || !excluded.isEmpty || allowed != nil
    }

    /// Whether the value satisfies every constraint.
    func admits(_ v: ExactDecimal) -> Bool {
        switch integer {
        case .any: break
        case .digitsOnly, .integralValue: if !v.isInteger { return false }
        case .nonIntegral: if v.isInteger { return false }
        }
        if let m = minimum {
            let c = ExactDecimal.compare(v, m)
            if c < 0 || (c == 0 && minimumExclusive) { return false }
        }
        if let m = maximum {
            let c = ExactDecimal.compare(v, m)
            if c > 0 || (c == 0 && maximumExclusive) { return false }
        }
        for m in multipleOf where v.isMultiple(of: m) != true { return false }
        for x in excluded where ExactDecimal.compare(v, x) == 0 { return false }
        if let allowed, !allowed.contains(where: { ExactDecimal.compare(v, $0) == 0 }) { return false }
        return true
    }

    /// Whether some value of the sign could satisfy the bounds (for a lone '-').
    func viableSign(negative: Bool) -> Bool {
        if let m = minimum, negative {
            // Need some v ≤ 0 with v ≥ m (or v > m): zero works unless the minimum is above it.
            let zero = ExactDecimal(negative: false, digits: [], exponent: 0)
            let c = ExactDecimal.compare(zero, m)
            return c > 0 || (c == 0 && !minimumExclusive)
        }
        return true
    }

    /// Whether [lo, hi] meets the bounds (ignoring multipleOf and exclusions).
    func intervalIntersects(_ lo: ExactDecimal, _ hi: ExactDecimal) -> Bool {
        // An enumerated set: some member must lie in [lo, hi] (and within the bounds, below).
        if let allowed, !allowed.contains(where: { ExactDecimal.compare($0, lo) >= 0 && ExactDecimal.compare($0, hi) <= 0 }) {
            return false
        }
        if let m = minimum {
            let c = ExactDecimal.compare(hi, m)
            if c < 0 || (c == 0 && minimumExclusive) { return false }
        }
        if let m = maximum {
            let c = ExactDecimal.compare(lo, m)
            if c > 0 || (c == 0 && maximumExclusive) { return false }
        }
        return true
    }
}
