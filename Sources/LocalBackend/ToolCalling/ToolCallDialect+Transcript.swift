import LoomJSON
import Provider

/// The separators Python's `json.dumps` uses, which chat templates and models are trained on.
let pythonJSON = JSONWriteOptions(itemSeparator: ", ", keySeparator: ": ")

extension ToolCallDialect {
    /// The tool definitions for the template's `tools` variable (OpenAI style:
    /// `{"type": "function", "function": {"name", "description", "parameters"}}`), or nil when the
    /// dialect describes tools in the system message instead (or there are none).
    public func templateTools(_ tools: [Transcript.ToolDefinition]) -> [JSONValue]? {
        guard rendersToolsNatively, !tools.isEmpty else { return nil }
        return tools.map(Self.functionJSON)
    }

    /// The system-message text that teaches a model without native tool support the tools and
    /// the call syntax; nil for native dialects or when there are no tools.
    public func systemPrompt(for tools: [Transcript.ToolDefinition]) -> String? {
        guard !rendersToolsNatively, !tools.isEmpty else { return nil }
        var text = "You can call tools. To call one, reply with exactly\n"
        text += callOpener + "{\"name\": \"<tool name>\", \"arguments\": {<arguments as JSON>}}" + (blockCloser ?? "") + "\n"
        text += "and nothing else. The tools (JSON Schema of the arguments in \"parameters\"):\n"
        for tool in tools { text += Self.functionJSON(tool).serialized(pythonJSON) + "\n" }
        text += "A tool's result comes back in a tool message; then answer the user."
        return text
    }

    /// `messages` with the tool description of `systemPrompt(for:)` applied: appended to the first
    /// system message, or inserted as a new first system message (without a system role: put
    /// before the first user message's text). Unchanged for native dialects.
    public func injectingTools(_ tools: [Transcript.ToolDefinition], into messages: [JSONValue]) -> [JSONValue] {
        guard let prompt = systemPrompt(for: tools) else { return messages }
        var out = messages
        if !hasSystemRole {
            if let i = out.firstIndex(where: { $0["role"]?.stringValue == "user" }), case .object(var o) = out[i],
               let text = o["content"]?.stringValue {
                o["content"] = .string(prompt + "\n\n" + text)
                out[i] = .object(o)
            } else {
                out.insert(["role": "user", "content": .string(prompt)], at: 0)
            }
            return out
        }
        if let first = out.first, first["role"]?.stringValue == "system", case .object(var o) = first {
            let existing = o["content"]?.stringValue ?? ""
            o["content"] = .string(existing.isEmpty ? prompt : existing + "\n\n" + prompt)
            out[0] = .object(o)
        } else {
            out.insert(["role": "system", "content": .string(prompt)], at: 0)
        }
        return out
    }

    /// The assistant message for a step that made `calls` (after optional `text`).
    ///
    /// Native dialects use `tool_calls` with dict arguments (what most templates need; see the
    /// chat-template suite's notes); the others write the calls into the content in the dialect's
    /// own syntax, which is also what the grammar makes the model write.
    public func assistantMessage(calls: [Transcript.ToolCall], text: String = "") -> JSONValue {
        if rendersToolCallsNatively {
            let list: [JSONValue] = calls.map { call in
                ["id": .string(call.id), "type": "function",
                 "function": ["name": .string(call.toolName), "arguments": call.arguments.jsonValue]]
            }
            return ["role": "assistant", "content": .string(text), "tool_calls": .array(list)]
        }
        let written = renderCalls(calls)
        return ["role": "assistant", "content": .string(text.isEmpty ? written : text + "\n" + written)]
    }

    /// The message that feeds one tool output back.
    public func toolOutputMessage(callID: String, toolName: String, content: String) -> JSONValue {
        switch toolOutputRole {
        case .tool:
            return ["role": "tool", "tool_call_id": .string(callID), "name": .string(toolName), "content": .string(content)]
        case .user:
            return ["role": "user", "content": .string("<tool_response>\n" + content + "\n</tool_response>")]
        }
    }

    /// The message for a transcript tool output, its text by Provider's one rule
    /// (`Transcript.ChatMessage.text(of:)`).
    public func toolOutputMessage(_ output: Transcript.ToolOutput) -> JSONValue {
        toolOutputMessage(callID: output.id, toolName: output.toolName, content: Transcript.ChatMessage.text(of: output.segments))
    }

    /// The calls written in the dialect's syntax (exactly what the call grammar admits, with
    /// compact arguments).
    public func renderCalls(_ calls: [Transcript.ToolCall]) -> String {
        let objects = calls.map { call -> String in
            var s = "{\"name\": "
            JSONValue.writeString(call.toolName, into: &s)
            return s + ", \"\(argumentsKey)\": " + call.arguments.jsonValue.serialized() + "}"
        }
        switch family {
        case .hermes, .fallback:
            return objects.map { callOpener + blockPadding + $0 + blockPadding + (blockCloser ?? "") }.joined(separator: "\n")
        case .mistral:
            return callOpener + "[" + objects.joined(separator: ", ") + "]"
        case .llama3:
            return objects.joined(separator: "\n")
        }
    }

    /// A tool definition as an OpenAI-style function object.
    static func functionJSON(_ tool: Transcript.ToolDefinition) -> JSONValue {
        ["type": "function", "function": ["name": .string(tool.name), "description": .string(tool.description),
                                          "parameters": tool.parameters.jsonSchema]]
    }
}
