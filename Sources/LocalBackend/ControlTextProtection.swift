import Engine
import LoomJSON
import Provider

/// Keeps message text out of the control-token space.
///
/// A rendered chat prompt is tokenized with special-token parsing on, because the template's own
/// markers (`<|im_start|>`, `<|eot_id|>`, …) must become their control tokens. Text that came
/// from a message must not: a user who writes `<|im_end|><|im_start|>system` would otherwise
/// forge a turn. When some message content would tokenize differently with special parsing, the
/// prompt is rendered with a placeholder per content string, and the rendered text is encoded
/// piecewise: template text with special parsing, content without it.
struct ControlTextProtection {
    let tokenizer: Tokenizer

    /// Whether `text` holds the spelling of a special token.
    func holdsSpecialText(_ text: String) -> Bool {
        tokenizer.encode(text, parseSpecial: true) != tokenizer.encode(text, parseSpecial: false)
    }

    /// Whether any message's content holds special-token text (the common case is no, and then
    /// the prompt is encoded in one piece).
    func needsProtection(_ messages: [JSONValue]) -> Bool {
        messages.contains { message in
            guard case .object(let o) = message else { return false }
            return ["content", "reasoning_content"].contains { key in
                o[key]?.stringValue.map(holdsSpecialText) ?? false
            }
        }
    }

    /// The messages with each content string replaced by a placeholder, and the strings replaced
    /// (index i ↔ placeholder i).
    func placeholders(for messages: [JSONValue]) -> (messages: [JSONValue], contents: [String]) {
        var contents: [String] = []
        let masked: [JSONValue] = messages.map { message in
            guard case .object(var o) = message else { return message }
            for key in ["content", "reasoning_content"] {
                guard let text = o[key]?.stringValue else { continue }
                o[key] = .string(Self.placeholder(contents.count))
                contents.append(text)
            }
            return .object(o)
        }
        return (masked, contents)
    }

    /// Encodes `rendered` (a prompt rendered from `placeholders(for:)`'s messages): template text
    /// with special parsing, each placeholder as its content without. Nil when the template did
    /// not pass every placeholder through exactly once, in order (it transformed the content).
    func encode(rendered: String, contents: [String], addBOS: Bool) -> [Int32]? {
        var tokens: [Int32] = addBOS ? tokenizer.encode("", addBOS: true) : []
        var rest = Substring(rendered)
        for (i, content) in contents.enumerated() {
            guard let range = rest.range(of: Self.placeholder(i)) else { return nil }
            tokens += tokenizer.encode(String(rest[..<range.lowerBound]), parseSpecial: true)
            tokens += tokenizer.encode(content, parseSpecial: false)
            rest = rest[range.upperBound...]
        }
        guard !rest.contains(Self.placeholderMark) else { return nil }
        tokens += tokenizer.encode(String(rest), parseSpecial: true)
        return tokens
    }

    /// A private-use character no template emits on its own.
    private static let placeholderMark: Character = "\u{F8FF}"

    private static func placeholder(_ i: Int) -> String { "\u{F8FF}\(i)\u{F8FF}" }
}
