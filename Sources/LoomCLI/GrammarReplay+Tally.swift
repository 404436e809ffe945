import LoomJSON

extension GrammarReplay {
    /// What a replay counts, and the JSON document it reports.
    struct Tally {
        var withTests = 0, compiled = 0, passed = 0
        var instances = 0, invalidAccepted = 0, validRejected = 0, timeouts = 0
        /// Masks on valid instances: how many, how many allowed one token, their mean density.
        var validTokens = 0, forced = 0
        var densitySum = 0.0, densityCount = 0
        /// CPU time of each valid-instance mask, and of each schema's compile plus first mask.
        var maskNs: [UInt64] = [], compileNs: [UInt64] = []
        /// One entry per schema (`--verbose`).
        var perSchema: [JSONValue] = []

        func report(vocabularyName name: String, vocabularySize: Int, schemas: Int, verbose: Bool) -> JSONValue {
            var doc: [(String, JSONValue)] = [
                ("vocab", .string(name)), ("vocab_size", .number(JSONNumber(vocabularySize))),
                ("schemas", .number(JSONNumber(schemas))), ("with_tests", .number(JSONNumber(withTests))),
                ("compiled", .number(JSONNumber(compiled))), ("passed", .number(JSONNumber(passed))),
                ("pass_rate", .number(JSONNumber(withTests == 0 ? 0 : Double(passed) / Double(withTests)))),
                ("instances", .number(JSONNumber(instances))), ("invalid_accepted", .number(JSONNumber(invalidAccepted))),
                ("valid_rejected", .number(JSONNumber(validRejected))),
                ("mask_us", Self.stats(maskNs, scale: 1000)), ("compile_ms", Self.stats(compileNs, scale: 1_000_000)),
                ("forced_share", .number(JSONNumber(validTokens == 0 ? 0 : Double(forced) / Double(validTokens)))),
                ("mask_density", .number(JSONNumber(densityCount == 0 ? 0 : densitySum / Double(densityCount)))),
                ("timeouts", .number(JSONNumber(timeouts))),
            ]
            if verbose { doc.append(("per_schema", .array(perSchema))) }
            return .object(JSONObject(doc))
        }

        /// p50, p99 and max of `xs` divided by `scale`.
        static func stats(_ xs: [UInt64], scale: Double) -> JSONValue {
            let s = xs.sorted()
            func pct(_ p: Double) -> JSONValue {
                guard !s.isEmpty else { return .null }
                let i = min(s.count - 1, Int((Double(s.count - 1) * p).rounded()))
                return .number(JSONNumber(Double(s[i]) / scale))
            }
            return .object(JSONObject([("p50", pct(0.5)), ("p99", pct(0.99)), ("max", pct(1.0))]))
        }
    }
}
