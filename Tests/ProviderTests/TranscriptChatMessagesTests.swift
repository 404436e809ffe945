import Foundation
import LoomJSON
import Provider
import Testing

/// Provider's one Transcript → chat messages rule, which every backend writes in its own form.
struct TranscriptChatMessagesTests {
    private func text(_ s: String) -> Transcript.Segment { .text(Transcript.TextSegment(content: s)) }
    private func image() -> Transcript.Segment {
        .attachment(Transcript.AttachmentSegment(content: .image(Transcript.ImageAttachment(URL(string: "https://example.com/a.png")!))))
    }
    private func prompt(_ s: String) -> Transcript.Entry { .prompt(Transcript.Prompt(segments: [text(s)])) }
    private func response(_ s: String) -> Transcript.Entry { .response(Transcript.Response(segments: [text(s)])) }
    private func reasoning(_ s: String) -> Transcript.Entry { .reasoning(Transcript.Reasoning(segments: [text(s)])) }
    private func call(_ id: String) -> Transcript.ToolCall {
        Transcript.ToolCall(id: id, toolName: "weather", arguments: GeneratedContent(jsonValue: ["city": "Oslo"]))
    }
    private func calls(_ ids: String...) -> Transcript.Entry { .toolCalls(Transcript.ToolCalls(ids.map(call))) }
    private func output(_ id: String, _ s: String) -> Transcript.Entry {
        .toolOutput(Transcript.ToolOutput(id: id, toolName: "weather", segments: [text(s)]))
    }

    /// Role, text, reasoning and call ids of each message, for compact expectations.
    private func shape(_ messages: [Transcript.ChatMessage]) -> [String] {
        messages.map { m in
            var s = m.role.rawValue + ":" + (m.text ?? "nil")
            if let r = m.reasoning { s += " reasoning:" + r }
            if !m.toolCalls.isEmpty { s += " calls:" + m.toolCalls.map(\.id).joined(separator: ",") }
            if let id = m.toolCallID { s += " answers:" + id }
            return s
        }
    }

    @Test func eachEntryKindHasItsRole() throws {
        let transcript = Transcript(entries: [
            .instructions(Transcript.Instructions(segments: [text("Be terse.")], toolDefinitions: [])),
            prompt("Weather?"), calls("c1"), output("c1", "Rain"), response("It rains."),
        ])
        let messages = try transcript.chatMessages()
        #expect(shape(messages) == ["system:Be terse.", "user:Weather?", "assistant:nil calls:c1", "tool:Rain answers:c1",
                                    "assistant:It rains."])
        #expect(messages[3].toolName == "weather")
        #expect(messages.map(\.entries.count) == [1, 1, 1, 1, 1])
    }

    @Test func oneStepIsOneAssistantMessage() throws {
        // Text then calls (the order a step generates them), and calls then text.
        let textFirst = try Transcript(entries: [prompt("q"), response("Let me check."), calls("c1", "c2")]).chatMessages()
        #expect(shape(textFirst) == ["user:q", "assistant:Let me check. calls:c1,c2"])
        #expect(textFirst[1].entries.count == 2)
        let callsFirst = try Transcript(entries: [prompt("q"), calls("c1"), response("Checking.")]).chatMessages()
        #expect(shape(callsFirst) == ["user:q", "assistant:Checking. calls:c1"])
    }

    @Test func separateStepsStaySeparate() throws {
        let messages = try Transcript(entries: [
            prompt("q"), response("a"), response("b"), calls("c1"), calls("c2"), output("c2", "o"), calls("c3"),
        ]).chatMessages()
        #expect(shape(messages) == ["user:q", "assistant:a", "assistant:b calls:c1", "assistant:nil calls:c2",
                                    "tool:o answers:c2", "assistant:nil calls:c3"])
    }

    @Test func reasoningBelongsToTheMessageItPrecedes() throws {
        let messages = try Transcript(entries: [
            prompt("q"), reasoning("think"), reasoning("more"), response("a"),
            reasoning("plan"), calls("c1"), output("c1", "o"),
            reasoning("interrupted"), prompt("q2"), reasoning("trailing"),
        ]).chatMessages()
        #expect(shape(messages) == [
            "user:q", "assistant:a reasoning:think\nmore",
            // Reasoning opens a new step, so the calls do not join the previous answer.
            "assistant:nil reasoning:plan calls:c1", "tool:o answers:c1",
            // Reasoning nothing followed stays in its own turn, never carried into a later one.
            "assistant:nil reasoning:interrupted", "user:q2", "assistant:nil reasoning:trailing",
        ])
        #expect(messages[1].entries.count == 3)
    }

    @Test func reasoningCanBeLeftOut() throws {
        let messages = try Transcript(entries: [prompt("q"), reasoning("think"), response("a"), calls("c1"), reasoning("t")])
            .chatMessages(includingReasoning: false)
        #expect(shape(messages) == ["user:q", "assistant:a calls:c1"])
    }

    @Test func textJoinsSegmentsByNewlinesAndStructureIsCompactJSON() throws {
        let structure = Transcript.Segment.structure(Transcript.StructuredSegment(
            source: "Forecast", content: GeneratedContent(jsonValue: ["rain": true, "mm": 3])))
        let messages = try Transcript(entries: [.response(Transcript.Response(segments: [text("Here:"), structure]))]).chatMessages()
        #expect(messages.first?.text == "Here:\n{\"rain\":true,\"mm\":3}")
    }

    @Test func attachmentsAreReportedTogetherWhereTheBackendCannotCarryThem() throws {
        let withImages = Transcript(entries: [
            .prompt(Transcript.Prompt(segments: [text("Look"), image()])),
            .response(Transcript.Response(segments: [image()])),
            .toolOutput(Transcript.ToolOutput(id: "c1", toolName: "camera", segments: [image()])),
        ])
        let textOnly = try #require(throwsUnsupported { try withImages.chatMessages(attachments: .none) })
        #expect(textOnly.unsupportedContent.map(\.id) == withImages.entries.map(\.id))
        let promptsOnly = try #require(throwsUnsupported { try withImages.chatMessages(attachments: .prompts) })
        #expect(promptsOnly.unsupportedContent.map(\.id) == withImages.entries.dropFirst().map(\.id))

        let allowed = try Transcript(entries: [withImages.entries[0]]).chatMessages(attachments: .prompts)
        #expect(allowed.first?.hasAttachments == true)
        #expect(allowed.first?.text == "Look")
    }

    /// The payload of the `unsupportedTranscriptContent` that `body` throws; nil if it throws
    /// anything else or nothing.
    private func throwsUnsupported(_ body: () throws -> [Transcript.ChatMessage]) -> LanguageModelError.UnsupportedTranscriptContent? {
        do {
            _ = try body()
            return nil
        } catch let LanguageModelError.unsupportedTranscriptContent(payload) {
            return payload
        } catch {
            return nil
        }
    }
}
