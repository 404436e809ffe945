import Testing
@testable import Grammar

/// Several `contains` in one array (from `allOf`, or `contains` beside a combined one), and one
/// whose schema has no exact complement: every one must be matched by some item, one item may
/// match several, and the array closes only when all are. Instances checked token by token
/// through the masks, against JSON Schema's meaning.
@Suite struct SeveralContainsTests {
    static let cases: [(schema: String, valid: [String], invalid: [String])] = [
        (#"{"type":"array","allOf":[{"contains":{"const":1}},{"contains":{"type":"string"}}]}"#,
         valid: [#"[1,"a"]"#, #"["a",1]"#, #"[2,1,"x",true]"#, #"["a","b",1,1]"#],
         invalid: ["[1]", #"["a"]"#, "[]", "[1,2]", #"["a","b"]"#, #"[2,"1"]"#]),
        // One item may satisfy two of them at once.
        (#"{"type":"array","allOf":[{"contains":{"minimum":5}},{"contains":{"multipleOf":2}}]}"#,
         valid: ["[6]", "[5,2]", "[1,8,3]"],
         invalid: ["[5]", "[2]", "[5,7,9]", "[1,3]"]),
        // Prefix positions keep their own schemas under the claims.
        (#"{"type":"array","prefixItems":[{"type":"number"}],"items":{"type":["number","string"]},"allOf":[{"contains":{"type":"string"}},{"contains":{"type":"number","minimum":5}}]}"#,
         valid: [#"[5,"a"]"#, #"[1,"a",7]"#, #"[9,"x","y"]"#],
         invalid: [#"["a",5]"#, #"[1,"a"]"#, "[5,6]", #"[5,"a",null]"#]),
        // One `contains` whose schema has no exact complement (multipleOf; a nested contains):
        // "at least one" needs none.
        (#"{"type":"array","contains":{"type":"number","multipleOf":11}}"#,
         valid: ["[11]", "[1,22]", "[0]"], invalid: ["[1,2]", "[]", "[12]"]),
        (#"{"type":"array","items":{"type":"array"},"contains":{"contains":{"const":1}}}"#,
         valid: ["[[1]]", "[[],[2,1]]"], invalid: ["[[]]", "[[2],[3]]", "[]"]),
        // Three at once, with maxItems leaving no room to spare.
        (#"{"type":"array","maxItems":2,"allOf":[{"contains":{"type":"null"}},{"contains":{"type":"boolean"}},{"contains":{"const":true}}]}"#,
         valid: ["[null,true]", "[true,null]"],
         invalid: ["[null,false]", "[null]", "[true]", "[null,true,false]"]),
    ]

    @Test(arguments: 0..<cases.count)
    func everyContainsMustBeMatched(_ index: Int) throws {
        let c = Self.cases[index]
        for options in [JSONSchemaOptions.recognition, JSONSchemaOptions()] {
            let g = try Grammar(jsonSchema: c.schema, options: options)
            for text in c.valid { #expect(Replay.accepts(g, text), "\(c.schema) should accept \(text)") }
            for text in c.invalid { #expect(!Replay.accepts(g, text), "\(c.schema) should reject \(text)") }
        }
    }

    @Test func countsBesideSeveralContainsAreRefused() {
        // Which count belongs to which `contains` is lost when they are folded together.
        let schema = #"{"type":"array","allOf":[{"contains":{"const":1},"minContains":2},{"contains":{"const":2}}]}"#
        #expect(throws: GrammarError.self) { _ = try Grammar(jsonSchema: schema) }
        let many = #"{"type":"array","allOf":[{"contains":{"const":1}},{"contains":{"const":2}},{"contains":{"const":3}},{"contains":{"const":4}},{"contains":{"const":5}}]}"#
        #expect(throws: GrammarError.self) { _ = try Grammar(jsonSchema: many) }
    }
}
