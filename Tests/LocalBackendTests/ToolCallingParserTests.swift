import Testing
import LoomJSON
@testable import LocalBackend
@testable import Provider

@Suite struct ToolCallingParserTests {
    /// Events with adjacent deltas of one kind merged (chunking may split a delta).
    static func normalized(_ events: [ToolCallStreamEvent]) -> [ToolCallStreamEvent] {
        var out: [ToolCallStreamEvent] = []
        for e in events {
            switch (out.last, e) {
            case (.text(let a)?, .text(let b)): out[out.count - 1] = .text(a + b)
            case (.reasoning(let a)?, .reasoning(let b)): out[out.count - 1] = .reasoning(a + b)
            case (.toolCallArguments(let i, let a)?, .toolCallArguments(let j, let b)) where i == j:
                out[out.count - 1] = .toolCallArguments(id: i, delta: a + b)
            default: out.append(e)
            }
        }
        return out
    }

    static func parse(_ chunks: [[UInt8]], _ make: () -> ToolCallStreamParser) throws -> [ToolCallStreamEvent] {
        var p = make()
        var events: [ToolCallStreamEvent] = []
        for c in chunks { events += try p.consume(bytes: c) }
        events += try p.finish()
        return normalized(events)
    }

    /// Parses whole, then split at every byte position, then byte by byte: all must agree.
    static func parseAllChunkings(_ text: String, _ make: () -> ToolCallStreamParser) throws -> [ToolCallStreamEvent] {
        let bytes = Array(text.utf8)
        let whole = try parse([bytes], make)
        for i in 0...bytes.count {
            let split = try parse([Array(bytes[..<i]), Array(bytes[i...])], make)
            #expect(split == whole, "split at byte \(i) of \(text.debugDescription)")
        }
        #expect(try parse(bytes.map { [$0] }, make) == whole, "byte by byte: \(text.debugDescription)")
        return whole
    }

    static func call(_ name: String, _ args: JSONValue, id: String = "id0") -> ToolCallStreamEvent {
        .toolCall(Transcript.ToolCall(id: id, toolName: name, arguments: GeneratedContent(jsonValue: args)))
    }

    /// The events of a call that streams: started, its arguments text, the parsed call.
    static func streamed(_ name: String, _ arguments: String, id: String = "id0") throws -> [ToolCallStreamEvent] {
        [.toolCallStarted(id: id, name: name), .toolCallArguments(id: id, delta: arguments),
         call(name, try JSONValue(parsing: arguments), id: id)]
    }

    static func parser(_ d: ToolCallDialect?, reasoning: ReasoningMarkers? = nil, startsInReasoning: Bool = false,
                       onlyAtStart: Bool? = nil) -> () -> ToolCallStreamParser {
        { ToolCallStreamParser(dialect: d, reasoning: reasoning, startsInReasoning: startsInReasoning,
                               callsOnlyAtStart: onlyAtStart, streamsArguments: true, makeCallID: { "id\($0)" }) }
    }

    @Test func fallbackCallAfterText() throws {
        let out = try Self.parseAllChunkings(
            #"Let me check. <tool_call>{"name": "getWeather", "arguments": {"city":"Paris"}}</tool_call>"#, Self.parser(.fallback))
        #expect(out == [.text("Let me check. ")] + (try Self.streamed("getWeather", #"{"city":"Paris"}"#)))
    }

    @Test func hermesSeveralCallsWithNewlines() throws {
        let text = "<tool_call>\n{\"name\": \"a\", \"arguments\": {\"x\": \"</tool_call> {\"}}\n</tool_call>\n<tool_call>\n{\"name\": \"b\", \"arguments\": \"{\\\"y\\\": 2}\"}\n</tool_call>"
        let out = try Self.parseAllChunkings(text, Self.parser(.hermes))
        // The first call streams; the second (arguments as a JSON string) arrives whole.
        #expect(out == (try Self.streamed("a", #"{"x": "</tool_call> {"}"#)) + [Self.call("b", ["y": 2], id: "id1")])
    }

    @Test func textWithAngleBracketsThatAreNotMarkers() throws {
        let text = "a < b, <tool but not a call, <think> no reasoning here, 日本語 é 😀 <"
        let out = try Self.parseAllChunkings(text, Self.parser(.hermes))
        #expect(out == [.text(text)])
    }

    @Test func halfOpenerIsHeldBack() throws {
        var p = ToolCallStreamParser(dialect: .fallback)
        #expect(try p.consume("Hello <tool") == [.text("Hello ")])
        #expect(try p.consume("_ca") == [])
        #expect(try p.consume("t") == [.text("<tool_cat")])
        #expect(try p.finish() == [])
        // A character split across chunks is held until it is complete.
        var q = ToolCallStreamParser(dialect: .fallback)
        let bytes = Array("é".utf8)
        #expect(try q.consume(bytes: [bytes[0]]) == [])
        #expect(try q.consume(bytes: [bytes[1]]) == [.text("é")])
    }

    @Test func textAfterCallsIsText() throws {
        let out = try Self.parseAllChunkings(#"<tool_call>{"name": "a", "arguments": {}}</tool_call> Done."#, Self.parser(.fallback))
        #expect(out == (try Self.streamed("a", "{}")) + [.text("Done.")])
    }

    @Test func mistralArrayStreamsEachCall() throws {
        let text = #"[TOOL_CALLS][{"name": "a", "arguments": {"k": [1, {"z": "]"}]}, "id": "abcDEF123"}, {"name": "b", "arguments": {}}]"#
        let out = try Self.parseAllChunkings(text, Self.parser(.mistral))
        #expect(out == (try Self.streamed("a", #"{"k": [1, {"z": "]"}]}"#)) + (try Self.streamed("b", "{}", id: "id1")))
        // A call that does not stream (arguments first) keeps the id the model wrote.
        let whole = try Self.parseAllChunkings(#"[TOOL_CALLS][{"arguments": {}, "name": "a", "id": "abcDEF123"}]"#, Self.parser(.mistral))
        #expect(whole == [Self.call("a", [:], id: "abcDEF123")])
    }

    @Test func mistralMarkerLaterInTheReplyIsText() throws {
        let text = #"Sure [TOOL_CALLS][{"name": "a", "arguments": {}}]"#
        #expect(try Self.parseAllChunkings(text, Self.parser(.mistral)) == [.text(text)])
    }

    @Test func llama3WholeReplyCall() throws {
        let out = try Self.parseAllChunkings("\n {\"name\": \"getWeather\", \"parameters\": {\"city\": \"Oslo\"}}", Self.parser(.llama3))
        #expect(out == (try Self.streamed("getWeather", #"{"city": "Oslo"}"#)))
        let tagged = try Self.parseAllChunkings(#"<|python_tag|>{"name": "a", "parameters": {}}"#, Self.parser(.llama3))
        #expect(tagged == (try Self.streamed("a", "{}")))
    }

    @Test func llama3JSONThatIsNotACallIsText() throws {
        let text = #"{"name": "Ada", "age": 36}"#
        #expect(try Self.parseAllChunkings(text, Self.parser(.llama3)) == [.text(text)])
        let prose = #"The object {"name": "x"} is JSON."#
        #expect(try Self.parseAllChunkings(prose, Self.parser(.llama3)) == [.text(prose)])
        let spaced = "  Hello"
        #expect(try Self.parseAllChunkings(spaced, Self.parser(.llama3)) == [.text(spaced)])
    }

    @Test func reasoningThenAnswer() throws {
        let out = try Self.parseAllChunkings("<think>\nLet me think: 2+2.\n</think>\n\nIt is 4.", Self.parser(.hermes, reasoning: .think))
        #expect(out == [.reasoning("Let me think: 2+2.\n"), .text("It is 4.")])
    }

    @Test func reasoningThenStartOnlyCall() throws {
        let text = "<think>use the tool</think>\n[TOOL_CALLS][{\"name\": \"a\", \"arguments\": {}}]"
        let out = try Self.parseAllChunkings(text, Self.parser(.mistral, reasoning: .think))
        #expect(out == [.reasoning("use the tool")] + (try Self.streamed("a", "{}")))
    }

    @Test func promptOpenedReasoning() throws {
        let out = try Self.parseAllChunkings("hmm</think>Answer", Self.parser(.hermes, reasoning: .think, startsInReasoning: true))
        #expect(out == [.reasoning("hmm"), .text("Answer")])
    }

    @Test func unfinishedReasoningIsFlushedAsReasoning() throws {
        let out = try Self.parseAllChunkings("<think>still thinking </thi", Self.parser(.hermes, reasoning: .think))
        #expect(out == [.reasoning("still thinking </thi")])
    }

    @Test func callsNotParsedWhenDisallowed() throws {
        let text = #"<tool_call>{"name": "a", "arguments": {}}</tool_call>"#
        #expect(try Self.parseAllChunkings(text, Self.parser(nil)) == [.text(text)])
    }

    @Test func responseSchemaMakesCallsStartOnly() throws {
        let text = #"{"answer": "<tool_call>{\"name\": \"a\"}</tool_call>"}"#
        #expect(try Self.parseAllChunkings(text, Self.parser(.hermes, onlyAtStart: true)) == [.text(text)])
        let call = #"<tool_call>{"name": "a", "arguments": {}}</tool_call>"#
        #expect(try Self.parseAllChunkings(call, Self.parser(.hermes, onlyAtStart: true)) == (try Self.streamed("a", "{}")))
    }

    @Test func malformedCallsThrow() throws {
        var p = ToolCallStreamParser(dialect: .fallback)
        #expect(throws: ToolCallingError.self) { _ = try p.consume("<tool_call>oops") }
        var q = ToolCallStreamParser(dialect: .fallback)
        _ = try q.consume(#"<tool_call>{"name": "a", "argu"#)
        #expect(throws: ToolCallingError.self) { _ = try q.finish() }
        var r = ToolCallStreamParser(dialect: .hermes)
        #expect(throws: ToolCallingError.self) { _ = try r.consume(#"<tool_call>{"arguments": {}}</tool_call>"#) }
        var s = ToolCallStreamParser(dialect: .hermes)
        #expect(throws: ToolCallingError.self) { _ = try s.consume(#"<tool_call>{"name": "a", "arguments": 3}</tool_call>"#) }
    }

    @Test func missingOrCutCloserIsTolerated() throws {
        let out = try Self.parseAllChunkings(#"<tool_call>{"name": "a", "arguments": {}}</tool_"#, Self.parser(.fallback))
        #expect(out == (try Self.streamed("a", "{}")))
        let bare = try Self.parseAllChunkings(#"<tool_call>{"name": "a", "arguments": {}}"#, Self.parser(.fallback))
        #expect(bare == (try Self.streamed("a", "{}")))
    }

    @Test func defaultCallIDsAreNineAlphanumerics() throws {
        var p = ToolCallStreamParser(dialect: .fallback, streamsArguments: true)
        let events = try p.consume(#"<tool_call>{"name": "a", "arguments": {}}</tool_call>"#)
        let c = try #require(p.calls.first, "no call")
        #expect(events.first == .toolCallStarted(id: c.id, name: "a"))
        #expect(events.last == .toolCall(c))
        #expect(c.id.count == 9 && c.id.allSatisfy { $0.isLetter || $0.isNumber })
        #expect(p.calls == [c])
    }
}

extension ToolCallingParserTests {
    @Test func argumentDeltasKeepCharactersWhole() throws {
        var p = ToolCallStreamParser(dialect: .fallback, streamsArguments: true, makeCallID: { "id\($0)" })
        var events = try p.consume(#"<tool_call>{"name": "a", "arguments": {"q": ""#)
        #expect(events == [.toolCallStarted(id: "id0", name: "a"), .toolCallArguments(id: "id0", delta: #"{"q": ""#)])
        let e = Array("é".utf8)
        events = try p.consume(bytes: [e[0]])
        #expect(events == [])
        events = try p.consume(bytes: [e[1]] + Array(#""}}</tool_call>"#.utf8))
        #expect(events == [.toolCallArguments(id: "id0", delta: #"é"}"#), Self.call("a", ["q": "é"])])
    }
}

extension ToolCallingParserTests {
    @Test func withoutStreamingCallsArriveWhole() throws {
        let make = { ToolCallStreamParser(dialect: .fallback, makeCallID: { "id\($0)" }) }
        let out = try Self.parseAllChunkings(#"Hi <tool_call>{"name": "a", "arguments": {"x":1}}</tool_call>"#, make)
        #expect(out == [.text("Hi "), Self.call("a", ["x": 1])])
    }
}
