import Testing
@testable import Grammar

@Suite struct CompositionTests {
    @Test func literalAcceptsExactlyItsText() throws {
        let g = Grammar(literal: "<tool_call>")
        #expect(Replay.accepts(g, "<tool_call>"))
        #expect(!Replay.accepts(g, "<tool_call"))
        #expect(!Replay.accepts(g, "<tool_call>x"))
        #expect(Replay.accepts(Grammar.empty, ""))
        #expect(!Replay.accepts(Grammar.empty, "a"))
    }

    @Test func sequenceOfSchemaAndLiterals() throws {
        let args = try Grammar(jsonSchema: #"{"type":"object","properties":{"city":{"type":"string"}},"required":["city"]}"#)
        let g = try Grammar.sequence([Grammar(literal: "<c>"), args, Grammar(literal: "</c>")])
        #expect(Replay.accepts(g, #"<c>{"city":"Paris"}</c>"#))
        #expect(!Replay.accepts(g, #"<c>{"town":"Paris"}</c>"#))
        #expect(!Replay.accepts(g, #"<c>{"city":3}</c>"#))
        #expect(!Replay.accepts(g, #"<c>{"city":"Paris"}"#))
        #expect(!Replay.accepts(g, #"{"city":"Paris"}</c>"#))
    }

    @Test func choiceKeepsEachAlternativeIntact() throws {
        let a = try Grammar(jsonSchema: #"{"enum":["x","y"]}"#)
        let b = try Grammar(gbnf: #"root ::= "n" [0-9]+"#)
        let g = try Grammar.choice([a, b])
        #expect(Replay.accepts(g, #""x""#))
        #expect(Replay.accepts(g, "n123"))
        #expect(!Replay.accepts(g, #""z""#))
        #expect(!Replay.accepts(g, "n"))
        let none = try Grammar.choice([])
        #expect(!Replay.accepts(none, ""))
    }

    @Test func recursiveGrammarsSurviveEmbedding() throws {
        // Recursive rules (JSON arrays of arrays) keep their shape when renumbered.
        let json = try Grammar(gbnf: """
            root ::= "[" (root ("," root)*)? "]"
            """)
        let g = try Grammar.sequence([Grammar(literal: "a"), json, Grammar(literal: "b"), json])
        #expect(Replay.accepts(g, "a[[],[[]]]b[]"))
        #expect(!Replay.accepts(g, "a[[]b[]"))
    }

    @Test func repetitionBounds() throws {
        let item = Grammar(literal: "ab")
        let g = try Grammar.repetition(item, minimum: 1, maximum: 3)
        #expect(!Replay.accepts(g, ""))
        #expect(Replay.accepts(g, "ab"))
        #expect(Replay.accepts(g, "ababab"))
        #expect(!Replay.accepts(g, "abababab"))
        let opt = try Grammar.optional(item)
        #expect(Replay.accepts(opt, ""))
        #expect(Replay.accepts(opt, "ab"))
        #expect(throws: GrammarError.self) { try Grammar.repetition(item, minimum: 3, maximum: 2) }
    }

    @Test func textExcludingNeverContainsTheForbiddenStrings() throws {
        let g = try Grammar.text(excluding: ["<tool_call>", "<think>"])
        #expect(Replay.accepts(g, ""))
        #expect(Replay.accepts(g, "Hello <tool and <think but no call. 日本 é \u{1F600}"))
        #expect(Replay.accepts(g, "<<tool_call"))
        #expect(!Replay.accepts(g, "x<tool_call>"))
        #expect(!Replay.accepts(g, "<think>"))
        #expect(!Replay.accepts(g, "a<<think>b"))
    }

    @Test func textIsValidUTF8() throws {
        let g = try Grammar.text(excluding: [])
        let v = TestVocab.shared
        let m = GrammarMatcher(grammar: g, vocabulary: v)
        // The first two bytes of "日" are fine mid-stream, but the text cannot end there.
        let head = TestVocab.eos + 1
        #expect(m.accept(token: head))
        #expect(!m.isComplete)
        #expect(m.accept(token: head + 1))
        #expect(m.isComplete)
        // A lone continuation byte or an overlong lead byte is never allowed.
        let fresh = GrammarMatcher(grammar: g, vocabulary: v)
        #expect(!fresh.accept(token: 0x80))
        #expect(!fresh.accept(token: 0xC0))
        #expect(!fresh.accept(token: 0xFF))
    }

    @Test func textLengthBound() throws {
        let g = try Grammar.text(excluding: ["x"], maximumBytes: 3)
        #expect(Replay.accepts(g, "abc"))
        #expect(!Replay.accepts(g, "abcd"))
        #expect(!Replay.accepts(g, "ax"))
    }

    @Test func textOrCallAtTheStart() throws {
        // Free text without the opener, then optionally a call: the call is reachable first.
        let call = try Grammar.sequence([Grammar(literal: "<tool_call>"), Grammar(jsonSchema: #"{"type":"integer"}"#),
                                         Grammar(literal: "</tool_call>")])
        let g = try Grammar.sequence([Grammar.text(excluding: ["<tool_call>"]), Grammar.optional(call)])
        #expect(Replay.accepts(g, "<tool_call>12</tool_call>"))
        #expect(Replay.accepts(g, "Let me check.<tool_call>12</tool_call>"))
        #expect(Replay.accepts(g, "Just text."))
        #expect(!Replay.accepts(g, "<tool_call>x</tool_call>"))
        #expect(!Replay.accepts(g, "<tool_call>12</tool_call> more"))
        let m = GrammarMatcher(grammar: g, vocabulary: TestVocab.shared)
        #expect(m.accept(bytes: Array("<tool_call>".utf8)))
        #expect(!m.isComplete)
    }

    @Test func warningsAreCollected() throws {
        var o = JSONSchemaOptions()
        o.lenient = true
        let a = try Grammar(jsonSchema: #"{"type":"string","format":"no-such-format-xyz"}"#, options: o)
        let g = try Grammar.sequence([a, Grammar(literal: "!")])
        #expect(g.warnings == a.warnings)
    }
}
