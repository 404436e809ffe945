import Foundation
import Testing
@testable import Grammar

@Suite struct MatcherTests {
    @Test func regexFullMatch() throws {
        let g = try Grammar(regex: "a(b|c)*d{2,3}")
        #expect(Replay.accepts(g, "add"))
        #expect(Replay.accepts(g, "abcbddd"))
        #expect(!Replay.accepts(g, "ad"))
        #expect(!Replay.accepts(g, "adddd"))
        #expect(!Replay.accepts(g, "xadd"))
    }

    @Test func gbnfJSON() throws {
        let g = try Grammar(gbnf: #"""
            root ::= value
            value ::= object | array | string | number | ("true" | "false" | "null") ws
            object ::= "{" ws ( string ":" ws value ("," ws string ":" ws value)* )? "}" ws
            array ::= "[" ws ( value ("," ws value)* )? "]" ws
            string ::= "\"" ( [^"\\\x7F\x00-\x1F] | "\\" (["\\bfnrt] | "u" [0-9a-fA-F]{4}) )* "\"" ws
            number ::= ("-"? ([0-9] | [1-9] [0-9]{0,15})) ("." [0-9]+)? ([eE] [-+]? [0-9]+)? ws
            ws ::= | " " | "\n" [ \t]{0,20}
            """#)
        #expect(Replay.accepts(g, #"{"name":"日本","id":[1,2.5,true,null]}"#))
        #expect(Replay.accepts(g, #"{"a":{"b":[]}}"#))
        #expect(!Replay.accepts(g, #"{"a":}"#))
        #expect(!Replay.accepts(g, #"{"a":1"#))
    }

    @Test func leftRecursionIsRefused() {
        #expect(throws: GrammarError.self) { try Grammar(gbnf: "root ::= root \"a\" | \"b\"") }
    }

    @Test func maskEqualsBruteForce() throws {
        let g = try Grammar(gbnf: #"""
            root ::= "{" ws "\"name\"" ws ":" ws str ("," ws "\"id\"" ws ":" ws num)? ws "}"
            str ::= "\"" [^"\\]* "\""
            num ::= "-"? [0-9]+
            ws ::= [ \n]*
            """#)
        let v = TestVocab.shared
        let text = #"{"name": "日本 the é","id":-123}"#
        let toks = TestVocab.tokenize(text)
        let m = GrammarMatcher(grammar: g, vocabulary: v)
        var mask = [UInt64](repeating: 0, count: v.maskWordCount)
        for t in toks {
            m.mask(into: &mask)
            for tok in 0..<v.size {
                let probe = m.fork()
                let allowed = probe.accept(token: tok)
                let bit = mask[tok >> 6] >> UInt64(tok & 63) & 1 == 1
                #expect(allowed == bit, "token \(tok) \(v.bytes(of: tok))")
            }
            #expect(m.accept(token: t))
        }
        #expect(m.isComplete)
    }

    /// `mask(into: &array)` sizes the array: an array passed with `&` must never bind to the
    /// pointer overload and be written past its end (an easy mistake in a fuzz harness).
    @Test func maskIntoAShortArrayResizesIt() throws {
        let g = try Grammar(regex: "ab")
        let m = GrammarMatcher(grammar: g, vocabulary: TestVocab.shared)
        var short: [UInt64] = [0]
        m.mask(into: &short)
        #expect(short.count == m.maskWordCount)
        var full = [UInt64](repeating: 0, count: m.maskWordCount)
        full.withUnsafeMutableBufferPointer { m.mask(into: $0) }
        #expect(short == full)
    }

    @Test func rollbackRestoresState() throws {
        let g = try Grammar(regex: "(ab|cd)+")
        let m = GrammarMatcher(grammar: g, vocabulary: TestVocab.shared)
        let a = Int(UInt8(ascii: "a")), b = Int(UInt8(ascii: "b")), c = Int(UInt8(ascii: "c"))
        #expect(m.accept(token: a))
        #expect(m.accept(token: b))
        #expect(m.isComplete)
        #expect(m.accept(token: c))
        #expect(!m.isComplete)
        m.rollback(2)
        #expect(!m.isComplete)
        #expect(!m.accept(token: c))
        #expect(m.accept(token: b))
        #expect(m.isComplete)
    }

    @Test func forcedBytes() throws {
        let g = try Grammar(gbnf: #"root ::= "{\"name\":" [0-9]+ "}""#)
        let m = GrammarMatcher(grammar: g, vocabulary: TestVocab.shared)
        #expect(m.forcedBytes() == Array(#"{"name":"#.utf8))
    }

    @Test func splitUTF8Tokens() throws {
        let g = try Grammar(gbnf: "root ::= [一-鿿]+")
        let v = TestVocab.shared
        let m = GrammarMatcher(grammar: g, vocabulary: v)
        #expect(m.accept(token: v.size - 2))  // E6 97
        #expect(!m.isComplete)
        #expect(m.accept(token: v.size - 1))  // A5
        #expect(m.isComplete)
    }
}

@Suite struct SchemaMaskTests {
    /// Every mask along an instance equals checking each token separately on a fork.
    @Test(arguments: [
        (#"{"type":"object","properties":{"name":{"type":"string","maxLength":12},"id":{"type":"integer","minimum":-5,"maximum":200},"tags":{"type":"array","items":{"enum":["ab","abc","x"]},"uniqueItems":true}},"required":["name"]}"#,
         #"{"id":123,"name":"日本 the é\n","tags":["abc","x"]}"#),
        (#"{"type":"object","properties":{"d":{"type":"string","format":"date"},"p":{"type":"string","pattern":"^a(b|c)+$"}},"additionalProperties":false}"#,
         #"{"p":"abcb","d":"2024-02-29"}"#),
    ])
    func maskEqualsBruteForce(schema: String, text: String) throws {
        for options in [JSONSchemaOptions.recognition, JSONSchemaOptions()] {
            let g = try Grammar(jsonSchema: schema, options: options)
            let v = TestVocab.shared
            let m = GrammarMatcher(grammar: g, vocabulary: v)
            var mask = [UInt64](repeating: 0, count: v.maskWordCount)
            let input = options.schemaOrder ? text.replacingOccurrences(of: "\n", with: "\\n") : text
            for t in TestVocab.tokenize(input) {
                m.mask(into: &mask)
                for tok in 0..<v.size {
                    let allowed = m.fork().accept(token: tok)
                    let bit = mask[tok >> 6] >> UInt64(tok & 63) & 1 == 1
                    #expect(allowed == bit, "token \(tok) \(v.bytes(of: tok))")
                }
                if !m.accept(token: t) { break }
            }
        }
    }

    @Test func soundOnInvalid() throws {
        let g = try Grammar(jsonSchema: #"{"type":"object","properties":{"a":{"type":"integer","maximum":10}},"required":["a"],"additionalProperties":false}"#,
                            options: .recognition)
        #expect(Replay.accepts(g, #"{"a":10}"#))
        #expect(!Replay.accepts(g, #"{"a":11}"#))
        #expect(Replay.firstRejected(g, #"{"a":15}"#) != nil)
        #expect(!Replay.accepts(g, #"{"a":1,"b":2}"#))
        #expect(!Replay.accepts(g, #"{}"#))
    }
}
