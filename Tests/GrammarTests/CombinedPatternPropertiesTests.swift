import Testing
@testable import Grammar

/// `patternProperties` in several combined schemas (`allOf`, or beside the exemptions an
/// `unevaluatedProperties` adds): each key falls in the region of exactly the patterns it
/// matches, takes the schemas of those patterns, and the `additionalProperties` of every schema
/// none of whose patterns it matches.
@Suite struct CombinedPatternPropertiesTests {
    static let schema = #"{"type":"object","patternProperties":{"^a":{"type":"integer"}},"allOf":[{"patternProperties":{"b$":{"minimum":1}},"additionalProperties":{"type":"string"}}]}"#

    @Test func eachKeyTakesTheSchemasOfItsPatterns() throws {
        let g = try Grammar(jsonSchema: Self.schema, options: .recognition)
        // "ab" matches both patterns; "xb" only the second (the first schema has no
        // additionalProperties); "x" neither (the second schema's additionalProperties).
        for text in [#"{"ab":1}"#, #"{"xb":5}"#, #"{"xb":"s"}"#, #"{"x":"s"}"#, "{}"] {
            #expect(Replay.accepts(g, text), "should accept \(text)")
        }
        // "a" matches only the first pattern, so the second schema's additionalProperties (a
        // string) applies too: no value is both.
        for text in [#"{"ab":0}"#, #"{"a":1}"#, #"{"x":1}"#, #"{"ab":"s"}"#, #"{"xb":0}"#] {
            #expect(!Replay.accepts(g, text), "should reject \(text)")
        }
    }
}
