/// Number slices: the context-independent part of a mask where a JSON number is being read.
///
/// A number that tracks its literal (bounds, `multipleOf`, exclusions) gets a new state for every
/// digit string, and as part of a configuration that state is repeated under every parser context
/// the number appears in (each object with a different set of members seen, each array position).
/// Walking the whole token trie from such a configuration would intern a thousand configurations
/// per context (all the digit tokens of a 128k vocabulary), enough to dominate the slowest masks.
///
/// A configuration's mask is the union of the masks of its stacks (each stack steps on its own).
/// For a stack whose top frame is a number, tokens made only of number bytes (`0-9 . e E + -`) are
/// valid iff the number frame consumes all of them — provided nothing that can follow the number
/// starts with a number byte, which holds for JSON (values are followed by whitespace, `,`, `]`,
/// `}` or the end) and is checked per parent stack. So that part of the mask depends on the number
/// frame alone: it is computed once per frame state over a sentinel parent (over the small trie of
/// number-byte tokens) and shared by every context, and only the tokens that contain another byte
/// are walked in context.
struct NumberSlice {
    /// The configuration of the stacks that are not sliced (-1 when there are none).
    let rest: Int32
    /// Per sliced stack: the number frame over the sentinel (tokens that stay inside the number)
    /// and the stack alone (whose full mask is the former's plus its walk over the other tokens).
    let parts: [(isolated: Int32, alone: Int32)]
}

extension GrammarAutomaton {
    /// The bytes a JSON number can consume.
    static let numberBytes: [UInt8] = Array("0123456789.eE+-".utf8)

    /// Whether a token is made only of bytes a JSON number can consume.
    static func isNumberToken(_ bytes: [UInt8]) -> Bool {
        !bytes.isEmpty && bytes.allSatisfy { numberBytes.contains($0) }
    }

    /// The index into `numberSlices` for configuration `c`, or -1 when no stack is a sliceable number.
    func numberSlice(_ c: Int32, maxNumberTokenBytes: Int) -> Int32 {
        let i = Int(c)
        if i < sliceIndex.count, sliceIndex[i] != -2 { return sliceIndex[i] }
        var rest: [Int32] = []
        var parts: [(isolated: Int32, alone: Int32)] = []
        for s in cfgReady[i] {
            let node = stNode[Int(s)], parent = stParent[Int(s)]
            if case .number = nodes[Int(node)], parent != GrammarAutomaton.sentinel, followAvoidsNumbers(parent) {
                let st = isolatedNumberState(node, stState[Int(s)], maxNumberTokenBytes: maxNumberTokenBytes)
                let isolated = internCfg([push(node, st, GrammarAutomaton.sentinel)], false)
                let alone = internCfg([s], false)
                if isolated >= 0 && alone >= 0 {
                    parts.append((isolated, alone))
                    continue
                }
            }
            rest.append(s)
        }
        var result: Int32 = -1
        if !parts.isEmpty {
            result = Int32(numberSlices.count)
            numberSlices.append(NumberSlice(rest: rest.isEmpty ? -1 : internCfg(rest, false), parts: parts))
        }
        // `internCfg` above may have added configurations: size the table after it.
        if sliceIndex.count < cfgReady.count {
            sliceIndex.append(contentsOf: repeatElement(-2, count: cfgReady.count - sliceIndex.count))
        }
        sliceIndex[i] = result
        return result
    }

    /// A representative of the number state `st` for isolated walks: the shortest literal in the
    /// same syntax state when no future decision inside the number depends on the digits read so
    /// far (isolated, the number never completes, so only syntax, prefix pruning and the length cap
    /// matter). Without this every distinct number value started a fresh walk of the digit tokens.
    private func isolatedNumberState(_ node: Int32, _ st: Int32, maxNumberTokenBytes: Int) -> Int32 {
        guard case .number(let spec) = nodes[Int(node)], spec.needsLiteral else { return st }
        let a = aux[Int(st)]
        let syntax = a[0]
        // Near the length cap the exact length matters.
        if a.count - 1 + maxNumberTokenBytes >= 400 { return st }
        // With bounds on integers, prefix pruning judges every literal read so far — digits, and
        // a fraction or exponent too (`2.` then `5` is refused under `maximum: 5`, since only
        // 2.5e1 = 25 is integral, while `0.` then `5` is not): no representative stands for it.
        let prunes = (spec.minimum != nil || spec.maximum != nil) && spec.integer != .any && spec.integer != .nonIntegral
        if prunes {
            guard let representative = settledRepresentative(spec, a) else { return st }
            return internAux([syntax] + representative.map { Int32($0) })
        }
        let representative: [UInt8]
        switch syntax {
        case 0: representative = []
        case 1: representative = Array("-".utf8)
        case 2: representative = Array("0".utf8)
        case 3: representative = Array("1".utf8)
        case 4: representative = Array("0.".utf8)
        case 5: representative = Array("0.0".utf8)
        case 6: representative = Array("0e".utf8)
        case 7: representative = Array("0e+".utf8)
        case 8: representative = Array("0e0".utf8)
        default: return st
        }
        return internAux([syntax] + representative.map { Int32($0) })
    }

    /// A representative literal for `a` (syntax state, then bytes) when integer bounds can no
    /// longer tell it apart from that representative, else nil. For an unsigned literal with a
    /// nonzero leading digit, still in its integer digits, and no maximum:
    /// - plain digits (draft-04, generation) extend to arbitrarily large integers, so every digit
    ///   that follows keeps some extension within any minimum, as after `1`;
    /// - integral literals (`10e-1`) also reach integers through fractions and negative exponents,
    ///   which only the trailing zeros decide (`3600e-2` is 36, `3600e-3` is not integral), so
    ///   when every positive integer meets the minimum (`minimum ≤ 1`, `exclusiveMinimum < 1`)
    ///   `1` followed by as many zeros judges the same tokens. A larger minimum is not settled
    ///   (`12e-0` meets 10, `1e-0` does not).
    /// The common `minimum: 0` and `minimum: 1` counts then share a few isolated walks of the
    /// digit tokens instead of one per value read.
    private func settledRepresentative(_ spec: NumberSpec, _ a: [Int32]) -> [UInt8]? {
        guard a[0] == 3, a.count > 1, a[1] >= 0x31, a[1] <= 0x39, spec.maximum == nil,
              spec.multipleOf.isEmpty, spec.excluded.isEmpty, spec.allowed == nil else { return nil }
        if spec.integer == .digitsOnly { return [0x31] }
        guard spec.integer == .integralValue else { return nil }
        if let minimum = spec.minimum {
            let one = ExactDecimal(negative: false, digits: [1], exponent: 0)
            guard minimum < one || (minimum == one && !spec.minimumExclusive) else { return nil }
        }
        var zeros = 0
        for b in a.dropFirst().reversed() {
            guard b == 0x30 else { break }
            zeros += 1
        }
        return [0x31] + Array(repeating: 0x30, count: zeros)
    }

    /// True when no byte that can come right after a number returning to `parent` is a number byte.
    private func followAvoidsNumbers(_ parent: Int32) -> Bool {
        if parent == 0 { return true }
        if let known = followAvoidsNumberBytes[parent] { return known }
        var ready: [Int32] = [], accept = false
        closure([parent], &ready, &accept)
        // An exhausted closure tells nothing: do not slice.
        var ok = !ready.isEmpty || accept
        check: for r in ready {
            for b in GrammarAutomaton.numberBytes where consume(stNode[Int(r)], stState[Int(r)], b) >= 0 {
                ok = false
                break check
            }
        }
        followAvoidsNumberBytes[parent] = ok
        return ok
    }
}
