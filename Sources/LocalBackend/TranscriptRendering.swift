import Engine
import Foundation
import LoomJSON
import Provider

/// Turns a `Transcript` into the chat messages a template renders (OpenAI-style message objects).
///
/// Which entries form which turn, where reasoning goes and which content is refused is Provider's
/// one rule (`Transcript.chatMessages`); this model reads text only, so every entry holding an
/// attachment is reported in one `unsupportedTranscriptContent`. On top of that rule sit the
/// local model's own forms: reasoning as `reasoning_content`, tool calls and outputs in the
/// model's tool-call dialect (template `tool_calls` with dict arguments, or the dialect's call
/// text), the tools described in a system message for templates that take no `tools`, and the
/// prompt suffix (the response schema) on the last prompt.
struct TranscriptRendering {
    /// The model's tool-call dialect: how calls and outputs appear in history, and how tool
    /// definitions reach the model (template `tools` or system-message text).
    var dialect: ToolCallDialect = .fallback
    /// The tools offered on this step (described to the model when its template does not).
    var tools: [Transcript.ToolDefinition] = []
    /// Text appended to the last prompt (e.g. the response schema); nil for none.
    var promptSuffix: String?

    /// The messages for `transcript`; throws `unsupportedTranscriptContent` naming every entry
    /// holding content a text model cannot take.
    func messages(for transcript: Transcript) throws -> [JSONValue] {
        let messages = try transcript.chatMessages(includingReasoning: true, attachments: .none)
        var out = messages.map(templateMessage)
        if let promptSuffix {
            if let i = messages.lastIndex(where: { $0.role == .user }), case .object(var o) = out[i] {
                o["content"] = .string((o["content"]?.stringValue ?? "") + "\n\n" + promptSuffix)
                out[i] = .object(o)
            } else {
                out.append(["role": "user", "content": .string(promptSuffix)])
            }
        }
        return dialect.injectingTools(tools, into: out)
    }

    /// One message as the template takes it.
    private func templateMessage(_ message: Transcript.ChatMessage) -> JSONValue {
        let text = message.text ?? ""
        var rendered: JSONValue
        switch message.role {
        case .system, .user:
            rendered = ["role": .string(message.role.rawValue), "content": .string(text)]
        case .tool:
            rendered = dialect.toolOutputMessage(callID: message.toolCallID ?? "", toolName: message.toolName ?? "", content: text)
        case .assistant:
            rendered = message.toolCalls.isEmpty
                ? ["role": "assistant", "content": .string(text)]
                : dialect.assistantMessage(calls: message.toolCalls, text: text)
        }
        if let reasoning = message.reasoning, case .object(var o) = rendered {
            o["reasoning_content"] = .string(reasoning)
            rendered = .object(o)
        }
        return rendered
    }
}
