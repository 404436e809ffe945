import Foundation
import Testing
@testable import Grammar

@Suite struct GBNFTests {
    static let samples = ["arithmetic", "c", "chess", "english", "japanese", "json", "json_arr", "list"]

    @Test(arguments: samples) func sampleCompiles(name: String) throws {
        let g = try Grammar(gbnf: try SharedData.text("grammar/gbnf/\(name).gbnf"))
        #expect(g.nodeCount > 0)
    }

    @Test func sampleLanguages() throws {
        func load(_ n: String) throws -> Grammar { try Grammar(gbnf: try SharedData.text("grammar/gbnf/\(n).gbnf")) }
        let arith = try load("arithmetic")
        #expect(Replay.accepts(arith, "a*b+1=(c-2)\n"))
        #expect(!Replay.accepts(arith, "x=+\n"))
        let chess = try load("chess")
        #expect(Replay.accepts(chess, "1. e4 e5\n2. Nf3 Nc6\n"))
        #expect(!Replay.accepts(chess, "1. e9 e5\n2. Nf3 Nc6\n"))
        let list = try load("list")
        #expect(Replay.accepts(list, "- one\n- two\n"))
        #expect(!Replay.accepts(list, "* one\n"))
        let json = try load("json")
        #expect(Replay.accepts(json, #"{"a": [1, 2.5, "日本"], "b": null}"#))
        #expect(!Replay.accepts(json, #"{"a": [1, 2.5,]}"#))
        let jp = try load("japanese")
        #expect(Replay.accepts(jp, "日本"))
        #expect(!Replay.accepts(jp, "abc"))
        let c = try load("c")
        #expect(Replay.accepts(c, "int main(){return 0;}"))
    }

    @Test func syntaxErrorsAreTyped() {
        #expect(throws: GrammarError.self) { try Grammar(gbnf: "root ::= \"unterminated") }
        #expect(throws: GrammarError.self) { try Grammar(gbnf: "root ::= missing") }
        #expect(throws: GrammarError.self) { try Grammar(gbnf: "start ::= \"a\"") }
        #expect(throws: GrammarError.self) { try Grammar(regex: "a(b") }
        #expect(throws: GrammarError.self) { try Grammar(regex: "(?=a)b") }
    }
}
