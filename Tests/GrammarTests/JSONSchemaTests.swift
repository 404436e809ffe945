import Testing
@testable import Grammar

@Suite struct JSONSchemaTests {
    func g(_ schema: String, _ options: JSONSchemaOptions = .recognition) throws -> Grammar {
        try Grammar(jsonSchema: schema, options: options)
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

@Suite struct JSONSchemaBisect {
    @Test func bisect() throws {
        for (schema, inst) in [(#"{"type":"object"}"#, #"{"a":{"b":1}}"#), (#"{"type":"object"}"#, #"{"a": {"b":1}}"#),
                               (#"{"type":"object"}"#, #"{"x":{"y":1}}"#), (#"{"type":"object"}"#, #"{"x":{"y":{"z":1}}}"#)] {
            let s = try Grammar(jsonSchema: schema, options: .recognition)
            print("BISECT", schema, inst, Replay.firstRejected(s, inst) as Any, TestVocab.tokenize(inst).map { String(decoding: TestVocab.shared.bytes(of: $0), as: UTF8.self) })
        }
    }
}

@Suite struct AutomatonDebug {
    @Test func trace() throws {
        let g = try Grammar(jsonSchema: #"{"type":"object"}"#, options: .recognition)
        let a = GrammarAutomaton(g)
        var c = a.start
        for b in Array(#"{"x":{""#.utf8) {
            let n = a.next(c, b)
            print("TRACE byte \(UnicodeScalar(b)) -> cfg \(n)")
            if n < 0 { break }
            for s in a.cfgReady[Int(n)] { print("TRACE   ", a.describe(s)) }
            c = n
        }
    }
}
