import Testing
import LoomJSON
import Grammar

/// A `oneOf` whose branches differ in a `const` property is an `anyOf` among objects, but its
/// branches (without a `type` of their own) overlap on every other type. Under the schema's own
/// `"type": "object"` the branches need only be disjoint among objects, so no branch has to be
/// negated — here a branch whose complement Loom cannot build, so the schema compiles at all
/// only through that proof.
@Suite struct OneOfWithinTypeTests {
    static let schema = #"""
    {"type":"object","oneOf":[
      {"properties":{"kind":{"const":"a"},"xs":{"type":"array","contains":{"const":1},"minContains":2}},"required":["kind"]},
      {"properties":{"kind":{"const":"b"}},"required":["kind"]}]}
    """#

    @Test func branchesToldApartWithinTheSchemasType() throws {
        let g = try Grammar(jsonSchema: try JSONValue(parsing: Self.schema), options: .recognition)
        #expect(Replay.accepts(g, #"{"kind":"a","xs":[1,2,1]}"#))
        #expect(Replay.accepts(g, #"{"kind":"b","xs":[]}"#))
        #expect(!Replay.accepts(g, #"{"kind":"a","xs":[1]}"#))
        #expect(!Replay.accepts(g, #"{"kind":"c"}"#))
        #expect(!Replay.accepts(g, #"{"xs":[1,1]}"#))
    }

    /// Without the enclosing `type`, the branches overlap (any non-object satisfies both), and the
    /// complement the exclusivity needs is refused, typed (at the `minContains` it cannot negate).
    @Test func withoutTheTypeTheOverlapNeedsTheComplement() throws {
        let untyped = Self.schema.replacingOccurrences(of: #""type":"object","oneOf""#, with: #""oneOf""#)
        let error = try #require(throws: GrammarError.self) {
            try Grammar(jsonSchema: try JSONValue(parsing: untyped), options: .recognition)
        }
        #expect(error.kind == .unsupported)
        #expect(error.reason.contains("minContains"), "\(error.reason)")
    }
}
