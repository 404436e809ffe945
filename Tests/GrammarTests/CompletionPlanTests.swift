import Foundation
import Testing
@testable import Grammar

/// Every prefix a matcher admits must still be completable, and the planner must find the
/// shortest completion from any such prefix (budget closing depends on both).
@Suite struct CompletionPlanTests {
    static let rating = #"{"type":"object","properties":{"name":{"type":"string"},"rating":{"type":"integer","minimum":1,"maximum":5}},"required":["name","rating"],"additionalProperties":false}"#

    private func matcher(_ schema: String, after prefix: String) throws -> GrammarMatcher {
        let m = GrammarMatcher(grammar: try Grammar(jsonSchema: schema), vocabulary: TestVocab.shared)
        #expect(m.accept(bytes: Array(prefix.utf8)), "prefix \(prefix)")
        return m
    }

    @Test func boundedIntegerRefusesPrefixesNoIntegerCompletes() throws {
        let m = try matcher(Self.rating, after: #"{"name":"b","rating":"#)
        // 2.5 can only become integral as 25 or more; 20e1 is 200.
        for dead in ["2.5", "2.05", "2.0e1", "20e1", "7", "6.0", "0.6e1"] {
            #expect(!m.accept(bytes: Array(dead.utf8)), "\(dead)")
        }
        for alive in ["2.0", "2.00e0", "20e-1", "200.0e-2", "0.5e1", "5e0", "0.", "3"] {
            #expect(m.accept(bytes: Array(alive.utf8)), "\(alive)")
            let planner = GrammarCompletionPlanner(matcher: m)
            #expect(planner.shortestCompletion(of: m) != nil, "\(alive)")
            m.rollback(1)
        }
        #expect(Replay.accepts(try Grammar(jsonSchema: Self.rating), #"{"name":"b","rating":20e-1}"#))
        #expect(!Replay.accepts(try Grammar(jsonSchema: Self.rating), #"{"name":"b","rating":2.5e1}"#))
    }

    @Test func plansAreShortestFromInsideStringsAndKeys() throws {
        let cases: [(String, String)] = [
            (#"{"name":"Bumble"#, #"","rating":1}"#),
            (#"{"name":"x\u12"#, #"00","rating":1}"#),
            (#"{"name":"x","ra"#, #"ting":1}"#),
            (#"{"name":"x","rating":2."#, "0}"),
            (#"{"name":"x","rating":4"#, "}"),
        ]
        for (prefix, completion) in cases {
            let m = try matcher(Self.rating, after: prefix)
            let planner = GrammarCompletionPlanner(matcher: m)
            let plan = planner.shortestCompletion(of: m)
            #expect(plan.map { String(decoding: $0, as: UTF8.self) } == completion, "\(prefix)")
            #expect(planner.shortestCompletionLength(of: m) == completion.utf8.count, "\(prefix)")
        }
    }

    @Test func plansCloseOpenEndedNesting() throws {
        // Open-ended values nest without bound: a configuration-level search cannot bound them,
        // the per-node distances can.
        let schema = #"{"type":"object","properties":{"meta":{},"tags":{"type":"array","items":{"type":"string"}}},"required":["meta","tags"]}"#
        let prefix = #"{"meta":{"a":[{"b":{"c":["#
        let m = try matcher(schema, after: prefix)
        let planner = GrammarCompletionPlanner(matcher: m)
        let plan = try #require(planner.shortestCompletion(of: m))
        #expect(planner.shortestCompletionLength(of: m) == plan.count)
        #expect(m.accept(bytes: plan))
        #expect(m.isComplete)
    }
}
