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
/// text), the tools described in a system message for templates that take no `tools`, the
/// system message folded into the first user message for templates without a system role, and
/// the prompt suffix (the response schema) on the last prompt.
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
        let withTools = dialect.injectingTools(tools, into: out)
        return dialect.hasSystemRole ? withTools : Self.foldingSystemIntoFirstUser(withTools)
    }

    /// `messages` without system messages: their text opens the first user message, separated
    /// by a blank line, as Gemma 3's own template folds its system turn (templates with no system
    /// role, like Gemma 2's, raise on one). Without a user message the text becomes one.
    static func foldingSystemIntoFirstUser(_ messages: [JSONValue]) -> [JSONValue] {
        let isSystem = { (m: JSONValue) in m["role"]?.stringValue == "system" }
        guard let firstSystem = messages.firstIndex(where: isSystem) else { return messages }
        let instructions = messages.filter(isSystem).map { $0["content"]?.stringValue ?? "" }.filter { !$0.isEmpty }
        var out = messages.filter { !isSystem($0) }
        let prefix = instructions.joined(separator: "\n\n")
        if prefix.isEmpty { return out }
        if let i = out.firstIndex(where: { $0["role"]?.stringValue == "user" }), case .object(var o) = out[i] {
            let text = o["content"]?.stringValue ?? ""
            o["content"] = .string(text.isEmpty ? prefix : prefix + "\n\n" + text)
            out[i] = .object(o)
        } else {
            out.insert(["role": "user", "content": .string(prefix)], at: min(firstSystem, out.count))
        }
        return out
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
