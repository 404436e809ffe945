import Testing
@testable import Grammar

/// `$dynamicRef` resolved through the dynamic scope (JSON Schema 2020-12 §8.2.3.2): when the
/// reference's initial target carries a matching `$dynamicAnchor`, it binds to the outermost
/// resource evaluation entered that defines that anchor; otherwise it is a plain `$ref`.
/// Instances written from the specification, checked token by token through the masks.
@Suite struct DynamicRefTests {
    static let cases: [(name: String, schema: String, valid: [String], invalid: [String])] = [
        // A recursive list extended by the resource that references it: the nested nodes are
        // the extension (which requires `v`), not the base list.
        ("extension rebinds the recursion",
         ##"{"$id":"https://example.com/strict","$dynamicAnchor":"node","$ref":"list","required":["v"],"$defs":{"list":{"$id":"list","$dynamicAnchor":"node","type":"object","properties":{"v":{"type":"integer"},"next":{"$dynamicRef":"#node"}}}}}"##,
         valid: [#"{"v":1}"#, #"{"v":1,"next":{"v":2}}"#, #"{"next":{"v":2,"next":{"v":3}},"v":0}"#],
         invalid: [#"{"next":{"v":2}}"#, #"{"v":1,"next":{"w":2}}"#, #"{"v":1,"next":{"v":2,"next":{}}}"#, #"{"v":1,"next":{"v":"x"}}"#]),
        // The same list on its own: the outermost resource defining `node` is the list itself.
        ("no extension",
         ##"{"$id":"https://example.com/list","$dynamicAnchor":"node","type":"object","properties":{"v":{"type":"integer"},"next":{"$dynamicRef":"#node"}}}"##,
         valid: [#"{"v":1,"next":{"w":2}}"#, #"{"next":{"next":{}}}"#],
         invalid: [#"{"next":{"v":"x"}}"#, #"{"next":[]}"#]),
        // The initial target has only an `$anchor`: no bookend, so the reference stays static
        // and the outer `$dynamicAnchor` does not apply.
        ("no bookend, plain reference",
         ##"{"$id":"https://example.com/strict2","$dynamicAnchor":"node","$ref":"list","required":["v"],"$defs":{"list":{"$id":"list","$anchor":"node","type":"object","properties":{"v":{"type":"integer"},"next":{"$dynamicRef":"#node"}}}}}"##,
         valid: [#"{"v":1,"next":{"w":2}}"#, #"{"v":1,"next":{}}"#],
         invalid: [#"{"next":{"v":2}}"#, #"{"v":1,"next":{"v":"x"}}"#]),
        // One generic box reached through two resources that bind its item type differently;
        // `oneOf` negates each path, so the complement must keep the binding too.
        ("two paths, two bindings",
         ##"{"$id":"https://example.com/pair","oneOf":[{"$ref":"ints"},{"$ref":"strs"}],"$defs":{"box":{"$id":"box","type":"object","properties":{"x":{"$dynamicRef":"#t"}},"required":["x"],"$defs":{"any":{"$dynamicAnchor":"t"}}},"ints":{"$id":"ints","$ref":"box","$defs":{"t":{"$dynamicAnchor":"t","type":"integer"}}},"strs":{"$id":"strs","$ref":"box","$defs":{"t":{"$dynamicAnchor":"t","type":"string"}}}}}"##,
         valid: [#"{"x":1}"#, #"{"x":"a"}"#],
         invalid: [#"{"x":null}"#, #"{"x":[]}"#, "{}"]),
        // A sibling `allOf` branch's resource is never entered on the way to the reference.
        ("sibling resources are not in scope",
         ##"{"$id":"https://example.com/s","allOf":[{"$id":"a","$defs":{"t":{"$dynamicAnchor":"t","type":"string"}}},{"$ref":"box"}],"$defs":{"box":{"$id":"box","properties":{"x":{"$dynamicRef":"#t"}},"$defs":{"t":{"$dynamicAnchor":"t","type":"integer"}}}}}"##,
         valid: [#"{"x":1}"#, "{}"],
         invalid: [#"{"x":"s"}"#]),
    ]

    @Test(arguments: 0..<cases.count)
    func resolvesThroughTheDynamicScope(_ index: Int) throws {
        let c = Self.cases[index]
        let g = try Grammar(jsonSchema: c.schema, options: .recognition)
        for text in c.valid { #expect(Replay.accepts(g, text), "\(c.name) should accept \(text)") }
        for text in c.invalid { #expect(!Replay.accepts(g, text), "\(c.name) should reject \(text)") }
    }

    @Test func recursiveAnchorIsRefused() {
        let schema = ##"{"$schema":"https://json-schema.org/draft/2019-09/schema","$recursiveAnchor":true,"type":"object","properties":{"next":{"$recursiveRef":"#"}}}"##
        #expect(throws: GrammarError.self) { _ = try Grammar(jsonSchema: schema, options: .recognition) }
    }
}
