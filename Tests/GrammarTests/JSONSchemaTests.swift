import Testing
@testable import Grammar

@Suite struct JSONSchemaTests {
    func g(_ schema: String, _ options: JSONSchemaOptions = .recognition) throws -> Grammar {
        try Grammar(jsonSchema: schema, options: options)
    }

    /// Keywords newer than the declared draft are unknown keywords there, i.e. annotations: a
    /// draft-04 schema's `if`/`then` and `const` constrain nothing (MaskBench's
    /// Github_medium---o39097 has such an `if`, and a valid instance that breaks its `then`).
    @Test func keywordsNewerThanTheDeclaredDraftAreAnnotations() throws {
        let body = #""type":"object","properties":{"k":{"const":"a"}},"if":{"properties":{"t":{"const":"x"}}},"then":{"required":["q"]}"#
        let draft4 = try g(#"{"$schema":"http://json-schema.org/draft-04/schema#","# + body + "}")
        #expect(Replay.accepts(draft4, #"{"t":"x","k":"b"}"#))
        let draft6 = try g(#"{"$schema":"http://json-schema.org/draft-06/schema#","# + body + "}")
        #expect(!Replay.accepts(draft6, #"{"k":"b"}"#))
        #expect(Replay.accepts(draft6, #"{"t":"x","k":"a"}"#))
        let draft7 = try g(#"{"$schema":"http://json-schema.org/draft-07/schema#","# + body + "}")
        #expect(!Replay.accepts(draft7, #"{"t":"x","k":"a"}"#))
        #expect(Replay.accepts(draft7, #"{"t":"x","k":"a","q":1}"#))
        // A property named like a keyword is a name, not a keyword.
        let names = try g(#"{"$schema":"http://json-schema.org/draft-04/schema#","properties":{"if":{"type":"integer"}}}"#)
        #expect(!Replay.accepts(names, #"{"if":"x"}"#))
        // Without `$schema`, 2020-12: everything applies.
        #expect(!Replay.accepts(try g("{" + body + "}"), #"{"t":"x","k":"a"}"#))
    }

    @Test func anyObject() throws {
        let s = try g(#"{"type":"object"}"#)
        #expect(Replay.accepts(s, #"{"a":1}"#))
        #expect(Replay.accepts(s, #"{"a":{"b":[1,"x",null]},"c":true}"#))
        #expect(!Replay.accepts(s, #"[1]"#))
    }

    @Test func nestedDeclared() throws {
        let s = try g(#"{"properties":{"meta":{"type":"object","properties":{"x":{"type":"integer"},"y":{"type":["integer","null"]}}}}}"#)
        #expect(Replay.accepts(s, #"{"meta":{"x":1}}"#))
        #expect(Replay.accepts(s, #"{"meta":{"y":null,"x":1,"z":"q"}}"#))
        #expect(Replay.accepts(s, #"{"meta":{"x":10,"y":20},"o":[{"id":1}]}"#))
        #expect(!Replay.accepts(s, #"{"meta":{"x":"1"}}"#))
        #expect(!Replay.accepts(s, #"{"meta":{"x":1,"x":2}}"#))
    }
}

@Suite struct JSONSchemaConstructTests {
    func g(_ schema: String, _ options: JSONSchemaOptions = .recognition) throws -> Grammar {
        try Grammar(jsonSchema: schema, options: options)
    }

    @Test func nestedAnyValues() throws {
        let s = try g(#"{"type":"object"}"#)
        for inst in [#"{"a":{"b":1},"c":true}"#, #"{"x":{"y":{"z":1}}}"#, #"{"a": {"b":1}}"#, #"{"b":[]}"#, #"{"a":[{"id":1}],"c":1}"#] {
            #expect(Replay.accepts(s, inst), "\(inst)")
        }
    }

    @Test func propertyOrderAndRequired() throws {
        let schema = #"{"type":"object","properties":{"a":{"type":"integer"},"b":{"type":"string"}},"required":["a","b"],"additionalProperties":false}"#
        let any = try g(schema)
        #expect(Replay.accepts(any, #"{"b":"x","a":1}"#))
        #expect(!Replay.accepts(any, #"{"a":1}"#))
        #expect(!Replay.accepts(any, #"{"a":1,"b":"x","a":2}"#))
        let ordered = try g(schema, JSONSchemaOptions())
        #expect(Replay.accepts(ordered, #"{"a":1,"b":"x"}"#))
        #expect(!Replay.accepts(ordered, #"{"b":"x","a":1}"#))
        #expect(!Replay.accepts(ordered, #"{"a": 1,"b":"x"}"#))
    }

    @Test func notOneOfIfThen() throws {
        let s = try g(#"{"type":"object","properties":{"kind":{"enum":["a","b"]},"n":{"type":"integer","not":{"const":3}}},"if":{"properties":{"kind":{"const":"a"}}},"then":{"required":["n"]},"oneOf":[{"required":["kind"]},{"required":["n"]}]}"#)
        #expect(Replay.accepts(s, #"{"kind":"b"}"#))
        #expect(!Replay.accepts(s, #"{"kind":"a"}"#))
        #expect(!Replay.accepts(s, #"{"kind":"a","n":1}"#))
        #expect(Replay.accepts(s, #"{"n":1}"#))
        #expect(!Replay.accepts(s, #"{"n":3}"#))
    }

    @Test func numbersExact() throws {
        let s = try g(#"{"type":"number","minimum":0.1,"exclusiveMaximum":2.5,"multipleOf":0.1}"#)
        #expect(Replay.accepts(s, "0.1"))
        #expect(Replay.accepts(s, "2.4"))
        #expect(Replay.accepts(s, "1e-1"))
        #expect(!Replay.accepts(s, "2.5"))
        #expect(!Replay.accepts(s, "0.15"))
        #expect(!Replay.accepts(s, "0"))
        let i = try g(#"{"type":"integer","minimum":-20,"maximum":300}"#)
        #expect(Replay.accepts(i, "-20"))
        #expect(Replay.accepts(i, "300"))
        #expect(Replay.accepts(i, "3.0"))
        // 400 is out of range, but its prefixes are not dead: 400e-2 is the integer 4.
        #expect(!Replay.accepts(i, "400"))
        #expect(Replay.accepts(i, "400e-2"))
        #expect(Replay.firstRejected(i, "3.5") != nil)
        #expect(Replay.firstRejected(i, "301") != nil)
        #expect(!Replay.accepts(i, "-21"))
    }

    @Test func uniqueEnumItems() throws {
        let s = try g(#"{"type":"array","items":{"enum":["x","y",1]},"uniqueItems":true,"minItems":2}"#)
        #expect(Replay.accepts(s, #"["x",1]"#))
        #expect(!Replay.accepts(s, #"["x","x"]"#))
        #expect(!Replay.accepts(s, #"["x"]"#))
    }

    @Test func errorsNameKeywordAndPointer() {
        do {
            _ = try Grammar(jsonSchema: #"{"properties":{"a":{"type":"array","items":{"type":"object"},"uniqueItems":true}}}"#)
            Issue.record("expected an error")
        } catch {
            #expect(error.keyword == "uniqueItems")
            #expect(error.pointer == "/properties/a/uniqueItems")
        }
        let lenient = try? Grammar(jsonSchema: #"{"type":"array","uniqueItems":true}"#, options: JSONSchemaOptions(lenient: true))
        #expect(lenient?.warnings.count == 1)
    }

    @Test func formats() throws {
        let s = try g(#"{"type":"array","prefixItems":[{"format":"date-time"},{"format":"ipv4"},{"format":"uuid"},{"format":"email"},{"format":"custom-annotation"}]}"#)
        #expect(Replay.accepts(s, #"["2024-02-29T10:00:00Z","10.0.0.1","123e4567-e89b-12d3-a456-426655440000","a@b.com","anything"]"#))
        #expect(!Replay.accepts(s, #"["2023-02-29T10:00:00Z"]"#))
        #expect(!Replay.accepts(s, #"["2024-02-28T10:00:00Z","10.0.0.256"]"#))
    }

    @Test func rollbackThroughSchema() throws {
        let s = try g(#"{"type":"object","properties":{"a":{"type":"string","maxLength":3}},"additionalProperties":false}"#)
        let v = TestVocab.shared
        let m = GrammarMatcher(grammar: s, vocabulary: v)
        let toks = TestVocab.tokenize(#"{"a":"abc"}"#)
        for t in toks { #expect(m.accept(token: t)) }
        #expect(m.isComplete)
        m.rollback(2)
        #expect(!m.isComplete)
        for t in toks.suffix(2) { #expect(m.accept(token: t)) }
        #expect(m.isComplete)
        #expect(m.accept(token: TestVocab.eos))
        #expect(m.isTerminated)
    }
}
