// Executor events → streamed deltas, final content, usage and finish reasons.
import ChatCompletionsServer
import Foundation
import Provider
import Testing

@Suite struct ChatCompletionAssemblerTests {
    typealias Event = LanguageModelExecutorGenerationChannel.Event

    @Test func aCombiningMarkAfterItsBaseLetterIsStillAnAppend() {
        var a = ChatCompletionAssembler()
        #expect(a.apply(.response(entryID: "r", action: .appendText("e", tokenCount: 1))) == [.content("e")])
        #expect(a.apply(.response(entryID: "r", action: .appendText("\u{301}!", tokenCount: 1))) == [.content("\u{301}!")])
        #expect(a.content == "e\u{301}!")
        #expect(!a.revisedStreamedOutput)
    }

    @Test func segmentsAndEntriesComposeTheContent() {
        var a = ChatCompletionAssembler()
        _ = a.apply(.response(entryID: "r", action: .appendText("A", segmentID: "s1", tokenCount: 1)))
        _ = a.apply(.response(entryID: "r", action: .appendText("B", segmentID: "s2", tokenCount: 1)))
        // Extending the last segment is an append even though it is addressed by id.
        #expect(a.apply(.response(entryID: "r", action: .appendText("b", segmentID: "s2", tokenCount: 1))) == [.content("b")])
        // Changing an earlier segment revises text that was already streamed.
        _ = a.apply(.response(entryID: "r", action: .appendText("a", segmentID: "s1", tokenCount: 1)))
        #expect(a.content == "AaBb")
        #expect(a.revisedStreamedOutput)
    }

    @Test func retractingAStreamedToolCallIsARevision() {
        var a = ChatCompletionAssembler()
        let opened = a.apply(.toolCalls(entryID: "t", action: .toolCall(id: "c", name: "f", action: .appendArguments("{", tokenCount: 1))))
        #expect(opened == [.toolCallStarted(index: 0, id: "c", name: "f", arguments: "{")])
        _ = a.apply(.toolCalls(entryID: "t", action: .removeToolCall(Transcript.ToolCall(id: "c", toolName: "f", arguments: GeneratedContent(jsonValue: .null)))))
        #expect(a.toolCalls.isEmpty)
        #expect(a.revisedStreamedOutput)
    }

    @Test func executorUsageWinsOverCreditsAndKeepsCachedTokens() {
        var a = ChatCompletionAssembler()
        _ = a.apply(.response(entryID: "r", action: .appendText("x", tokenCount: 1)))
        _ = a.apply(.response(entryID: "r", action: .appendText("y", tokenCount: 1)))
        #expect(a.usage.completionTokens == 2)
        #expect(a.usage.promptTokens == 0)
        _ = a.apply(.toolCalls(entryID: "t", action: .updateUsage(input: .init(totalTokenCount: 50, cachedTokenCount: 32),
                                                                  output: .init(totalTokenCount: 9, reasoningTokenCount: 4))))
        // A later report without prompt counts does not erase the earlier prompt counts.
        _ = a.apply(.response(entryID: "r", action: .updateUsage(input: .init(), output: .init(totalTokenCount: 3))))
        #expect(a.usage == .init(promptTokens: 50, cachedTokens: 32, completionTokens: 9, reasoningTokens: 4))
    }

    @Test func finishReasons() {
        var a = ChatCompletionAssembler()
        _ = a.apply(.response(entryID: "r", action: .appendText("x", tokenCount: 3)))
        #expect(a.finishReason(maximumResponseTokens: nil) == "stop")
        #expect(a.finishReason(maximumResponseTokens: 4) == "stop")
        #expect(a.finishReason(maximumResponseTokens: 3) == "length")
        _ = a.apply(.response(entryID: "r", action: .updateMetadata(["finishReason": "length"])))
        #expect(a.finishReason(maximumResponseTokens: nil) == "length")
        // LocalLanguageModel's own stop reasons.
        _ = a.apply(.response(entryID: "r", action: .updateMetadata(["stopReason": "endOfGeneration"])))
        #expect(a.finishReason(maximumResponseTokens: 3) == "stop")
        _ = a.apply(.response(entryID: "r", action: .updateMetadata(["stopReason": "maximumTokens"])))
        #expect(a.finishReason(maximumResponseTokens: nil) == "length")
        _ = a.apply(.response(entryID: "r", action: .updateMetadata(["stopReason": "grammarComplete"])))
        #expect(a.finishReason(maximumResponseTokens: nil) == "stop")
        _ = a.apply(.toolCalls(entryID: "t", action: .toolCall(id: "c", name: "f", action: .appendArguments("{}", tokenCount: 1))))
        #expect(a.finishReason(maximumResponseTokens: nil) == "tool_calls")
    }

    @Test func reasoningIsStreamedSeparately() {
        var a = ChatCompletionAssembler()
        #expect(a.apply(.reasoning(entryID: nil, action: .appendText("think", tokenCount: 1))) == [.reasoning("think")])
        #expect(a.apply(.reasoning(entryID: nil, action: .appendText("ing", tokenCount: 1))) == [.reasoning("ing")])
        #expect(a.apply(.response(entryID: "r", action: .appendText("done", tokenCount: 1))) == [.content("done")])
        #expect(a.reasoning == "thinking")
        #expect(a.usage.reasoningTokens == 2)
    }
}
