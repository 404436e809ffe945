import LoomJSON

/// The transcript format for models without a chat template.
///
/// Each message becomes one `"<role>: <content>\n"` line (content parts of OpenAI-style arrays
/// are concatenated; non-string content is written as JSON), and when a generation prompt is
/// requested the text ends with `"assistant:"`. Example:
///
///     system: Be brief.
///     user: Hi!
///     assistant:
public enum PlainChatFormat {
    /// Renders `messages` as plain text lines.
    public static func render(messages: [JSONValue], addGenerationPrompt: Bool) -> String {
        var out = ""
        for message in messages {
            let role = message["role"]?.stringValue ?? "user"
            out += role + ": " + text(of: message["content"]) + "\n"
        }
        if addGenerationPrompt { out += "assistant:" }
        return out
    }

    private static func text(of content: JSONValue?) -> String {
        switch content {
        case nil, .null?: return ""
        case .string(let s)?: return s
        case .array(let parts)?:
            return parts.map { part in
                if let s = part.stringValue { return s }
                return part["text"]?.stringValue ?? ""
            }.joined()
        case let other?: return other.serialized()
        }
    }
}
