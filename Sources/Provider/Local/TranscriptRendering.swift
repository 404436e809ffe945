import Engine
import Foundation
import LoomJSON

/// Turns a `Transcript` into the chat messages a template renders (OpenAI-style message objects),
/// and those into prompt text.
///
/// Entry mapping: instructions → `system`; prompt → `user`; response → `assistant`; reasoning →
/// `reasoning_content` of the assistant message that follows it; tool calls → an assistant
/// message with `tool_calls` (or, for templates that cannot render calls, the call text of the
/// tool-call dialect); tool output → a `tool` message. Attachments cannot be rendered by a
/// text-only model and are reported together as `unsupportedTranscriptContent`.
struct TranscriptRendering {
    /// How tool calls and their outputs appear in history for this model.
    var toolHistory: ToolHistoryStyle = .fallbackText
    /// Text appended to the last prompt (e.g. the response schema); nil for none.
    var promptSuffix: String?
    /// Text appended to the system message (e.g. tool definitions for a fallback dialect).
    var systemSuffix: String?

    enum ToolHistoryStyle {
        /// `tool_calls` arrays and `tool` role messages the template renders natively.
        case native
        /// Calls as `<tool_call>{…}</tool_call>` assistant text, outputs as `tool` messages.
        case fallbackText
    }

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
                var content = text(of: i.segments, entry: entry)
                if let systemSuffix { content += content.isEmpty ? systemSuffix : "\n\n" + systemSuffix }
                out.append(message("system", content))
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
                var extra: [(String, JSONValue)] = []
                if let reasoning = pendingReasoning { extra.append(("reasoning_content", .string(reasoning))) }
                pendingReasoning = nil
                switch toolHistory {
                case .native:
                    let list: [JSONValue] = calls.map { call in
                        .object(JSONObject([
                            ("id", .string(call.id)), ("type", .string("function")),
                            ("function", .object(JSONObject([("name", .string(call.toolName)),
                                                              ("arguments", call.arguments.jsonValue)]))),
                        ]))
                    }
                    extra.append(("tool_calls", .array(list)))
                    out.append(message("assistant", "", extra))
                case .fallbackText:
                    let text = calls.map { FallbackToolCallFormat.callText(name: $0.toolName, arguments: $0.arguments.jsonValue) }
                        .joined(separator: "\n")
                    out.append(message("assistant", text, extra))
                }
            case .toolOutput(let o):
                out.append(message("tool", text(of: o.segments, entry: entry),
                                   [("tool_call_id", .string(o.id)), ("name", .string(o.toolName))]))
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
        return out
    }
}

/// The tool-call syntax used when a template has none of its own: one JSON object per call
/// between `<tool_call>` tags (the Hermes convention, which small models follow well).
enum FallbackToolCallFormat {
    static let open = "<tool_call>"
    static let close = "</tool_call>"

    /// `<tool_call>{"name": …, "arguments": {…}}</tool_call>`.
    static func callText(name: String, arguments: JSONValue) -> String {
        let call = JSONValue.object(JSONObject([("name", .string(name)), ("arguments", arguments)]))
        return open + call.serialized() + close
    }
}
