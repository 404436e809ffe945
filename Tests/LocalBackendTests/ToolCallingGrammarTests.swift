import Testing
import Engine
import Grammar
import LoomJSON
@testable import LocalBackend
@testable import Provider

/// Replays text through a grammar token by token, every token checked against the mask first.
struct ToolCallingReplay: Sendable {
    let vocabulary: GrammarVocabulary
    let tokenize: @Sendable (String) -> [Int]

    /// A byte-level vocabulary with the markers and some JSON pieces as whole tokens.
    static let small: ToolCallingReplay = {
        let extra = ["<tool_call>", "</tool_call>", "<think>", "</think>", "[TOOL_CALLS]", "{\"", "\":", "\": \"", "\", \"",
                     "name", "arguments", "parameters", "getWeather", "search", "city", "Paris", "\"}", "}}", "Hello", " the"]
        var tokens: [[UInt8]] = (0..<256).map { [UInt8($0)] }
        tokens += extra.map { Array($0.utf8) }
        tokens.append(Array("</s>".utf8))
        let v = GrammarVocabulary(tokens: tokens, endOfGeneration: [tokens.count - 1])
        var table: [[UInt8]: Int] = [:]
        for t in 0..<(tokens.count - 1) { table[tokens[t]] = t }
        let byBytes = table
        let maxLen = tokens.map(\.count).max()!
        return ToolCallingReplay(vocabulary: v) { text in
            longestMatchTokens(Array(text.utf8), tokenIDs: byBytes, maxLength: maxLen)
        }
    }()

    /// nil when every token was inside its mask and end-of-generation was then allowed; else the
    /// index of the first refused token (`count` when only the end was refused).
    func firstRejected(_ g: Grammar, _ text: String) -> Int? {
        let m = GrammarMatcher(grammar: g, vocabulary: vocabulary)
        var mask = [UInt64](repeating: 0, count: vocabulary.maskWordCount)
        let toks = tokenize(text)
        for (k, t) in toks.enumerated() {
            m.mask(into: &mask)
            let inMask = mask[t >> 6] >> UInt64(t & 63) & 1 == 1
            let ok = m.accept(token: t)
            #expect(inMask == ok, "mask and accept disagree at token \(k)")
            if !inMask || !ok { return k }
        }
        m.mask(into: &mask)
        let eos = vocabulary.endOfGeneration[0]
        return mask[eos >> 6] >> UInt64(eos & 63) & 1 == 1 ? nil : toks.count
    }

    func accepts(_ g: Grammar, _ text: String) -> Bool { firstRejected(g, text) == nil }
}

@Suite struct ToolCallingGrammarTests {
    let r = ToolCallingReplay.small
    let tools = ToolCallingFixtures.tools
    static let weather = #"{"name": "getWeather", "arguments": {"city":"Paris"}}"#
    static let search = #"{"name": "search", "arguments": {"query":"cats","limit":3}}"#

    @Test func fallbackAllowsTextOrCalls() throws {
        let g = try ToolCallGrammar.make(tools: tools, dialect: .fallback)
        let call = "<tool_call>" + Self.weather + "</tool_call>"
        #expect(r.accepts(g, call))
        #expect(r.accepts(g, "Hello, the weather is fine."))
        #expect(r.accepts(g, ""))
        #expect(r.accepts(g, "Let me look.\n" + call))
        #expect(r.accepts(g, call + "\n<tool_call>" + Self.search + "</tool_call>"))
        let single = try ToolCallGrammar.make(tools: tools, dialect: .fallback, maximumCalls: 1)
        #expect(!r.accepts(single, call + "\n<tool_call>" + Self.search + "</tool_call>"))
        #expect(r.accepts(g, #"<tool_call>{"name": "getWeather", "arguments": {"city":"Paris","unit":"celsius"}}</tool_call>"#))
        // Arguments must match the tool's own schema.
        #expect(!r.accepts(g, #"<tool_call>{"name": "getWeather", "arguments": {"city":3}}</tool_call>"#))
        #expect(!r.accepts(g, #"<tool_call>{"name": "getWeather", "arguments": {"town":"Paris"}}</tool_call>"#))
        #expect(!r.accepts(g, #"<tool_call>{"name": "getWeather", "arguments": {"unit":"celsius"}}</tool_call>"#))
        #expect(!r.accepts(g, #"<tool_call>{"name": "search", "arguments": {"query":"x","limit":11}}</tool_call>"#))
        #expect(!r.accepts(g, #"<tool_call>{"name": "getWeather", "arguments": {"query":"cats","limit":3}}</tool_call>"#))
        #expect(!r.accepts(g, #"<tool_call>{"name": "nope", "arguments": {}}</tool_call>"#))
        // Text never contains the opener, and nothing follows the calls.
        #expect(!r.accepts(g, "I will write <tool_call> as text"))
        #expect(!r.accepts(g, call + " Done."))
        #expect(!r.accepts(g, "</tool_call>"))
    }

    @Test func requiredForcesTheOpenerFirst() throws {
        let g = try ToolCallGrammar.make(tools: tools, dialect: .fallback, mode: .required)
        #expect(r.accepts(g, "<tool_call>" + Self.weather + "</tool_call>"))
        #expect(r.firstRejected(g, "Hello") == 0)
        #expect(!r.accepts(g, ""))
        let m = GrammarMatcher(grammar: g, vocabulary: r.vocabulary)
        #expect(m.forcedBytes() == Array(#"<tool_call>{"name": ""#.utf8))
        // Every token allowed first is a prefix of the opener (or the opener itself).
        var mask = [UInt64](repeating: 0, count: r.vocabulary.maskWordCount)
        m.mask(into: &mask)
        let opener = Array("<tool_call>".utf8)
        for t in 0..<r.vocabulary.size where mask[t >> 6] >> UInt64(t & 63) & 1 == 1 {
            #expect(opener.starts(with: r.vocabulary.bytes(of: t)), "token \(t)")
        }
    }

    @Test func disallowedAdmitsTextOnly() throws {
        let g = try ToolCallGrammar.make(tools: tools, dialect: .fallback, mode: .disallowed)
        #expect(r.accepts(g, "Hello"))
        #expect(!r.accepts(g, "<tool_call>" + Self.weather + "</tool_call>"))
        let none = try ToolCallGrammar.make(tools: [], dialect: .fallback)
        #expect(!r.accepts(none, "<tool_call>" + Self.weather + "</tool_call>"))
        #expect(throws: ToolCallingError.noToolsForRequiredCall) { try ToolCallGrammar.make(tools: [], dialect: .fallback, mode: .required) }
    }

    @Test func hermesBlocksAndCallLimit() throws {
        let g = try ToolCallGrammar.make(tools: tools, dialect: .hermes)
        let one = "<tool_call>\n" + Self.weather + "\n</tool_call>"
        let two = one + "\n<tool_call>\n" + Self.search + "\n</tool_call>"
        #expect(r.accepts(g, one))
        #expect(r.accepts(g, two))
        #expect(!r.accepts(g, "<tool_call>" + Self.weather + "</tool_call>"))
        let single = try ToolCallGrammar.make(tools: tools, dialect: .hermes, maximumCalls: 1)
        #expect(r.accepts(single, one))
        #expect(!r.accepts(single, two))
    }

    @Test func mistralArrayOnlyAtTheStart() throws {
        let g = try ToolCallGrammar.make(tools: tools, dialect: .mistral)
        #expect(r.accepts(g, "[TOOL_CALLS][" + Self.weather + ", " + Self.search + "]"))
        #expect(r.accepts(g, "Hello"))
        #expect(!r.accepts(g, "Hello [TOOL_CALLS][" + Self.weather + "]"))
        #expect(!r.accepts(g, "[TOOL_CALLS][]"))
    }

    @Test func llama3UsesParametersAndOneCall() throws {
        let g = try ToolCallGrammar.make(tools: tools, dialect: .llama3)
        #expect(r.accepts(g, #"{"name": "getWeather", "parameters": {"city":"Paris"}}"#))
        #expect(!r.accepts(g, Self.weather))
        #expect(r.accepts(g, "Hello"))
        #expect(!r.accepts(g, #"{"name": "getWeather", "parameters": {"city":"Paris"}}{"name": "getWeather", "parameters": {"city":"Paris"}}"#))
    }

    @Test func reasoningBlockMayOpenTheReply() throws {
        let g = try ToolCallGrammar.make(tools: tools, dialect: .hermes, reasoning: .think)
        let call = "<tool_call>\n" + Self.weather + "\n</tool_call>"
        #expect(r.accepts(g, "<think>I should call getWeather.</think>\n\n" + call))
        #expect(r.accepts(g, "<think>easy</think>\n\nHello"))
        #expect(r.accepts(g, "Hello"))
        #expect(!r.accepts(g, "Hello <think>late</think>"))
        let required = try ToolCallGrammar.make(tools: tools, dialect: .hermes, mode: .required, reasoning: .think)
        #expect(r.accepts(required, "<think>x</think>" + call))
        #expect(!r.accepts(required, "<think>x</think>Hello"))
    }

    @Test func responseSchemaOrCall() throws {
        let response = try Grammar(jsonSchema: #"{"type":"object","properties":{"answer":{"type":"string"}},"required":["answer"]}"#)
        let g = try ToolCallGrammar.make(tools: tools, dialect: .fallback, response: response)
        #expect(r.accepts(g, #"{"answer":"sunny"}"#))
        #expect(r.accepts(g, "<tool_call>" + Self.weather + "</tool_call>"))
        #expect(!r.accepts(g, "Hello"))
        #expect(!r.accepts(g, #"{"answer":"sunny"}<tool_call>"# + Self.weather + "</tool_call>"))
        let only = try ToolCallGrammar.make(tools: tools, dialect: .fallback, mode: .disallowed, response: response)
        #expect(r.accepts(only, #"{"answer":"sunny"}"#))
        #expect(!r.accepts(only, "<tool_call>" + Self.weather + "</tool_call>"))
    }

    @Test func unsupportedParameterSchemaNamesTheTool() throws {
        let bad = Transcript.ToolDefinition(name: "broken", description: "", parameters: try GenerationSchema(jsonSchema: #"{"type":"nonsense"}"#))
        let error = try #require(#expect(throws: ToolCallingError.self) { try ToolCallGrammar.make(tools: [bad], dialect: .fallback) })
        if case .invalidParameterSchema(let name, _) = error { #expect(name == "broken") } else { Issue.record("\(error)") }
    }

    @Test func schemaWithoutTypeStillMeansAnObject() throws {
        let free = Transcript.ToolDefinition(name: "ping", description: "", parameters: try GenerationSchema(jsonSchema: "{}"))
        let g = try ToolCallGrammar.make(tools: [free], dialect: .fallback, mode: .required)
        #expect(r.accepts(g, #"<tool_call>{"name": "ping", "arguments": {}}</tool_call>"#))
        #expect(!r.accepts(g, #"<tool_call>{"name": "ping", "arguments": 3}</tool_call>"#))
    }

    /// The real SmolLM2 vocabulary: the tokenizer's own tokens of a call are accepted in masks,
    /// and the parser reads the result back as the same call.
    @Test func smolLM2VocabularyRoundTrip() throws {
        let file = try GGUFFile(path: SharedData.defaultModel)
        let tokenizer = try Tokenizer(gguf: file)
        let dialect = ToolCallDialect.fallback
        let bytes = ToolCallingVocabulary.grammarTokenBytes(of: tokenizer, markers: dialect.markers)
        let vocab = GrammarVocabulary(tokens: bytes, endOfGeneration: tokenizer.endOfGenerationTokens.map(Int.init))
        let real = ToolCallingReplay(vocabulary: vocab) { tokenizer.encode($0).map(Int.init) }

        let allowed = try ToolCallGrammar.make(tools: tools, dialect: dialect)
        let required = try ToolCallGrammar.make(tools: tools, dialect: dialect, mode: .required)
        let disallowed = try ToolCallGrammar.make(tools: tools, dialect: dialect, mode: .disallowed)
        let call = #"<tool_call>{"name": "search", "arguments": {"query":"weather in Paris, 日本","limit":10}}</tool_call>"#
        #expect(real.accepts(allowed, call))
        #expect(real.accepts(required, call))
        #expect(real.accepts(allowed, "The capital of France is Paris."))
        #expect(real.firstRejected(required, "The capital of France is Paris.") == 0)
        #expect(!real.accepts(disallowed, call))
        #expect(!real.accepts(allowed, #"<tool_call>{"name": "search", "arguments": {"query":"x","limit":0}}</tool_call>"#))

        var parser = ToolCallStreamParser(dialect: dialect, streamsArguments: true, makeCallID: { "c\($0)" })
        var events: [ToolCallStreamEvent] = []
        for id in tokenizer.encode(call) { events += try parser.consume(bytes: vocab.bytes(of: Int(id))) }
        events += try parser.finish()
        let arguments = #"{"query":"weather in Paris, 日本","limit":10}"#
        #expect(events.first == .toolCallStarted(id: "c0", name: "search"))
        let deltas = events.compactMap { if case .toolCallArguments("c0", let d) = $0 { return d } else { return nil } }
        #expect(deltas.joined() == arguments)
        #expect(deltas.count > 1)
        #expect(events.last == .toolCall(Transcript.ToolCall(id: "c0", toolName: "search",
                                                             arguments: GeneratedContent(jsonValue: try JSONValue(parsing: arguments)))))
    }
}

@Suite struct ToolCallingModelSupportTests {
    let r = ToolCallingReplay.small
    let tools = ToolCallingFixtures.tools

    @Test func smolLM2Support() throws {
        let file = try GGUFFile(path: SharedData.defaultModel)
        let support = ModelToolSupport(template: try file.chatTemplate(), tokenizer: try Tokenizer(gguf: file))
        #expect(support.dialect == .fallback)
        #expect(!support.supportsReasoning)
        #expect(!support.supportsUnconstrainedToolCalls)
        #expect(support.markerTokenIDs.isEmpty)
        #expect(try support.grammar(tools: [], mode: nil, response: nil, thinking: false) == nil)
        #expect(try support.grammar(tools: tools, mode: .disallowed, response: nil, thinking: false) == nil)
        #expect(try support.grammar(tools: tools, mode: nil, response: nil, thinking: false) != nil)
        #expect(throws: ToolCallingError.noToolsForRequiredCall) {
            try support.grammar(tools: [], mode: .required, response: nil, thinking: false)
        }
    }

    @Test func promptThatOpenedReasoningMustCloseIt() throws {
        let support = ModelToolSupport(dialect: .hermes, reasoningMarkers: .think, templateSource: nil)
        let prompt = "<|im_start|>assistant\n<think>\n"
        let g = try #require(try support.grammar(tools: tools, mode: .required, response: nil, thinking: true, renderedPrompt: prompt))
        let call = "<tool_call>\n" + ToolCallingGrammarTests.weather + "\n</tool_call>"
        #expect(r.accepts(g, "I need the weather.</think>\n\n" + call))
        #expect(!r.accepts(g, call))
        #expect(!r.accepts(g, "<think>again</think>" + call))
        var parser = support.makeParser(toolsEnabled: true, hasResponseSchema: false, thinking: true, renderedPrompt: prompt)
        var events = try parser.consume("I need the weather.</think>\n\n" + call)
        events += try parser.finish()
        #expect(events.first == .reasoning("I need the weather."))
        #expect(events.filter { if case .toolCall = $0 { return true } else { return false } }.count == 1)
    }

    @Test func thinkingOffMeansMarkersAreText() throws {
        let support = ModelToolSupport(dialect: .hermes, reasoningMarkers: .think, templateSource: nil)
        var parser = support.makeParser(toolsEnabled: false, hasResponseSchema: false, thinking: false, renderedPrompt: "")
        #expect(try parser.consume("<think>x</think>") + parser.finish() == [.text("<think>x</think>")])
        let response = try Grammar(jsonSchema: #"{"type":"integer"}"#)
        let g = try #require(try support.grammar(tools: [], mode: nil, response: response, thinking: true))
        #expect(r.accepts(g, "<think>hmm</think>42"))
        #expect(r.accepts(g, "42"))
        #expect(!r.accepts(g, "x"))
    }
}
