import Testing
@testable import Grammar

/// `unevaluatedProperties`/`unevaluatedItems` beside applicators (JSON Schema 2020-12 §11): a
/// member or item is evaluated by the in-place subschemas that hold for the instance (every
/// `anyOf` branch that holds, a successful `if` and its `then`, or the `else` of a failed one,
/// `dependentSchemas` whose property is present), never by `not` or a sibling of an enclosing
/// `allOf`. Instances written from the specification, checked token by token through the masks.
@Suite struct UnevaluatedTests {
    typealias Case = (name: String, schema: String, valid: [String], invalid: [String])

    static let properties: [Case] = [
        ("allOf and adjacent properties evaluate",
         ##"{"type":"object","allOf":[{"properties":{"a":{"type":"integer"}}}],"properties":{"b":{}},"unevaluatedProperties":false}"##,
         valid: ["{}", #"{"a":1}"#, #"{"a":1,"b":"x"}"#],
         invalid: [#"{"c":1}"#, #"{"a":"x"}"#, #"{"a":1,"c":2}"#]),
        // Every anyOf branch that holds evaluates, not only one.
        ("every holding anyOf branch evaluates",
         ##"{"type":"object","anyOf":[{"properties":{"a":{"type":"integer"}}},{"properties":{"b":{"type":"integer"}}}],"unevaluatedProperties":false}"##,
         valid: ["{}", #"{"a":1}"#, #"{"a":1,"b":2}"#, #"{"b":2}"#],
         invalid: [#"{"a":1,"b":"x"}"#, #"{"a":"x","b":2}"#, #"{"c":1}"#]),
        // A branch that holds without evaluating anything leaves its members unevaluated.
        ("a branch holding alone evaluates nothing",
         ##"{"type":"object","anyOf":[{"required":["a"]},{"properties":{"b":true},"required":["b"]}],"unevaluatedProperties":false}"##,
         valid: [#"{"b":1}"#],
         invalid: [#"{"a":1}"#, #"{"a":1,"b":1}"#, "{}"]),
        ("oneOf evaluates through its one branch",
         ##"{"type":"object","oneOf":[{"properties":{"a":{"const":1}},"required":["a"]},{"properties":{"b":{"const":2}},"required":["b"]}],"unevaluatedProperties":false}"##,
         valid: [#"{"a":1}"#, #"{"b":2}"#],
         invalid: [#"{"a":1,"b":2}"#, #"{"a":1,"b":3}"#, #"{"a":1,"c":0}"#, "{}"]),
        // A failed `if` evaluates nothing, not even the members it looked at.
        ("if evaluates only when it holds",
         ##"{"type":"object","if":{"properties":{"kind":{"const":"x"}},"required":["kind"]},"then":{"properties":{"x":{"type":"integer"}}},"else":{"properties":{"y":{"type":"string"}}},"unevaluatedProperties":false}"##,
         valid: [#"{"kind":"x","x":1}"#, #"{"kind":"x"}"#, #"{"y":"s"}"#, "{}"],
         invalid: [#"{"kind":"x","y":"s"}"#, #"{"kind":"z"}"#, #"{"x":1}"#, #"{"kind":"x","x":"s"}"#]),
        ("if without then or else still evaluates",
         ##"{"type":"object","if":{"patternProperties":{"^n":{"type":"integer"}}},"unevaluatedProperties":{"type":"boolean"}}"##,
         valid: [#"{"n1":1,"b":true}"#, "{}", #"{"b":false}"#],
         invalid: [#"{"n1":1,"c":2}"#, #"{"n1":"s"}"#]),
        ("dependentSchemas evaluates when its property is present",
         ##"{"type":"object","properties":{"a":true},"dependentSchemas":{"a":{"properties":{"b":{"type":"integer"}}}},"unevaluatedProperties":false}"##,
         valid: ["{}", #"{"a":1}"#, #"{"a":1,"b":2}"#],
         invalid: [#"{"b":2}"#, #"{"a":1,"b":"x"}"#, #"{"a":1,"c":1}"#]),
        ("not evaluates nothing",
         ##"{"type":"object","not":{"not":{"properties":{"a":true}}},"unevaluatedProperties":false}"##,
         valid: ["{}"], invalid: [#"{"a":1}"#]),
        ("a sibling allOf branch is out of scope",
         ##"{"allOf":[{"properties":{"a":true}},{"unevaluatedProperties":false}]}"##,
         valid: ["{}", "1", #""s""#], invalid: [#"{"a":1}"#]),
        ("a nested unevaluatedProperties evaluates everything",
         ##"{"type":"object","allOf":[{"unevaluatedProperties":true}],"unevaluatedProperties":false}"##,
         valid: ["{}", #"{"a":1}"#], invalid: ["[]"]),
        ("adjacent patternProperties",
         ##"{"type":"object","unevaluatedProperties":false,"properties":{"a":{}},"patternProperties":{"^x":{"type":"integer"}}}"##,
         valid: ["{}", #"{"a":"s","x1":1}"#, #"{"x":2}"#],
         invalid: [#"{"x1":"s"}"#, #"{"b":1}"#]),
        ("additionalProperties in scope evaluates the rest",
         ##"{"type":"object","allOf":[{"additionalProperties":{"type":"integer"}}],"unevaluatedProperties":false}"##,
         valid: ["{}", #"{"a":1}"#], invalid: [#"{"a":"s"}"#]),
        ("$ref evaluates",
         ##"{"$defs":{"base":{"properties":{"a":{"type":"integer"}}}},"$ref":"#/$defs/base","properties":{"b":true},"unevaluatedProperties":{"type":"string"}}"##,
         valid: [#"{"a":1,"b":null,"c":"s"}"#, "{}"], invalid: [#"{"c":1}"#, #"{"a":"s"}"#]),
        ("recursion keeps each level's own evaluation",
         ##"{"type":"object","properties":{"child":{"$ref":"#"}},"allOf":[{"properties":{"v":{"type":"integer"}}}],"unevaluatedProperties":false}"##,
         valid: [#"{"v":1,"child":{"v":2,"child":{}}}"#],
         invalid: [#"{"child":{"w":1}}"#, #"{"v":1,"child":{"child":{"v":"s"}}}"#]),
        // Annotations are per instance location: the outer anyOf says nothing about `o`'s members
        // as seen from the unevaluatedProperties inside `o`.
        ("an uncle's evaluation does not count",
         ##"{"type":"object","properties":{"o":{"properties":{"a":true},"unevaluatedProperties":false}},"anyOf":[{"properties":{"o":{"properties":{"b":true}}}}]}"##,
         valid: [#"{"o":{"a":1}}"#], invalid: [#"{"o":{"b":1}}"#]),
        ("a dynamic reference evaluates through its binding",
         ##"{"$id":"https://example.com/strict-node","$dynamicAnchor":"node","$ref":"node","unevaluatedProperties":false,"$defs":{"node":{"$id":"node","$dynamicAnchor":"node","type":"object","properties":{"v":true,"kids":{"type":"array","items":{"$dynamicRef":"#node"}}}}}}"##,
         valid: [#"{"v":1,"kids":[{"v":2}]}"#, #"{"kids":[]}"#],
         invalid: [#"{"v":1,"kids":[{"w":2}]}"#, #"{"w":1}"#]),
    ]

    static let items: [Case] = [
        ("allOf prefixItems evaluate",
         ##"{"type":"array","prefixItems":[{"type":"string"}],"allOf":[{"prefixItems":[true,{"type":"integer"}]}],"unevaluatedItems":false}"##,
         valid: ["[]", #"["a"]"#, #"["a",1]"#], invalid: [#"["a",1,2]"#, "[1]"]),
        ("every holding anyOf branch evaluates",
         ##"{"type":"array","anyOf":[{"prefixItems":[{"const":1}]},{"prefixItems":[true,{"const":2}]}],"unevaluatedItems":false}"##,
         valid: ["[]", "[1]", "[1,2]", "[5,2]", "[5]"], invalid: ["[1,3]", "[1,2,3]"]),
        ("items in a holding branch evaluates the rest",
         ##"{"type":"array","anyOf":[{"items":{"type":"integer"}},{"prefixItems":[{"type":"string"}]}],"unevaluatedItems":{"type":"boolean"}}"##,
         valid: ["[]", "[1,2]", #"["a",true]"#, #"["a"]"#], invalid: [#"["a","b"]"#, "[true]"]),
        ("contains evaluates the items it matches",
         ##"{"type":"array","contains":{"type":"string"},"unevaluatedItems":{"type":"integer"}}"##,
         valid: [#"["a",1]"#, #"["a","b"]"#, #"[1,"a"]"#], invalid: [#"["a",null]"#, "[1]", "[]"]),
        ("contains in a bare if evaluates only when it holds",
         ##"{"type":"array","if":{"contains":{"const":"x"}},"unevaluatedItems":{"type":"integer"}}"##,
         valid: [#"["x",1]"#, "[1,2]", "[]", #"["x","x"]"#], invalid: [#"["x","y"]"#, #"["y"]"#]),
        ("oneOf over prefixItems",
         ##"{"type":"array","oneOf":[{"prefixItems":[{"const":1}]},{"prefixItems":[{"const":2},true]}],"unevaluatedItems":false}"##,
         valid: ["[1]", "[2,5]", "[2]"], invalid: ["[]", "[1,5]", "[3]"]),
        ("if/then/else over prefixItems",
         ##"{"type":"array","if":{"prefixItems":[{"const":"t"}]},"then":{"prefixItems":[true,{"type":"integer"}]},"else":{"prefixItems":[{"type":"string"}]},"unevaluatedItems":false}"##,
         valid: [#"["t",1]"#, #"["t"]"#, #"["u"]"#, "[]"], invalid: [#"["t",1,2]"#, #"["u",1]"#, #"["t","x"]"#, "[1]"]),
        ("a sibling allOf branch is out of scope",
         ##"{"allOf":[{"prefixItems":[true]},{"unevaluatedItems":false}]}"##,
         valid: ["[]", "{}"], invalid: ["[1]"]),
    ]

    static func check(_ c: Case) throws {
        let g = try Grammar(jsonSchema: c.schema, options: .recognition)
        for text in c.valid { #expect(Replay.accepts(g, text), "\(c.name) should accept \(text)") }
        for text in c.invalid { #expect(!Replay.accepts(g, text), "\(c.name) should reject \(text)") }
    }

    @Test(arguments: 0..<properties.count)
    func unevaluatedProperties(_ index: Int) throws { try Self.check(Self.properties[index]) }

    @Test(arguments: 0..<items.count)
    func unevaluatedItems(_ index: Int) throws { try Self.check(Self.items[index]) }

    /// Which branches hold must be decidable exactly; otherwise the schema is refused.
    @Test func undecidableBranchesAreRefused() {
        // The `if` branch has no exact complement, so "branch 1 fails" cannot be expressed.
        let noComplement = ##"{"type":"object","anyOf":[{"properties":{"a":true}},{"if":{"required":["b"]},"then":{"properties":{"c":true}}}],"unevaluatedProperties":false}"##
        #expect(throws: GrammarError.self) { _ = try Grammar(jsonSchema: noComplement, options: .recognition) }
        let manyBranches = ##"{"type":"object","anyOf":[{"properties":{"a":true}},{"properties":{"b":true}},{"properties":{"c":true}},{"properties":{"d":true}},{"properties":{"e":true}}],"unevaluatedProperties":false}"##
        #expect(throws: GrammarError.self) { _ = try Grammar(jsonSchema: manyBranches, options: .recognition) }
        let negated = ##"{"not":{"unevaluatedProperties":false}}"##
        #expect(throws: GrammarError.self) { _ = try Grammar(jsonSchema: negated, options: .recognition) }
    }
}
