import Foundation
import Testing
@testable import Provider

/// Layer 2: channel events → transcript entries, through a recording channel.
@Suite struct EventAssemblyTests {
    typealias Event = LanguageModelExecutorGenerationChannel.Event

    @Test func `recorded events expose typed payloads through kind storage`() async throws {
        let sink = RecordingChannel()
        await sink.send([.response(entryID: "r1", action: .appendText("Hi", tokenCount: 1))])
        try #require(sink.events.count == 1)
        if case .response(let payload) = sink.events[0].kind.storage,
           case .appendText(let text, let segmentID, let tokens) = payload.action {
            #expect(payload.entryID == "r1")
            #expect(text == "Hi")
            #expect(segmentID == nil)
            #expect(tokens == 1)
        } else {
            Issue.record("expected a response appendText event")
        }
    }

    @Test func `text deltas coalesce into one response entry with accumulated credits`() async {
        let sink = RecordingChannel()
        await sink.send([
            .response(entryID: "r", action: .appendText("Hello", tokenCount: 1)),
            .response(entryID: "r", action: .appendText(", world!", tokenCount: 2)),
        ])
        let entries = sink.entries
        #expect(entries.count == 1)
        let response = entries[0].responseValue
        #expect(response?.id == "r")
        #expect(text(of: response?.segments ?? []) == "Hello, world!")
        #expect(response?.segments.count == 1)
        #expect(response?.usage?.output.totalTokenCount == 3)
    }

    @Test func `interleaved reasoning and text with stable ids give one entry of each`() async {
        let sink = RecordingChannel()
        await sink.send([
            .reasoning(entryID: "think", action: .appendText("First ", tokenCount: 1)),
            .response(entryID: "r", action: .appendText("Hello ", tokenCount: 1)),
            .reasoning(entryID: "think", action: .appendText("thought", tokenCount: 1)),
            .response(entryID: "r", action: .appendText("world", tokenCount: 1)),
        ])
        let entries = sink.entries
        #expect(entries.map(\.kindName) == ["reasoning", "response"])
        #expect(text(of: entries[0].reasoningValue?.segments ?? []) == "First thought")
        #expect(text(of: entries[1].responseValue?.segments ?? []) == "Hello world")
        #expect(entries[0].reasoningValue?.usage?.output.reasoningTokenCount == 2)
    }

    @Test func `nil reasoning ids coalesce only into a trailing reasoning entry`() async {
        let sink = RecordingChannel()
        await sink.send([
            .reasoning(entryID: nil, action: .appendText("a", tokenCount: 1)),
            .reasoning(entryID: nil, action: .appendText("b", tokenCount: 1)),
            .response(entryID: "r", action: .appendText("x", tokenCount: 1)),
            .reasoning(entryID: nil, action: .appendText("c", tokenCount: 1)),
        ])
        let entries = sink.entries
        #expect(entries.map(\.kindName) == ["reasoning", "response", "reasoning"])
        #expect(text(of: entries[0].reasoningValue?.segments ?? []) == "ab")
        #expect(text(of: entries[2].reasoningValue?.segments ?? []) == "c")
        #expect(entries[0].id != entries[2].id)
    }

    @Test func `usage updates replace wholesale`() async {
        let sink = RecordingChannel()
        var events: [Event] = [.response(entryID: "r", action: .appendText("abc", tokenCount: 3))]
        for total in 1...3 {
            events.append(.response(entryID: "r", action: .updateUsage(
                input: .init(totalTokenCount: 10, cachedTokenCount: 4),
                output: .init(totalTokenCount: total, reasoningTokenCount: 0))))
        }
        await sink.send(events)
        let usage = sink.entries[0].responseValue?.usage
        #expect(usage?.output.totalTokenCount == 3)
        #expect(usage?.input.totalTokenCount == 10)
        #expect(usage?.input.cachedTokenCount == 4)
    }

    @Test func `metadata updates replace wholesale`() async {
        let sink = RecordingChannel()
        await sink.send([
            .response(entryID: "r", action: .updateMetadata(["modelID": "m", "requestID": "q"])),
            .response(entryID: "r", action: .appendText("x", tokenCount: 1)),
            .response(entryID: "r", action: .updateMetadata(["modelID": "m2"])),
        ])
        let metadata = sink.entries[0].responseValue?.metadata ?? [:]
        #expect(metadata.count == 1)
        #expect(metadata["modelID"]?.jsonString == "\"m2\"")
        #expect(metadata["requestID"] == nil)
    }

    @Test func `streamed tool call arguments assemble into one call`() async {
        let sink = RecordingChannel()
        await sink.send([
            .toolCalls(entryID: "t", action: .toolCall(id: "c1", name: "weather", action: .updateMetadata(["tag": "x"]))),
            .toolCalls(entryID: "t", action: .toolCall(id: "c1", name: "weather", action: .appendArguments("", tokenCount: 0))),
            .toolCalls(entryID: "t", action: .toolCall(id: "c1", name: "weather", action: .appendArguments("{\"city\":", tokenCount: 1))),
            .toolCalls(entryID: "t", action: .toolCall(id: "c1", name: "weather", action: .appendArguments("\"Paris\"}", tokenCount: 1))),
        ])
        let calls = sink.entries[0].toolCallsValue?.calls ?? []
        #expect(calls.count == 1)
        #expect(calls.first?.toolName == "weather")
        #expect(calls.first?.arguments.jsonString == #"{"city":"Paris"}"#)
        #expect(calls.first?.arguments.isComplete == true)
        #expect(calls.first?.metadata["tag"]?.jsonString == "\"x\"")
    }

    @Test func `interleaved parallel tool calls route by id and retracted calls are dropped`() async {
        let sink = RecordingChannel()
        func args(_ id: String, _ name: String, _ s: String) -> Event {
            .toolCalls(entryID: "t", action: .toolCall(id: id, name: name, action: .appendArguments(s, tokenCount: 1)))
        }
        await sink.send([
            args("a", "f", "{\"x\":"), args("b", "g", "{\"y\":"), args("a", "f", "1}"), args("b", "g", "2}"),
            args("c", "h", "{}"),
            .toolCalls(entryID: "t", action: .removeToolCall(Transcript.ToolCall(id: "c", toolName: "h", arguments: GeneratedContent(jsonValue: .null)))),
        ])
        let calls = sink.entries[0].toolCallsValue?.calls ?? []
        #expect(calls.map(\.id) == ["a", "b"])
        #expect(calls.map(\.arguments.jsonString) == [#"{"x":1}"#, #"{"y":2}"#])
    }

    @Test func `partial tool arguments are readable while streaming`() async {
        let sink = RecordingChannel()
        await sink.send([.toolCalls(entryID: "t", action: .toolCall(id: "a", name: "f", action: .appendArguments("{\"city\":\"Par", tokenCount: 1)))])
        let call = sink.liveEntries[0].toolCallsValue?.calls.first
        #expect(call?.arguments.jsonString == #"{"city":"Par"}"#)
        #expect(call?.arguments.isComplete == false)
    }

    @Test func `usage-only response event on a tool-only step leaves no empty response entry`() async {
        let sink = RecordingChannel()
        await sink.send([
            .response(entryID: "r", action: .updateMetadata(["modelID": "m"])),
            .response(entryID: "r", action: .updateUsage(input: .init(totalTokenCount: 14, cachedTokenCount: 0),
                                                         output: .init(totalTokenCount: 0, reasoningTokenCount: 0))),
            .toolCalls(entryID: "t", action: .toolCall(id: "a", name: "f", action: .appendArguments("{}", tokenCount: 1))),
        ])
        let entries = sink.entries
        #expect(entries.map(\.kindName) == ["toolCalls"])
        let toolCalls = entries[0].toolCallsValue
        #expect(toolCalls?.usage?.input.totalTokenCount == 14)
        #expect(toolCalls?.metadata["modelID"]?.jsonString == "\"m\"")
    }

    @Test func `replace text, attachments and signatures follow their documented semantics`() async {
        let sink = RecordingChannel()
        let image = Transcript.AttachmentSegment(id: "img", content: .image(.init(url: URL(string: "file:///a.png")!)), label: "diagram")
        let refined = Transcript.AttachmentSegment(id: "img", content: .image(.init(url: URL(string: "file:///b.png")!)))
        await sink.send([
            .response(entryID: "r", action: .appendText("draft", tokenCount: 1)),
            .response(entryID: "r", action: .replaceTextSegment("final", tokenCount: 0)),
            .response(entryID: "r", action: .addAttachmentSegment(image)),
            .response(entryID: "r", action: .addAttachmentSegment(image)),
            .response(entryID: "r", action: .removeAttachmentSegment(image)),
            .response(entryID: "r", action: .addAttachmentSegment(refined)),
            .reasoning(entryID: "k", action: .appendText("why", tokenCount: 1)),
            .reasoning(entryID: "k", action: .updateSignature(Data([0xFF, 0x00, 0x80]), tokenCount: 0)),
            .reasoning(entryID: "k", action: .updateSignature(Data([0x01]), tokenCount: 0)),
        ])
        let response = sink.entries[0].responseValue!
        #expect(text(of: response.segments) == "final")
        let attachments = response.segments.compactMap { if case .attachment(let a) = $0 { return a }; return nil }
        // Add never replaces: two adds, one removal, one more add leaves two segments.
        #expect(attachments.count == 2)
        #expect(attachments.last?.content == refined.content)
        #expect(sink.entries[1].reasoningValue?.signature == Data([0x01]))
    }
}
