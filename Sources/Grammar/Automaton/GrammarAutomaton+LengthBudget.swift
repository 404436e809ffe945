extension GrammarAutomaton {
    /// A string frame's length budget split off its isolated configuration.
    struct LengthBudgetSplit {
        /// The same frame with a budget no token can exhaust: its mask is the unbounded one.
        let unbounded: Int32
        /// Characters the frame may still take.
        let budget: Int
        /// Whether the frame decodes its value (`StringSpec.tracksValue`), which changes how `\u` escapes count.
        let tracksValue: Bool
    }

    /// For an isolated configuration that is one string frame with a `maxLength` budget a token
    /// could exhaust, between characters or inside a raw one (not inside an escape), the frame with
    /// a budget of `maxTokenBytes + 1` and the budget itself; else nil.
    ///
    /// No token holds more characters than bytes, so with `maxTokenBytes + 1` left the frame admits
    /// what it would without a bound (it is the representative `isolatedString` picks for every
    /// larger budget too); `StringBudgetMasks` then cuts that mask down to the real budget.
    func lengthBudgetSplit(_ c: Int32, maxTokenBytes: Int) -> LengthBudgetSplit? {
        let ready = cfgReady[Int(c)]
        guard ready.count == 1 else { return nil }
        let s = ready[0]
        guard stParent[Int(s)] == GrammarAutomaton.sentinel, case .string(let spec) = nodes[Int(stNode[Int(s)])],
              spec.maxLength >= 0 else { return nil }
        // `sPhase`, `sLen` and the content phase of the string aux layout (GrammarAutomaton+Nodes.swift).
        let phaseSlot = 0, lengthSlot = 7, contentPhase: Int32 = 1
        var a = aux[Int(stState[Int(s)])]
        guard a[phaseSlot] == contentPhase else { return nil }
        let budget = spec.maxLength - Int(a[lengthSlot])
        guard budget >= 0, budget <= maxTokenBytes else { return nil }
        // Below zero when `maxLength` itself is short: a count no input reaches, but the frame
        // still takes exactly `maxTokenBytes + 1` more characters from it.
        a[lengthSlot] = Int32(spec.maxLength - maxTokenBytes - 1)
        let frame = push(stNode[Int(s)], internAux(a), GrammarAutomaton.sentinel)
        let unbounded = internCfg([frame], false)
        guard unbounded >= 0 else { return nil }
        return LengthBudgetSplit(unbounded: unbounded, budget: budget, tracksValue: spec.tracksValue)
    }
}
