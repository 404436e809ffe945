import Testing
import LoomJSON
@testable import Grammar

/// Configurations with many parser stacks under few top frames (an object key where every branch
/// of an `anyOf` and every remaining property has its own stack) step once per distinct top frame.
/// That must change nothing: masks and acceptance equal those of stepping stack by stack.
@Suite struct GroupedStepTests {
    /// `anyOf` three objects of 24 properties each (the first key has well over 64 stacks).
    static let schema: String = {
        func object(_ tag: String) -> String {
            let props = (0..<24).map { #""\#(tag)\#($0)":{"type":"integer"}"# }.joined(separator: ",")
            return #"{"type":"object","properties":{\#(props)},"required":["\#(tag)0"]}"#
        }
        return #"{"anyOf":[\#(object("a")),\#(object("b")),\#(object("c"))]}"#
    }()

    @Test func groupedStepsEqualStackByStack() throws {
        let g = try Grammar(jsonSchema: try JSONValue(parsing: Self.schema), options: .recognition)
        let v = TestVocab.shared
        let grouped = GrammarMatcher(grammar: g, vocabulary: v)
        grouped.automaton.groupedStepMinimum = 2
        let single = GrammarMatcher(grammar: g, vocabulary: v)
        single.automaton.groupedStepMinimum = .max
        var a = [UInt64](repeating: 0, count: v.maskWordCount), b = a
        let text = #"{"a3":1,"a0":2,"zz":3,"a12":4}"#
        for (k, byte) in Array(text.utf8).enumerated() {
            grouped.mask(into: &a)
            single.mask(into: &b)
            #expect(a == b, "masks differ before byte \(k)")
            let accepted = grouped.accept(bytes: [byte])
            #expect(accepted == single.accept(bytes: [byte]), "acceptance differs at byte \(k)")
            try #require(accepted, "the test text leaves the grammar at byte \(k)")
        }
        #expect(grouped.automaton.groupedSteps > 0, "no configuration stepped by top frame")
        #expect(single.automaton.groupedSteps == 0)
    }
}
