/// The trie walk for a lone JSON number frame, without interned configurations.
///
/// A number that tracks its literal (bounds, `multipleOf`, `enum` values) reaches a new state
/// with every byte, so walking the number-byte tokens through the automaton interned a
/// configuration per trie node: a thousand on a 128k vocabulary, about a millisecond per cold
/// mask. Isolated (over the sentinel) the frame never completes, so the walk needs only what
/// `numberConsume` decides — the syntax state, the literal's length cap and prefix pruning — and
/// the literal is the trie path appended to the frame's own.
extension GrammarAutomaton {
    /// For an isolated configuration that is one number frame over the sentinel, its spec and
    /// state (syntax state, then the literal's bytes when the spec tracks it); else nil.
    func isolatedNumberFrame(_ c: Int32) -> (spec: NumberSpec, state: [Int32])? {
        let ready = cfgReady[Int(c)]
        guard ready.count == 1 else { return nil }
        let s = Int(ready[0])
        guard stParent[s] == GrammarAutomaton.sentinel, case .number(let spec) = nodes[Int(stNode[s])] else { return nil }
        return (spec, aux[Int(stState[s])])
    }
}

extension GrammarMatcher {
    /// ORs into `out` the tokens of `trie` the lone number frame consumes entirely.
    func fillNumberMask(_ spec: NumberSpec, _ start: [Int32], _ out: UnsafeMutablePointer<UInt64>, _ trie: TokenTrie) {
        let n = trie.nodeCount
        let byte = trie.byte, depth = trie.depth, skip = trie.skip
        let tracks = spec.needsLiteral
        // Per depth, the syntax state; along the path, the literal (`numberConsume`'s aux layout).
        var syntax = [Int32](repeating: 0, count: trie.maxDepth + 1)
        syntax[0] = start[0]
        var literal = start
        literal.reserveCapacity(start.count + trie.maxDepth)
        let base = start.count
        var i = 0
        while i < n {
            let d = Int(depth[i])
            let t = automaton.numberSyntax(spec, syntax[d - 1], byte[i])
            if t < 0 {
                i = Int(skip[i])
                continue
            }
            if tracks {
                literal.removeLast(literal.count - (base + d - 1))
                literal.append(Int32(byte[i]))
                literal[0] = t
                if literal.count > 400 || !automaton.numberPrefixViable(spec, literal) {
                    i = Int(skip[i])
                    continue
                }
            }
            syntax[d] = t
            trie.setTokens(of: i, in: out)
            i += 1
        }
    }
}
