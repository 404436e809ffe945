import Engine
import Foundation
import LoomJSON
import Provider

/// Turns a `Transcript` into the chat messages a template renders (OpenAI-style message objects),
/// and those into prompt text.
///
/// Entry mapping: instructions → `system`; prompt → `user`; response → `assistant`; reasoning →
/// `reasoning_content` of the assistant message that follows it; tool calls → an assistant
/// message with `tool_calls` (or, for templates that cannot render calls, the call text of the
/// tool-call dialect); tool output → a `tool` message. Attachments cannot be rendered by a
/// text-only model and are reported together as `unsupportedTranscriptContent`.
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
        var out: [JSONValue] = []
        var unsupported: [Transcript.Entry] = []
        var pendingReasoning: String?
        var lastPromptIndex: Int?

        func text(of segments: [Transcript.Segment], entry: Transcript.Entry) -> String {
            var parts: [String] = []
            for segment in segments {
                switch segment {
                case .text(let t): parts.append(t.content)
                case .structure(let s): parts.append(s.content.jsonString)
                case .attachment:
                    if unsupported.last?.id != entry.id { unsupported.append(entry) }
                }
            }
            return parts.joined()
        }

        func message(_ role: String, _ content: String, _ extra: [(String, JSONValue)] = []) -> JSONValue {
            var o = JSONObject()
            o["role"] = .string(role)
            o["content"] = .string(content)
            for (k, v) in extra { o[k] = v }
            return .object(o)
        }

        for entry in transcript.entries {
            switch entry {
            case .instructions(let i):
                out.append(message("system", text(of: i.segments, entry: entry)))
            case .prompt(let p):
                lastPromptIndex = out.count
                out.append(message("user", text(of: p.segments, entry: entry)))
            case .response(let r):
                var extra: [(String, JSONValue)] = []
                if let reasoning = pendingReasoning { extra.append(("reasoning_content", .string(reasoning))) }
                pendingReasoning = nil
                out.append(message("assistant", text(of: r.segments, entry: entry), extra))
            case .reasoning(let r):
                let t = text(of: r.segments, entry: entry)
                pendingReasoning = (pendingReasoning.map { $0 + "\n" } ?? "") + t
            case .toolCalls(let calls):
                var m = dialect.assistantMessage(calls: calls.calls)
                if let reasoning = pendingReasoning, case .object(var o) = m {
                    o["reasoning_content"] = .string(reasoning)
                    m = .object(o)
                }
                pendingReasoning = nil
                out.append(m)
            case .toolOutput(let o):
                _ = text(of: o.segments, entry: entry)
                out.append(dialect.toolOutputMessage(o))
            }
        }
        if !unsupported.isEmpty {
            throw LanguageModelError.unsupportedTranscriptContent(.init(
                unsupportedContent: unsupported,
                debugDescription: "this model reads text only; \(unsupported.count) entr\(unsupported.count == 1 ? "y has" : "ies have") attachments"))
        }
        if let promptSuffix {
            if let i = lastPromptIndex, case .object(var o) = out[i] {
                o["content"] = .string((o["content"]?.stringValue ?? "") + "\n\n" + promptSuffix)
                out[i] = .object(o)
            } else {
                out.append(message("user", promptSuffix))
            }
        }
        return dialect.injectingTools(tools, into: out)
    }
}
