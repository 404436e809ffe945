import LoomJSON
import Testing
import ChatCompletions

@Suite struct ChatCompletionDeltaAccumulatorTests {
    private func chunk(_ delta: String, finish: String? = nil, index: Int = 0) -> String {
        let f = finish.map { "\"\($0)\"" } ?? "null"
        return #"{"id":"c1","model":"m","choices":[{"index":\#(index),"delta":\#(delta),"finish_reason":\#(f)}]}"#
    }

    @Test func contentReasoningFinishAndUsage() throws {
        var acc = ChatCompletionDeltaAccumulator()
        #expect(try acc.apply(data: chunk(#"{"role":"assistant","content":""}"#)) == [])
        #expect(try acc.apply(data: chunk(#"{"reasoning_content":"think"}"#)) == [.reasoning("think")])
        #expect(try acc.apply(data: chunk(#"{"reasoning":" more"}"#)) == [.reasoning(" more")])
        #expect(try acc.apply(data: chunk(#"{"content":"Hel"}"#)) == [.content("Hel")])
        #expect(try acc.apply(data: chunk(#"{"content":"lo"}"#, finish: "stop")) == [.content("lo")])
        #expect(try acc.apply(data: #"{"id":"c1","choices":[],"usage":{"prompt_tokens":3,"completion_tokens":2,"total_tokens":5}}"#) == [])
        #expect(acc.role == "assistant")
        #expect(acc.content == "Hello")
        #expect(acc.reasoning == "think more")
        #expect(acc.finishReason == "stop")
        #expect(acc.usage?["total_tokens"]?.intValue == 5)
        #expect(acc.responseID == "c1")
        #expect(acc.model == "m")
    }

    /// Two calls interleaved by index; ids and names repeated by the server are not concatenated.
    @Test func toolCallsRoutedByIndex() throws {
        var acc = ChatCompletionDeltaAccumulator()
        _ = try acc.apply(data: chunk(#"{"tool_calls":[{"index":0,"id":"call_a","type":"function","function":{"name":"get_weather","arguments":""}}]}"#))
        _ = try acc.apply(data: chunk(#"{"tool_calls":[{"index":1,"id":"call_b","type":"function","function":{"name":"get_time","arguments":"{\"tz\":"}}]}"#))
        _ = try acc.apply(data: chunk(#"{"tool_calls":[{"index":0,"id":"call_a","function":{"name":"get_weather","arguments":"{\"city\":"}}]}"#))
        _ = try acc.apply(data: chunk(#"{"tool_calls":[{"index":1,"function":{"arguments":"\"UTC\"}"}}]}"#))
        _ = try acc.apply(data: chunk(#"{"tool_calls":[{"index":0,"function":{"arguments":"\"Paris\"}"}}]}"#, finish: "tool_calls"))
        #expect(acc.toolCalls == [
            .init(index: 0, id: "call_a", name: "get_weather", arguments: #"{"city":"Paris"}"#),
            .init(index: 1, id: "call_b", name: "get_time", arguments: #"{"tz":"UTC"}"#),
        ])
        #expect(acc.finishReason == "tool_calls")
    }

    @Test func contentAndToolCallsInOneChunkAreBothKept() throws {
        var acc = ChatCompletionDeltaAccumulator()
        let deltas = try acc.apply(data: chunk(#"{"content":"Let me check.","tool_calls":[{"index":0,"id":"c","function":{"name":"f","arguments":"{}"}}]}"#))
        #expect(deltas == [.content("Let me check."), .toolCallStarted(index: 0, id: "c", name: "f"), .toolCallArguments(index: 0, fragment: "{}")])
        #expect(acc.content == "Let me check.")
        #expect(acc.toolCalls.count == 1)
    }

    /// Whole calls streamed one per chunk under the same index, each with its own id.
    @Test func reusedIndexWithNewIdStartsANewCall() throws {
        var acc = ChatCompletionDeltaAccumulator()
        _ = try acc.apply(data: chunk(#"{"tool_calls":[{"index":0,"id":"x1","function":{"name":"a","arguments":"{\"n\":1}"}}]}"#))
        _ = try acc.apply(data: chunk(#"{"tool_calls":[{"index":0,"id":"x2","function":{"name":"b","arguments":"{\"n\":2}"}}]}"#))
        #expect(acc.toolCalls.map(\.id) == ["x1", "x2"])
        #expect(acc.toolCalls.map(\.name) == ["a", "b"])
        #expect(acc.toolCalls.map(\.arguments) == [#"{"n":1}"#, #"{"n":2}"#])
        #expect(acc.toolCalls.map(\.index) == [0, 1])
    }

    @Test func otherChoicesAreIgnoredAndErrorsAreTyped() throws {
        var acc = ChatCompletionDeltaAccumulator(choiceIndex: 1)
        _ = try acc.apply(data: chunk(#"{"content":"zero"}"#, index: 0))
        _ = try acc.apply(data: chunk(#"{"content":"one"}"#, index: 1))
        #expect(acc.content == "one")
        #expect(throws: ChatCompletionStreamError.self) { _ = try acc.apply(data: "{not json") }
        #expect(throws: ChatCompletionStreamError.self) { _ = try acc.apply(data: "[1]") }
        let error = try #require(#expect(throws: ChatCompletionStreamError.self, "expected a server error") {
            _ = try acc.apply(data: #"{"error":{"message":"overloaded","type":"server_error"}}"#)
        })
        if case .serverError(let e) = error { #expect(e.message == "overloaded") } else { Issue.record("wrong error \(error)") }
    }
}
