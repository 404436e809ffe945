import Engine
import Grammar
import LoomJSON

extension GrammarReplay {
    /// Replays items one by one: compiles the schema, then walks each test instance's tokens
    /// through the masks, timing every mask and counting into `tally`.
    struct Replayer {
        let vocabulary: GrammarVocabulary
        let tokenizer: Tokenizer
        let options: JSONSchemaOptions
        let dump: MaskDump?
        private(set) var tally = Tally()
        private var mask: [UInt64]
        private let endOfGeneration: Int
        /// LOOM_REPLAY_SLOW=µs (default 2000): report every valid-instance mask slower than that.
        private let slowNs = ProcessEnvironment.value("LOOM_REPLAY_SLOW").map { (UInt64($0) ?? 2000) * 1000 }
        /// A pathological ambiguous grammar must not stall the benchmark: an instance that takes
        /// more CPU than this is counted as rejected where it stopped (and reported).
        static let instanceBudgetNs: UInt64 = 5_000_000_000

        init(vocabulary: GrammarVocabulary, tokenizer: Tokenizer, options: JSONSchemaOptions, dump: MaskDump?) {
            self.vocabulary = vocabulary
            self.tokenizer = tokenizer
            self.options = options
            self.dump = dump
            mask = [UInt64](repeating: 0, count: vocabulary.maskWordCount)
            endOfGeneration = vocabulary.endOfGeneration.first ?? -1
        }

        /// One schema: its compile time (grammar plus first mask) and every test instance.
        mutating func replay(_ item: Item, index: Int) {
            if !item.cases.isEmpty { tally.withTests += 1 }
            let t0 = threadCPUNanos()
            let grammar: Grammar
            do { grammar = try Grammar(jsonSchema: item.schema, options: options) } catch {
                tally.perSchema.append(.object(JSONObject([("id", .string(item.id)), ("compiled", false), ("error", .string(error.description)),
                                                           ("passed", false), ("tests", .array([]))])))
                return
            }
            let base = GrammarMatcher(grammar: grammar, vocabulary: vocabulary)
            base.mask(into: &mask)
            let compileNs = threadCPUNanos() - t0
            tally.compileNs.append(compileNs)
            tally.compiled += 1
            var ok = true
            var tests: [JSONValue] = []
            for c in item.cases {
                let outcome = replay(c, from: base, item: item, index: index)
                let accepted = outcome.rejectedAt == nil
                if accepted != c.valid {
                    ok = false
                    if c.valid { tally.validRejected += 1 } else { tally.invalidAccepted += 1 }
                }
                var tc: [(String, JSONValue)] = [("valid", .bool(c.valid)), ("accepted", .bool(accepted))]
                tc.append(("rejected_at", outcome.rejectedAt.map { .number(JSONNumber($0)) } ?? .null))
                if outcome.timedOut { tc.append(("timed_out", true)); tally.timeouts += 1 }
                tests.append(.object(JSONObject(tc)))
            }
            if ok && !item.cases.isEmpty { tally.passed += 1 }
            tally.perSchema.append(.object(JSONObject([("id", .string(item.id)), ("compiled", true), ("error", .null),
                                                       ("passed", .bool(ok && !item.cases.isEmpty)),
                                                       ("compile_ms", .number(JSONNumber(Double(compileNs) / 1e6))),
                                                       ("tests", .array(tests))])))
        }

        /// One test instance, token by token from a fork of `base`: the token index where the
        /// masks (or the final end-of-generation check) rejected it, nil when accepted.
        private mutating func replay(_ c: Case, from base: GrammarMatcher, item: Item, index: Int) -> (rejectedAt: Int?, timedOut: Bool) {
            tally.instances += 1
            let ids = tokenizer.encode(c.text, addBOS: false, parseSpecial: false)
            let m = base.fork()
            var rejectedAt: Int?
            var timedOut = false
            let started = threadCPUNanos()
            var dumpedNs: [UInt64] = []
            let dumpStart = dump?.steps ?? 0
            for (k, t) in ids.enumerated() {
                if threadCPUNanos() - started > Self.instanceBudgetNs { rejectedAt = k; timedOut = true; break }
                let before = slowNs != nil ? m.debugSummary : ""
                let s = threadCPUNanos()
                m.mask(into: &mask)
                let ns = threadCPUNanos() - s
                let tok = Int(t)
                if c.valid {
                    dump?.write(mask)
                    if dump != nil { dumpedNs.append(ns) }
                    recordValidMask(ns, next: t, at: k, item: item, matcherBefore: before)
                }
                if !isAllowed(tok) || !m.accept(token: tok) { rejectedAt = k; break }
            }
            if rejectedAt == nil {
                let s = threadCPUNanos()
                m.mask(into: &mask)
                if c.valid, let dump { dumpedNs.append(threadCPUNanos() - s); dump.write(mask) }
                if endOfGeneration < 0 || !isAllowed(endOfGeneration) { rejectedAt = ids.count }
            }
            if c.valid, let dump {
                dump.line(index: index, id: item.id, tokens: ids.map(Int.init), nanos: dumpedNs, first: dumpStart)
            }
            return (rejectedAt, timedOut)
        }

        private func isAllowed(_ token: Int) -> Bool { mask[token >> 6] >> UInt64(token & 63) & 1 == 1 }

        /// Timing, density and forced-token counts of a mask computed on a valid instance; a slow
        /// mask is reported on stderr with the matcher state it started from.
        private mutating func recordValidMask(_ ns: UInt64, next token: Int32, at k: Int, item: Item, matcherBefore before: String) {
            tally.maskNs.append(ns)
            if let slowNs, ns > slowNs {
                let next = tokenizer.tokenBytes(token)
                StandardError.line("slow mask \(ns / 1000) µs: \(item.id) token \(k) next=\(String(decoding: next, as: UTF8.self)) \(before.prefix(200))")
            }
            var pop = 0
            for w in mask { pop += w.nonzeroBitCount }
            tally.densitySum += Double(pop) / Double(vocabulary.size)
            tally.densityCount += 1
            if pop == 1 { tally.forced += 1 }
            tally.validTokens += 1
        }
    }
}
