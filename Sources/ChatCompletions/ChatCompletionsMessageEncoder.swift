// Transcript → Chat Completions `messages`.
//
// instructions → system; prompt → user (text, or parts with `image_url` when it has images);
// response → assistant; toolCalls → assistant `tool_calls` (merged into an adjacent assistant
// message, since a step may produce text and calls together); toolOutput → `tool` messages
// keyed by `tool_call_id`; reasoning per `ReasoningHistory`. Structured segments are sent as
// their JSON text. Images are accepted only in prompts (the protocol has no other place for
// them): http(s) and data: URLs are forwarded, readable file: URLs become data: URLs, and
// anything else is refused with `unsupportedTranscriptContent`.
import Foundation
import LoomJSON
import Provider

struct ChatCompletionsMessageEncoder {
    let reasoningHistory: ChatCompletionsLanguageModel.ReasoningHistory

    func messages(for transcript: Transcript) throws -> [JSONValue] {
        var out: [JSONObject] = []
        var pendingReasoning: [String] = []

        func attachReasoning(to message: inout JSONObject) {
            guard reasoningHistory == .reasoningContent, !pendingReasoning.isEmpty else { return }
            message["reasoning_content"] = .string(pendingReasoning.joined(separator: "\n"))
            pendingReasoning = []
        }
        func flushReasoning() {
            guard reasoningHistory == .reasoningContent, !pendingReasoning.isEmpty else { return }
            var message = JSONObject([("role", .string("assistant")), ("content", .string(""))])
            attachReasoning(to: &message)
            out.append(message)
        }
        /// Whether the last message is an assistant message `entry` may merge into.
        func lastAssistantAccepts(toolCalls: Bool) -> Bool {
            guard let last = out.last, last["role"]?.stringValue == "assistant" else { return false }
            return toolCalls ? last["tool_calls"] == nil : (last["content"]?.isNull ?? true)
        }

        for entry in transcript {
            switch entry {
            case .instructions(let e):
                flushReasoning()
                out.append(JSONObject([("role", .string("system")), ("content", .string(try text(e.segments, entry)))]))
            case .prompt(let e):
                flushReasoning()
                out.append(JSONObject([("role", .string("user")), ("content", try userContent(e.segments, entry))]))
            case .response(let e):
                let content = JSONValue.string(try text(e.segments, entry))
                if pendingReasoning.isEmpty, lastAssistantAccepts(toolCalls: false) {
                    out[out.count - 1]["content"] = content
                } else {
                    var message = JSONObject([("role", .string("assistant")), ("content", content)])
                    attachReasoning(to: &message)
                    out.append(message)
                }
            case .toolCalls(let e):
                let calls = JSONValue.array(e.calls.map { call in
                    .object(JSONObject([
                        ("id", .string(call.id)), ("type", .string("function")),
                        ("function", .object(JSONObject([("name", .string(call.toolName)), ("arguments", .string(call.arguments.jsonString))]))),
                    ]))
                })
                if pendingReasoning.isEmpty, lastAssistantAccepts(toolCalls: true) {
                    out[out.count - 1]["tool_calls"] = calls
                } else {
                    var message = JSONObject([("role", .string("assistant")), ("content", .null), ("tool_calls", calls)])
                    attachReasoning(to: &message)
                    out.append(message)
                }
            case .toolOutput(let e):
                flushReasoning()
                out.append(JSONObject([("role", .string("tool")), ("tool_call_id", .string(e.id)), ("content", .string(try text(e.segments, entry)))]))
            case .reasoning(let e):
                if reasoningHistory == .reasoningContent { pendingReasoning.append(try text(e.segments, entry)) }
            }
        }
        flushReasoning()
        return out.map { .object($0) }
    }

    /// Text and structured segments joined; attachments refused (only prompts carry images).
    private func text(_ segments: [Transcript.Segment], _ entry: Transcript.Entry) throws -> String {
        var parts: [String] = []
        for segment in segments {
            switch segment {
            case .text(let t): parts.append(t.content)
            case .structure(let s): parts.append(s.content.jsonString)
            case .attachment:
                throw LanguageModelError.unsupportedTranscriptContent(.init(
                    unsupportedContent: [entry],
                    debugDescription: "Chat Completions accepts images only in prompts (user messages), not in \(kind(entry)) entries"))
            }
        }
        return parts.joined()
    }

    private func userContent(_ segments: [Transcript.Segment], _ entry: Transcript.Entry) throws -> JSONValue {
        let hasImages = segments.contains { if case .attachment = $0 { return true }; return false }
        guard hasImages else { return .string(try text(segments, entry)) }
        var parts: [JSONValue] = []
        for segment in segments {
            switch segment {
            case .text(let t): parts.append(.object(JSONObject([("type", .string("text")), ("text", .string(t.content))])))
            case .structure(let s): parts.append(.object(JSONObject([("type", .string("text")), ("text", .string(s.content.jsonString))])))
            case .attachment(let a):
                switch a.content {
                case .image(let image):
                    let url = try imageURL(image, entry)
                    parts.append(.object(JSONObject([("type", .string("image_url")),
                                                     ("image_url", .object(JSONObject([("url", .string(url))])))])))
                }
            }
        }
        return .array(parts)
    }

    private func imageURL(_ image: Transcript.ImageAttachment, _ entry: Transcript.Entry) throws -> String {
        func refuse(_ why: String) -> LanguageModelError {
            .unsupportedTranscriptContent(.init(unsupportedContent: [entry], debugDescription: why))
        }
        guard let url = image.url else { throw refuse("image attachment without a URL; Chat Completions needs an http(s), data: or file: URL") }
        switch url.scheme?.lowercased() {
        case "http", "https", "data":
            return url.absoluteString
        case "file":
            let types = ["png": "image/png", "jpg": "image/jpeg", "jpeg": "image/jpeg", "gif": "image/gif", "webp": "image/webp"]
            guard let mime = types[url.pathExtension.lowercased()] else {
                throw refuse("image file '\(url.lastPathComponent)' is not PNG, JPEG, GIF or WebP (by extension)")
            }
            guard let data = try? Data(contentsOf: url) else { throw refuse("image file '\(url.path)' could not be read") }
            return "data:\(mime);base64,\(data.base64EncodedString())"
        default:
            throw refuse("image URL scheme '\(url.scheme ?? "")' cannot be sent to a Chat Completions server")
        }
    }

    private func kind(_ entry: Transcript.Entry) -> String {
        switch entry {
        case .instructions: "instructions"
        case .prompt: "prompt"
        case .response: "response"
        case .toolCalls: "tool calls"
        case .toolOutput: "tool output"
        case .reasoning: "reasoning"
        }
    }
}
