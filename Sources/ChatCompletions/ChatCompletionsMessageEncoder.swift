// Transcript → Chat Completions `messages`, written on top of Provider's one Transcript → chat
// messages rule (`Transcript.chatMessages`: which entries form which turn, where reasoning goes,
// which attachments are refused). What is Chat Completions' own is the wire form: tool-call
// arguments as a JSON string, `content: null` on a message that only calls tools, reasoning as
// `reasoning_content` (only with `ReasoningHistory.reasoningContent`), and images in prompts as
// `image_url` parts: http(s) and data: URLs are forwarded, readable file: URLs become data: URLs,
// and anything else is refused with `unsupportedTranscriptContent`.
import Foundation
import LoomJSON
import Provider

struct ChatCompletionsMessageEncoder {
    let reasoningHistory: ChatCompletionsLanguageModel.ReasoningHistory

    func messages(for transcript: Transcript) throws -> [JSONValue] {
        let messages = try transcript.chatMessages(includingReasoning: reasoningHistory == .reasoningContent,
                                                   attachments: .prompts)
        return try messages.map { .object(try wireMessage($0)) }
    }

    private func wireMessage(_ message: Transcript.ChatMessage) throws -> JSONObject {
        switch message.role {
        case .system:
            return JSONObject([("role", .string("system")), ("content", .string(message.text ?? ""))])
        case .user:
            return JSONObject([("role", .string("user")), ("content", try userContent(message))])
        case .tool:
            return JSONObject([("role", .string("tool")), ("tool_call_id", .string(message.toolCallID ?? "")),
                               ("content", .string(message.text ?? ""))])
        case .assistant:
            var object = JSONObject([("role", .string("assistant"))])
            object["content"] = message.text.map(JSONValue.string) ?? (message.toolCalls.isEmpty ? .string("") : .null)
            if let reasoning = message.reasoning { object["reasoning_content"] = .string(reasoning) }
            if !message.toolCalls.isEmpty {
                object["tool_calls"] = .array(message.toolCalls.map { call in
                    .object(JSONObject([
                        ("id", .string(call.id)), ("type", .string("function")),
                        ("function", .object(JSONObject([("name", .string(call.toolName)), ("arguments", .string(call.arguments.jsonString))]))),
                    ]))
                })
            }
            return object
        }
    }

    /// A prompt's content: a string, or `text`/`image_url` parts when it holds images.
    private func userContent(_ message: Transcript.ChatMessage) throws -> JSONValue {
        guard message.hasAttachments, let segments = message.content else { return .string(message.text ?? "") }
        var parts: [JSONValue] = []
        for segment in segments {
            switch segment {
            case .text(let t): parts.append(.object(JSONObject([("type", .string("text")), ("text", .string(t.content))])))
            case .structure(let s): parts.append(.object(JSONObject([("type", .string("text")), ("text", .string(s.content.jsonString))])))
            case .attachment(let a):
                switch a.content {
                case .image(let image):
                    let url = try imageURL(image, message.entries)
                    parts.append(.object(JSONObject([("type", .string("image_url")),
                                                     ("image_url", .object(JSONObject([("url", .string(url))])))])))
                }
            }
        }
        return .array(parts)
    }

    private func imageURL(_ image: Transcript.ImageAttachment, _ entries: [Transcript.Entry]) throws -> String {
        func refuse(_ why: String) -> LanguageModelError {
            .unsupportedTranscriptContent(.init(unsupportedContent: entries, debugDescription: why))
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
}
