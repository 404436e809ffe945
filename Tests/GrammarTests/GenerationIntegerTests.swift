import Testing
@testable import Grammar

/// Generation writes JSON Schema integers as plain digits; recognition accepts every spelling of
/// an integral value. Empty integer ranges admit nothing at all, and the static completion
/// distances agree with what the automaton can actually finish.
@Suite struct GenerationIntegerTests {
    static let bounded = #"{"type":"object","properties":{"n":{"type":"integer","minimum":1,"maximum":25}},"required":["n"],"additionalProperties":false}"#

    @Test func generationAdmitsOnlyPlainDigits() throws {
        let generation = try Grammar(jsonSchema: #"{"type":"integer"}"#)
        for plain in ["2", "-7", "0", "12345678901234567890"] { #expect(Replay.accepts(generation, plain), "\(plain)") }
        for spelled in ["2.0", "20e-1", "2e0", "-7.00", "0.0"] { #expect(!Replay.accepts(generation, spelled), "\(spelled)") }
        let recognition = try Grammar(jsonSchema: #"{"type":"integer"}"#, options: .recognition)
        for any in ["2", "2.0", "-7.00"] { #expect(Replay.accepts(recognition, any), "\(any)") }
        #expect(!Replay.accepts(recognition, "2.5"))
        // draft-04 never counted 2.0 as an integer.
        let draft4 = try Grammar(jsonSchema: #"{"$schema":"http://json-schema.org/draft-04/schema#","type":"integer"}"#, options: .recognition)
        #expect(!Replay.accepts(draft4, "2.0"))
    }

    /// After `{"n":2` the mask of a generation grammar allows no `.`, `e` or `E`.
    @Test func generationMaskRefusesFractionAfterDigits() throws {
        let m = GrammarMatcher(grammar: try Grammar(jsonSchema: Self.bounded), vocabulary: TestVocab.shared)
        #expect(m.accept(bytes: Array(#"{"n":2"#.utf8)))
        var mask = [UInt64](repeating: 0, count: m.maskWordCount)
        m.mask(into: &mask)
        func allowed(_ t: Int) -> Bool { mask[t >> 6] >> UInt64(t & 63) & 1 == 1 }
        for byte in [".", "e", "E"] { #expect(!allowed(Int(byte.utf8.first!)), "\(byte)") }
        for byte in ["0", "}"] { #expect(allowed(Int(byte.utf8.first!)), "\(byte)") }
        #expect(!allowed(Int("6".utf8.first!)), "26 is past the maximum")
        let planner = GrammarCompletionPlanner(matcher: m)
        #expect(planner.shortestCompletion(of: m).map { String(decoding: $0, as: UTF8.self) } == "}")
        #expect(planner.shortestCompletionLength(of: m) == 1)
    }

    /// Integer-valued `const`/`enum` members are generated as written digits; the value bounds
    /// prune prefixes that overshoot it (`22` for 2).
    @Test func integralLiteralsAreGeneratedAsDigits() throws {
        let g = try Grammar(jsonSchema: #"{"enum":[2,30.0,-4]}"#)
        for ok in ["2", "30", "-4"] { #expect(Replay.accepts(g, ok), "\(ok)") }
        for no in ["2.0", "30.0", "3e1", "22", "-4.0"] { #expect(!Replay.accepts(g, no), "\(no)") }
        #expect(!BadInputTests.isPrefix(g, "22"))
        let recognition = try Grammar(jsonSchema: #"{"enum":[2,30.0,-4]}"#, options: .recognition)
        for ok in ["2", "2.0", "30", "3e1", "-4.00"] { #expect(Replay.accepts(recognition, ok), "\(ok)") }
    }

    /// Empty ranges compile to no number alternative: in generation nothing is admitted; in
    /// generation and recognition nothing completes and the planner agrees there is no completion.
    /// (Recognition still admits the leading JSON whitespace around the absent value.)
    @Test(arguments: [
        #"{"type":"integer","minimum":5,"maximum":1}"#, #"{"type":"integer","minimum":1.2,"maximum":1.8}"#,
        #"{"type":"integer","exclusiveMinimum":-3,"exclusiveMaximum":-2}"#, #"{"type":"number","minimum":1,"maximum":0.5}"#,
    ])
    func emptyRangesAdmitNothing(_ schema: String) throws {
        for options in [JSONSchemaOptions(), JSONSchemaOptions.recognition] {
            let m = GrammarMatcher(grammar: try Grammar(jsonSchema: schema, options: options), vocabulary: TestVocab.shared)
            var mask = [UInt64](repeating: 0, count: m.maskWordCount)
            m.mask(into: &mask)
            if !options.whitespace { #expect(mask.allSatisfy { $0 == 0 }, "\(schema)") }
            #expect(!m.isComplete)
            #expect(GrammarCompletionPlanner(matcher: m).shortestCompletion(of: m) == nil, "\(schema)")
        }
    }

    /// Ranges with exactly one integer stay open to it (the emptiness check is exact at the edges).
    @Test func singletonRangesStayOpen() throws {
        for (schema, value) in [(#"{"type":"integer","minimum":1.5,"maximum":2.5}"#, "2"),
                                (#"{"type":"integer","exclusiveMinimum":-3,"maximum":-2}"#, "-2"),
                                (#"{"type":"integer","minimum":-0.5,"maximum":0.5}"#, "0"),
                                (#"{"type":"integer","minimum":99.5,"exclusiveMaximum":101}"#, "100")] {
            let g = try Grammar(jsonSchema: schema)
            #expect(Replay.accepts(g, value), "\(schema)")
            let m = GrammarMatcher(grammar: g, vocabulary: TestVocab.shared)
            #expect(GrammarCompletionPlanner(matcher: m).shortestCompletionLength(of: m) == value.utf8.count, "\(schema)")
        }
    }

    @Test func exactDecimalRounding() throws {
        func d(_ s: String) -> ExactDecimal { ExactDecimal(s)! }
        #expect(d("1.5").integerCeiling == d("2") && d("1.5").integerFloor == d("1"))
        #expect(d("-1.5").integerCeiling == d("-1") && d("-1.5").integerFloor == d("-2"))
        #expect(d("-0.5").integerCeiling == d("0") && d("0.5").integerFloor == d("0"))
        #expect(d("999").adding(1) == d("1000") && d("-1000").adding(1) == d("-999") && d("0").adding(-1) == d("-1"))
        #expect(d("1e3").adding(-1) == d("999") && d("1").adding(-1) == d("0"))
    }
}
