import Foundation
import LoomJSON
import Provider
import Testing
import ChatCompletions

/// A readable form of channel events.
private enum Seen: Equatable {
    case text(String)
    case reasoning(String)
    case call(id: String, name: String, arguments: String)
    case responseUsage(input: Int, output: Int)
    case callsUsage(input: Int, output: Int)
    case responseMetadata
    case callsMetadata
    case other

    /// The id of a call, nil for any other event.
    var callID: String? { if case .call(let id, _, _) = self { return id }; return nil }
}

private func describe(_ events: [LanguageModelExecutorGenerationChannel.Event]) -> [Seen] {
    events.map { event in
        switch event.kind.storage {
        case .response(let r):
            switch r.action {
            case .appendText(let t, _, _): return .text(t)
            case .updateUsage(let i, let o, _): return .responseUsage(input: i.totalTokenCount, output: o.totalTokenCount)
            case .updateMetadata: return .responseMetadata
            default: return .other
            }
        case .reasoning(let r):
            if case .appendText(let t, _, _) = r.action { return .reasoning(t) }
            return .other
        case .toolCalls(let c):
            switch c.action {
            case .toolCall(let id, let name, .appendArguments(let a, _)): return .call(id: id, name: name, arguments: a)
            case .updateUsage(let i, let o, _): return .callsUsage(input: i.totalTokenCount, output: o.totalTokenCount)
            case .updateMetadata: return .callsMetadata
            default: return .other
            }
        }
    }
}

@Suite struct ChatCompletionsEventTranslatorTests {
    @Test func contentAndToolCallsInOneChunkAreBothKept() throws {
        var t = ChatCompletionsEventTranslator()
        let seen = describe(try t.consume(data: Chunk.toolCall(index: 0, id: "c1", name: "f", arguments: "{}", content: "Sure.")))
        #expect(seen == [.text("Sure."), .call(id: "c1", name: "f", arguments: "{}")])
    }

    /// A server repeating the full id on every delta must not produce `c1c1c1` (upstream's `+`).
    @Test func repeatedIDsAndParallelCallsAreRoutedByIndex() throws {
        var t = ChatCompletionsEventTranslator()
        var seen: [Seen] = []
        for chunk in [
            Chunk.toolCall(index: 0, id: "c1", name: "a", arguments: "{\"x\":"),
            Chunk.toolCall(index: 1, id: "c2", name: "b", arguments: "{\"y\":"),
            Chunk.toolCall(index: 0, id: "c1", arguments: "1}"),
            Chunk.toolCall(index: 1, id: "c2", arguments: "2}"),
            Chunk.finish("tool_calls"),
            Chunk.usage(prompt: 10, completion: 6),
        ] { seen += describe(try t.consume(data: chunk)) }
        seen += describe(try t.finish(serverRequestID: "req-1"))
        #expect(seen == [
            .call(id: "c1", name: "a", arguments: "{\"x\":"), .call(id: "c2", name: "b", arguments: "{\"y\":"),
            .call(id: "c1", name: "a", arguments: "1}"), .call(id: "c2", name: "b", arguments: "2}"),
            .callsMetadata, .callsUsage(input: 10, output: 6),
        ])
        #expect(t.state.toolCalls.map(\.arguments) == ["{\"x\":1}", "{\"y\":2}"])
    }

    /// Arguments that arrive before the name are held, then sent once the call can be opened;
    /// a call without an id gets one at the end; a call without arguments gets `{}`.
    @Test func lateNamesMissingIDsAndEmptyArguments() throws {
        var t = ChatCompletionsEventTranslator()
        var seen: [Seen] = []
        seen += describe(try t.consume(data: Chunk.toolCall(index: 0, arguments: "{\"q\":")))
        #expect(seen.isEmpty)
        seen += describe(try t.consume(data: Chunk.toolCall(index: 0, id: "c9", name: "search")))
        seen += describe(try t.consume(data: Chunk.toolCall(index: 0, arguments: "\"x\"}")))
        seen += describe(try t.consume(data: Chunk.toolCall(index: 1, name: "clock")))
        seen += describe(try t.finish())
        try #require(seen.count == 5, "\(seen)")
        #expect(seen[0] == .call(id: "c9", name: "search", arguments: "{\"q\":"))
        #expect(seen[1] == .call(id: "c9", name: "search", arguments: "\"x\"}"))
        // The clock call is opened with a generated id, then gets `{}` as its arguments.
        let id = try #require(seen[2].callID)
        #expect(seen[2] == .call(id: id, name: "clock", arguments: ""))
        #expect(seen[3] == .call(id: id, name: "clock", arguments: "{}"))
        #expect(id.hasPrefix("call_"))
        #expect(seen[4] == .callsMetadata)
    }

    /// Arguments sent as a JSON object instead of JSON text are kept, not dropped.
    @Test func objectArgumentsAreKeptAsText() throws {
        var t = ChatCompletionsEventTranslator()
        let chunk = #"{"choices":[{"index":0,"message":{"role":"assistant","tool_calls":[{"id":"c1","type":"function","function":{"name":"f","arguments":{"a":1}}}]},"finish_reason":"tool_calls"}]}"#
        #expect(describe(try t.consume(data: chunk)) == [.call(id: "c1", name: "f", arguments: "{\"a\":1}")])
    }

    @Test func unnamedToolCallsAreReported() throws {
        var t = ChatCompletionsEventTranslator()
        _ = try t.consume(data: Chunk.toolCall(index: 0, id: "c1", arguments: "{}"))
        #expect(t.unnamedToolCalls == [0])
    }

    @Test func reasoningTextAndUsageOnTheResponse() throws {
        var t = ChatCompletionsEventTranslator()
        var seen: [Seen] = []
        for chunk in [Chunk.reasoning("hmm"), Chunk.content("A"), Chunk.content("B"), Chunk.usage(prompt: 3, completion: 4)] {
            seen += describe(try t.consume(data: chunk))
        }
        seen += describe(try t.finish())
        #expect(seen == [.reasoning("hmm"), .text("A"), .text("B"), .responseMetadata, .responseUsage(input: 3, output: 4)])
    }

    @Test func refusalFieldIsARefusalWithTheServersExplanation() async throws {
        var t = ChatCompletionsEventTranslator()
        for piece in ["I can't ", "help with that."] {
            _ = try t.consume(data: #"{"choices":[{"index":0,"delta":{"refusal":"\#(piece)"}}]}"#)
        }
        let error = #expect(throws: LanguageModelError.self) { _ = try t.finish() }
        if case .refusal(let refusal)? = error {
            #expect(try await refusal.explanation.content == "I can't help with that.")
        } else {
            Issue.record("expected a refusal, got \(String(describing: error))")
        }
    }

    @Test func contentFilterFinishIsAGuardrailViolation() throws {
        var t = ChatCompletionsEventTranslator()
        _ = try t.consume(data: Chunk.content("partial", finish: "content_filter"))
        #expect {
            _ = try t.finish()
        } throws: { error in
            if case LanguageModelError.guardrailViolation = error { return true }
            return false
        }
    }

    @Test func malformedAndErrorChunks() throws {
        var t = ChatCompletionsEventTranslator()
        #expect(throws: ChatCompletionsError.self) { _ = try t.consume(data: "{not json") }
        #expect(throws: ChatCompletionsError.self) { _ = try t.consume(data: "[1,2]") }
        #expect {
            _ = try t.consume(data: "{\"error\":{\"message\":\"This model's maximum context length is 4096 tokens. However, you requested 5000 tokens\",\"type\":\"invalid_request_error\"}}")
        } throws: { error in
            guard case LanguageModelError.contextSizeExceeded(let p) = error else { return false }
            return p.contextSize == 4096 && p.tokenCount == 5000
        }
    }
}
