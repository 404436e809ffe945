import Testing
@testable import Grammar

/// Masks of composed grammars shaped like Provider's tool-call grammar (free text that never
/// contains the opener, then calls whose arguments are JSON-Schema grammars), computed over
/// SmolLM2's real 49k vocabulary: every mask bit is checked against token-by-token acceptance.
/// A regression suite for heap corruption seen only with such grammars and vocabularies.
@Suite(.serialized) struct ComposedMaskTests {
    static let model: ModelVocabulary.Loaded? = try? ModelVocabulary.load()

    static let weather = #"""
        {"type": "object", "properties": {"city": {"type": "string"}, "unit": {"enum": ["celsius", "fahrenheit"]}},
         "required": ["city"], "additionalProperties": false}
        """#
    static let search = #"""
        {"type": "object", "properties": {"query": {"type": "string", "maxLength": 40}, "limit": {"type": "integer", "minimum": 1, "maximum": 10},
         "ratio": {"type": "number"}, "tags": {"type": "array", "items": {"type": "string", "pattern": "^[a-z]+$"}}},
         "required": ["query", "limit"]}
        """#

    /// `text (<tool_call>\n{call}\n</tool_call>)*`, one alternative per tool.
    static func toolGrammar() throws -> Grammar {
        var objects: [Grammar] = []
        for (name, schema) in [("getWeather", weather), ("search", search)] {
            objects.append(try .sequence([Grammar(literal: #"{"name": ""# + name + #"", "arguments": "#),
                                          Grammar(jsonSchema: schema), Grammar(literal: "}")]))
        }
        let block = try Grammar.sequence([Grammar(literal: "<tool_call>\n"), .choice(objects), Grammar(literal: "\n</tool_call>")])
        let more = try Grammar.repetition(.sequence([Grammar(literal: "\n"), block]), minimum: 0, maximum: nil)
        let free = try Grammar.text(excluding: ["<tool_call>", "</tool_call>", "<think>", "</think>"])
        return try .sequence([free, .optional(.sequence([block, more]))])
    }

    /// Greedy longest-match tokenization over the model's tokens.
    static func tokenize(_ text: String, _ tokens: [[UInt8]]) -> [Int] {
        var byBytes: [[UInt8]: Int] = [:]
        var longest = 1
        for (id, t) in tokens.enumerated() where !t.isEmpty && byBytes[t] == nil {
            byBytes[t] = id
            longest = max(longest, t.count)
        }
        let bytes = Array(text.utf8)
        var out: [Int] = []
        var i = 0
        while i < bytes.count {
            var n = min(longest, bytes.count - i)
            while n > 1, byBytes[Array(bytes[i..<(i + n)])] == nil { n -= 1 }
            out.append(byBytes[Array(bytes[i..<(i + n)])]!)
            i += n
        }
        return out
    }

    /// Replays `text`, checking at every step that the mask is exactly the set of accepted tokens.
    static func replay(_ g: Grammar, _ text: String, _ model: ModelVocabulary.Loaded) -> (accepted: Bool, disagreements: Int) {
        let v = model.vocabulary
        let m = GrammarMatcher(grammar: g, vocabulary: v)
        var mask = [UInt64](repeating: 0, count: v.maskWordCount)
        var disagreements = 0
        for t in tokenize(text, model.tokens) {
            m.mask(into: &mask)
            for id in 0..<v.size where (mask[id >> 6] >> UInt64(id & 63) & 1 == 1) != m.isAllowed(token: id) {
                disagreements += 1
            }
            guard m.accept(token: t) else { return (false, disagreements) }
        }
        m.mask(into: &mask)
        let eos = v.endOfGeneration[0]
        return (mask[eos >> 6] >> UInt64(eos & 63) & 1 == 1, disagreements)
    }

    @Test func toolCallGrammarMasksOverSmolLM2() throws {
        let model = try #require(Self.model, "models/default.gguf is missing or unreadable")
        #expect(model.vocabulary.size > 40_000)
        let g = try Self.toolGrammar()
        let call = #"""
            Let me check. <tool_call>
            {"name": "search", "arguments": {"query":"weather in Paris, 日本","limit":10,"ratio":-12.5e3,"tags":["a","bc"]}}
            </tool_call>
            <tool_call>
            {"name": "getWeather", "arguments": {"city":"Paris","unit":"celsius"}}
            </tool_call>
            """#
        let r = Self.replay(g, call, model)
        #expect(r.accepted)
        #expect(r.disagreements == 0)
        let text = Self.replay(g, "The capital of France is Paris; 3.14 < 4 and \"quotes\" are fine.", model)
        #expect(text.accepted)
        #expect(text.disagreements == 0)
        let bad = Self.replay(g, #"<tool_call>{"name": "search", "arguments": {"query":"x","limit":0}}"#, model)
        #expect(!bad.accepted)
        #expect(bad.disagreements == 0)
    }

    @Test func manyComposedGrammarsShareOneVocabulary() throws {
        let model = try #require(Self.model, "models/default.gguf is missing or unreadable")
        // Grammars of different sizes over one vocabulary: per-vocabulary caches must not mix them.
        let plain = try Grammar.sequence([Grammar(literal: "A: "), Grammar(jsonSchema: #"{"type":"string"}"#)])
        let bounded = try Grammar.sequence([.text(excluding: ["<x>"]), Grammar(literal: "<x>"),
                                            Grammar(jsonSchema: #"{"type":"string","minLength":2,"maxLength":3}"#)])
        for (g, text, ok) in [(plain, #"A: "hello, world""#, true), (bounded, #"hi <x>"abc""#, true),
                              (bounded, #"hi <x>"abcd""#, false), (try Self.toolGrammar(), "plain text", true)] {
            let r = Self.replay(g, text, model)
            #expect(r.accepted == ok, "\(text)")
            #expect(r.disagreements == 0, "\(text)")
        }
    }

    /// A number-byte vocabulary: single bytes plus multi-byte digit, fraction and exponent tokens.
    static let numberVocabulary: (vocabulary: GrammarVocabulary, tokens: [[UInt8]]) = {
        var tokens: [[UInt8]] = (0..<256).map { [UInt8($0)] }
        for t in ["25", "50", "5.", ".5", ".0", "0e", "e1", "e-1", "e+1", "1e1", "00", "2.5", "\"}", ",\"", "e-0", "e-2", "e-3", "123", "000", ".5e-1", "2e-0"] { tokens.append(Array(t.utf8)) }
        tokens.append(Array("</s>".utf8))
        return (GrammarVocabulary(tokens: tokens, endOfGeneration: [tokens.count - 1]), tokens)
    }()

    /// Bounded integers whose literal has a fraction or an exponent (`2.5e1`, `20e-1`): the mask
    /// where the number is being read comes from a number slice, whose shared isolated state must
    /// not forget digits the exact integer-prefix check still judges (`2.` then `5` is refused
    /// under `maximum: 5`, `0.` then `5` is not). Every mask bit is checked against acceptance.
    @Test func boundedIntegerSlicesMatchAcceptance() throws {
        let (v, tokens) = Self.numberVocabulary
        let schemas = [#"{"type":"integer","maximum":5}"#, #"{"type":"integer","minimum":20,"maximum":30}"#,
                       #"{"type":"integer","minimum":-5}"#,
                       #"{"type":"object","properties":{"n":{"type":"integer","maximum":5}},"required":["n"]}"#,
                       // Minimums every positive integer meets share the isolated state of `1`; others do not.
                       #"{"type":"integer","minimum":0}"#, #"{"type":"integer","minimum":1}"#,
                       #"{"type":"integer","exclusiveMinimum":0}"#, #"{"type":"integer","minimum":10}"#,
                       #"{"type":"integer","exclusiveMinimum":1}"#, #"{"type":"integer","minimum":0,"multipleOf":3}"#,
                       #"{"$schema":"http://json-schema.org/draft-04/schema#","type":"integer","minimum":0}"#,
                       #"{"type":"object","properties":{"n":{"type":"integer","minimum":1},"m":{"type":"integer","minimum":0}}}"#,
                       #"{"type":"object","properties":{"n":{"type":"integer","minimum":10},"m":{"type":"integer","exclusiveMinimum":1}}}"#]
        let prefixes = ["2.", "2.0", "2.5", "2.5e", "0.", "0.5e", "20e-", "25e", "250e-", "1.", "-", "-2.", "4e", "2e0",
                        "1", "12", "10", "100", "3600", "-1", "-12", "0",
                        #"{"n":2."#, #"{"n":0."#, #"{"n":2.5e"#, #"{"n":20e-"#, #"{"n":36"#, #"{"n":12"#, #"{"m":3600"#, #"{"m":10"#, #"{"n":100"#, #"{"m":2"#, #"{"n":1,"m":12"#]
        // Generation reads integers as plain digits; recognition as any integral literal (`10e-1`).
        for schema in schemas {
          for options in [JSONSchemaOptions(), .recognition] {
            let g = try Grammar(jsonSchema: schema, options: options)
            for prefix in prefixes {
                guard let wrong = Self.maskDisagreements(g, v, tokens, after: Array(prefix.utf8)) else { continue }
                #expect(wrong.isEmpty, "\(schema) after \(prefix): mask and acceptance disagree on \(wrong)")
            }
          }
        }
    }

    /// Walks `prefix` byte by byte, computing a mask before each byte (so masks of earlier states
    /// are cached too), then returns the tokens whose bit in the next mask disagrees with
    /// acceptance; nil when the prefix leaves the grammar.
    static func maskDisagreements(_ g: Grammar, _ v: GrammarVocabulary, _ tokens: [[UInt8]], after prefix: [UInt8]) -> [String]? {
        let m = GrammarMatcher(grammar: g, vocabulary: v)
        var mask = [UInt64](repeating: 0, count: v.maskWordCount)
        for b in prefix {
            m.mask(into: &mask)
            if !m.accept(bytes: [b]) { return nil }
        }
        m.mask(into: &mask)
        var wrong: [String] = []
        for id in 0..<v.size where (mask[id >> 6] >> UInt64(id & 63) & 1 == 1) != m.isAllowed(token: id) {
            wrong.append(String(decoding: tokens[id], as: UTF8.self))
        }
        return wrong
    }

    /// Strings with a `maxLength`: each remaining budget's mask, over SmolLM2's vocabulary
    /// (multi-byte characters, escapes, long tokens), checked bit by bit against acceptance, also
    /// mid-escape and mid-character, with and without a pattern that tracks the decoded value.
    @Test func lengthBudgetedStringMasksMatchAcceptance() throws {
        let model = try #require(Self.model, "models/default.gguf is missing")
        let v = model.vocabulary
        let schemas = [#"{"type":"string","maxLength":0}"#, #"{"type":"string","maxLength":1}"#,
                       #"{"type":"string","maxLength":3}"#, #"{"type":"string","minLength":2,"maxLength":7}"#,
                       #"{"type":"string","maxLength":40}"#, #"{"type":"string","maxLength":5,"pattern":"^[^x]*$"}"#,
                       #"{"type":"object","properties":{"s":{"type":"string","maxLength":4}}}"#]
        let prefixes: [[UInt8]] = [#"""#, #""a"#, #""ab"#, #""abc"#, #""a\"#, #""\u00"#, #""é"#, #""\ud83d"#,
                                   #"{"s":""#, #"{"s":"xy"#, #"{"s":"abcd"#].map { Array($0.utf8) } + [[0x22, 0xE6, 0x97]]
        for schema in schemas {
            for options in [JSONSchemaOptions(), .recognition] {
                let g = try Grammar(jsonSchema: schema, options: options)
                for prefix in prefixes {
                    guard let wrong = Self.maskDisagreements(g, v, model.tokens, after: prefix) else { continue }
                    #expect(wrong.isEmpty, "\(schema) after \(prefix): mask and acceptance disagree on \(wrong.prefix(8))")
                }
            }
        }
    }

    /// Composition's free text is a byte automaton, not a JSON string: even between quotes and
    /// with `"` forbidden, the isolated-string fast path (and its allocation-free string walk)
    /// must decline it, and the generic walk's mask must be exactly the accepted tokens.
    @Test func composedTextIsNotTakenForAJSONString() throws {
        let (v, tokens) = Self.numberVocabulary
        let quoted = try Grammar.sequence([Grammar(literal: #"say: ""#), .text(excluding: ["\"", "\\"], maximumBytes: 6),
                                           Grammar(literal: #"", n: "#), Grammar(jsonSchema: #"{"type":"string","maxLength":3}"#)])
        for prefix in [#"say: ""#, #"say: "ab"#, #"say: "abcdef"#, #"say: "a", n: ""#, #"say: "a", n: "xy"#] {
            let m = GrammarMatcher(grammar: quoted, vocabulary: v)
            #expect(m.accept(bytes: Array(prefix.utf8)), "\(prefix)")
            // At its byte bound the text frame is done and only the closing literal is live (a
            // literal with `"` ahead is fine to isolate); before it, the text frame is live.
            let inText = !prefix.contains(",") && !prefix.hasSuffix("abcdef")
            if inText { #expect(m.automaton.isolatedString(m.current) == -1, "\(prefix)") }
            var mask = [UInt64](repeating: 0, count: v.maskWordCount)
            m.mask(into: &mask)
            var wrong: [String] = []
            for id in 0..<v.size where (mask[id >> 6] >> UInt64(id & 63) & 1 == 1) != m.isAllowed(token: id) {
                wrong.append(String(decoding: tokens[id], as: UTF8.self))
            }
            #expect(wrong.isEmpty, "after \(prefix): mask and acceptance disagree on \(wrong)")
        }
    }
}
