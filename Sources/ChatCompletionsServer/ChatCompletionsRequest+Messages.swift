// `messages` → Transcript, the inverse of the client's message encoder:
// system/developer → the instructions entry (which also carries every declared tool); user →
// prompt (text, and `image_url` parts as image attachments); assistant → reasoning
// (`reasoning_content`), response (content or refusal text) and tool calls; tool → tool output,
// named after the call it answers. The last prompt carries the request's options and response
// format, as a session-built transcript would.
//
// Refused rather than guessed: system messages after the conversation has started (a transcript
// has one instructions entry, first), message `name`s (a transcript has nowhere to keep them),
// tool results for calls that were never made, and a conversation that does not end with a user
// or tool message (there is nothing to answer).
import Foundation
import LoomJSON
import Provider

extension ChatCompletionsRequest {
    static func transcript(_ body: RequestFields, tools: [Transcript.ToolDefinition], options: GenerationOptions,
                           schema: GenerationSchema?) throws(ChatCompletionsServiceError) -> Transcript {
        guard let messages = try body.array("messages") else { throw .missing("messages") }
        guard !messages.isEmpty else { throw .invalidValue("messages", "'messages' must contain at least one message.") }

        var instructions: [Transcript.Segment] = []
        var entries: [Transcript.Entry] = []
        var toolNames: [String: String] = [:]  // call id → tool name, for tool results

        for (index, item) in messages.enumerated() {
            let message = try RequestFields(item, path: "messages[\(index)]")
            let role = try message.requiredString("role")
            if message.value("name") != nil {
                throw .unsupported(message.param("name"), "Message names are not supported by this server.")
            }
            switch role {
            case "system", "developer":
                try message.rejectUnknown(["role", "content", "name"])
                guard entries.isEmpty else {
                    throw .invalidValue(message.param("role"),
                                        "A \(role) message is supported only at the start of the conversation.")
                }
                instructions.append(.text(Transcript.TextSegment(content: try text(of: message, key: "content", required: true))))
            case "user":
                try message.rejectUnknown(["role", "content", "name"])
                entries.append(.prompt(Transcript.Prompt(segments: try userSegments(message))))
            case "assistant":
                try message.rejectUnknown(["role", "content", "name", "tool_calls", "refusal", "reasoning_content"])
                entries += try assistantEntries(message, toolNames: &toolNames)
            case "tool":
                try message.rejectUnknown(["role", "content", "tool_call_id"])
                let callID = try message.requiredString("tool_call_id")
                guard let name = toolNames[callID] else {
                    throw .invalidValue(message.param("tool_call_id"),
                                        "No earlier assistant message made a tool call with id '\(callID)'.")
                }
                let output = try text(of: message, key: "content", required: true)
                entries.append(.toolOutput(Transcript.ToolOutput(id: callID, toolName: name,
                                                                 segments: [.text(Transcript.TextSegment(content: output))])))
            case "function":
                throw .unsupported(message.param("role"), "The deprecated 'function' role is not supported; use 'tool'.")
            default:
                throw .invalidValue(message.param("role"),
                                    "Invalid role '\(role)': expected system, developer, user, assistant or tool.")
            }
        }

        switch entries.last {
        case .prompt(var prompt)?:
            prompt.options = options
            prompt.responseFormat = schema.map { Transcript.ResponseFormat(schema: $0) }
            entries[entries.count - 1] = .prompt(prompt)
        case .toolOutput?:
            break
        default:
            throw .invalidValue("messages", "The last message must be a user or tool message: there is nothing to answer.")
        }
        if !instructions.isEmpty || !tools.isEmpty {
            entries.insert(.instructions(Transcript.Instructions(segments: instructions, toolDefinitions: tools)), at: 0)
        }
        return Transcript(entries: entries)
    }

    /// `content` as text: a string, or an array of `text` parts (joined without separators, as
    /// OpenAI concatenates them). `refusal` parts are accepted where `allowRefusal` is set.
    private static func text(of message: RequestFields, key: String, required: Bool,
                             allowRefusal: Bool = false) throws(ChatCompletionsServiceError) -> String {
        guard let content = message.value(key) else {
            if required { throw .missing(message.param(key)) }
            return ""
        }
        switch content {
        case .string(let s):
            return s
        case .array(let parts):
            var out = ""
            for (i, part) in parts.enumerated() {
                let fields = try RequestFields(part, path: "\(message.param(key))[\(i)]")
                let type = try fields.requiredString("type")
                switch type {
                case "text":
                    try fields.rejectUnknown(["type", "text"])
                    out += try fields.requiredString("text")
                case "refusal" where allowRefusal:
                    try fields.rejectUnknown(["type", "refusal"])
                    out += try fields.requiredString("refusal")
                default:
                    throw .unsupported(fields.param("type"), "Content parts of type '\(type)' are not allowed here.")
                }
            }
            return out
        default:
            throw .invalidType(message.param(key), expected: "a string or an array of content parts")
        }
    }

    private static func userSegments(_ message: RequestFields) throws(ChatCompletionsServiceError) -> [Transcript.Segment] {
        guard let content = message.value("content") else { throw .missing(message.param("content")) }
        guard case .array(let parts) = content else {
            return [.text(Transcript.TextSegment(content: try text(of: message, key: "content", required: true)))]
        }
        var segments: [Transcript.Segment] = []
        for (i, part) in parts.enumerated() {
            let fields = try RequestFields(part, path: "\(message.param("content"))[\(i)]")
            let type = try fields.requiredString("type")
            switch type {
            case "text":
                try fields.rejectUnknown(["type", "text"])
                let text = try fields.requiredString("text")
                // Adjacent text parts form one segment, as the client's encoder splits them.
                if case .text(var last)? = segments.last {
                    last.content += text
                    segments[segments.count - 1] = .text(last)
                } else {
                    segments.append(.text(Transcript.TextSegment(content: text)))
                }
            case "image_url":
                try fields.rejectUnknown(["type", "image_url"])
                guard let image = try fields.fields("image_url") else { throw .missing(fields.param("image_url")) }
                try image.rejectUnknown(["url", "detail"])
                let raw = try image.requiredString("url")
                if let detail = try image.string("detail"), detail != "auto" {
                    throw .unsupported(image.param("detail"), "Image detail '\(detail)' is not supported (only 'auto').")
                }
                guard let url = URL(string: raw), let scheme = url.scheme?.lowercased(),
                      ["http", "https", "data"].contains(scheme) else {
                    throw .invalidValue(image.param("url"), "An image URL must be an http(s) or data: URL.")
                }
                segments.append(.attachment(Transcript.AttachmentSegment(content: .image(Transcript.ImageAttachment(url: url)))))
            default:
                throw .unsupported(fields.param("type"), "User content parts of type '\(type)' are not supported.")
            }
        }
        return segments
    }

    private static func assistantEntries(_ message: RequestFields,
                                         toolNames: inout [String: String]) throws(ChatCompletionsServiceError) -> [Transcript.Entry] {
        var entries: [Transcript.Entry] = []
        if let reasoning = try message.string("reasoning_content"), !reasoning.isEmpty {
            entries.append(.reasoning(Transcript.Reasoning(segments: [.text(Transcript.TextSegment(content: reasoning))])))
        }
        var text = try Self.text(of: message, key: "content", required: false, allowRefusal: true)
        if let refusal = try message.string("refusal") { text += refusal }

        var calls: [Transcript.ToolCall] = []
        for (i, item) in (try message.array("tool_calls") ?? []).enumerated() {
            let call = try RequestFields(item, path: "\(message.param("tool_calls"))[\(i)]")
            try call.rejectUnknown(["id", "type", "function", "index"])
            let id = try call.requiredString("id")
            if let type = try call.string("type"), type != "function" {
                throw .unsupported(call.param("type"), "Only 'function' tool calls are supported, not '\(type)'.")
            }
            guard let function = try call.fields("function") else { throw .missing(call.param("function")) }
            try function.rejectUnknown(["name", "arguments"])
            let name = try function.requiredString("name")
            let arguments = try function.string("arguments") ?? ""
            guard toolNames[id] == nil else {
                throw .invalidValue(call.param("id"), "Tool call id '\(id)' is used more than once.")
            }
            toolNames[id] = name
            calls.append(Transcript.ToolCall(id: id, toolName: name, arguments: Self.arguments(arguments)))
        }
        if !text.isEmpty || calls.isEmpty {
            entries.append(.response(Transcript.Response(segments: [.text(Transcript.TextSegment(content: text))])))
        }
        if !calls.isEmpty { entries.append(.toolCalls(Transcript.ToolCalls(calls))) }
        return entries
    }

    /// Echoed arguments are the model's own earlier output: JSON when it generated JSON, and
    /// otherwise kept as the raw text (a string value) rather than refused, as the session does.
    private static func arguments(_ text: String) -> GeneratedContent {
        if text.trimmingCharacters(in: .whitespacesAndNewlines).isEmpty {
            return GeneratedContent(jsonValue: .object(JSONObject()))
        }
        if let parsed = try? GeneratedContent(json: text) { return parsed }
        return GeneratedContent(jsonValue: .string(text))
    }
}
