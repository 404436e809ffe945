import Provider

/// How one model family writes tool calls, and how its chat template wants tools, calls and
/// outputs in the transcript.
///
/// Four syntaxes are known:
/// - `.hermes` (Qwen 2.5/3, Hermes): `<tool_call>\n{"name": "f", "arguments": {…}}\n</tool_call>`,
///   one block per call, blocks separated by a newline; text may come before the first block.
/// - `.llama3` (Llama 3.1/3.2/3.3 JSON tool calling): the whole reply is
///   `{"name": "f", "parameters": {…}}` (one call, no text around it).
/// - `.mistral` (Mistral Nemo/7B v0.3): `[TOOL_CALLS][{"name": "f", "arguments": {…}}, …]`, the
///   calls as one JSON array after the marker.
/// - `.fallback`, for templates that cannot render tools (SmolLM2's) or whose call syntax is unknown:
///   the tools are described in the system message, calls are `<tool_call>{"name": "f",
///   "arguments": {…}}</tool_call>` blocks (after optional text, separated by newlines), and
///   outputs go back as `tool` messages (or user text without a tool role).
///
/// Build one with `ToolCallDialect.detect(template:specialTokens:)`; the static members are the
/// canonical settings of each family for tests and templates known in advance.
public struct ToolCallDialect: Sendable, Hashable, CustomStringConvertible {
    /// The call syntax.
    public enum Family: String, Sendable, Hashable, CaseIterable {
        /// `{"name": …, "parameters": …}` as the whole reply.
        case llama3
        /// `<tool_call>\n{…}\n</tool_call>` blocks (Qwen, Hermes).
        case hermes
        /// `[TOOL_CALLS][{…}, …]`.
        case mistral
        /// `<tool_call>{…}</tool_call>` with tools described in the system message.
        case fallback
    }

    /// How tool outputs are fed back to the model.
    public enum ToolOutputRole: String, Sendable, Hashable {
        /// A `{"role": "tool", …}` message (the template renders it).
        case tool
        /// A user message holding `<tool_response>…</tool_response>` text (templates without a tool role).
        case user
    }

    /// The call syntax.
    public var family: Family
    /// Whether tool definitions go to the template's `tools` variable (false: injected into the
    /// system message as text).
    public var rendersToolsNatively: Bool
    /// Whether earlier calls go to the template as assistant `tool_calls` (false: written into the
    /// assistant message's content in the dialect's syntax).
    public var rendersToolCallsNatively: Bool
    /// How tool outputs are fed back.
    public var toolOutputRole: ToolOutputRole
    /// Whether the template accepts a system message (false, e.g. Gemma: the fallback's tool
    /// description then opens the first user message).
    public var hasSystemRole: Bool

    /// Builds a dialect from its parts.
    public init(family: Family, rendersToolsNatively: Bool, rendersToolCallsNatively: Bool, toolOutputRole: ToolOutputRole,
                hasSystemRole: Bool = true) {
        self.family = family
        self.rendersToolsNatively = rendersToolsNatively
        self.rendersToolCallsNatively = rendersToolCallsNatively
        self.toolOutputRole = toolOutputRole
        self.hasSystemRole = hasSystemRole
    }

    /// Qwen/Hermes with a template that renders tools, calls and tool messages.
    public static let hermes = ToolCallDialect(family: .hermes, rendersToolsNatively: true, rendersToolCallsNatively: true, toolOutputRole: .tool)
    /// Llama 3.x JSON tool calling with a template that renders tools, calls and tool (`ipython`) messages.
    public static let llama3 = ToolCallDialect(family: .llama3, rendersToolsNatively: true, rendersToolCallsNatively: true, toolOutputRole: .tool)
    /// Mistral `[TOOL_CALLS]` with a template that renders tools, calls and tool messages.
    public static let mistral = ToolCallDialect(family: .mistral, rendersToolsNatively: true, rendersToolCallsNatively: true, toolOutputRole: .tool)
    /// The fallback for templates with a `tool` role (any role renders, as in SmolLM2's template).
    public static let fallback = ToolCallDialect(family: .fallback, rendersToolsNatively: false, rendersToolCallsNatively: false, toolOutputRole: .tool)

    /// A short description for logs.
    public var description: String {
        "\(family.rawValue)(tools: \(rendersToolsNatively ? "native" : "system message"), calls: \(rendersToolCallsNatively ? "native" : "content"), outputs: \(toolOutputRole.rawValue))"
    }

    // MARK: - Syntax

    /// The text that starts the calls; free text can never contain it (the grammar forbids it),
    /// so the parser treats its first occurrence as the start of the calls.
    public var callOpener: String {
        switch family {
        case .hermes, .fallback: return "<tool_call>"
        case .mistral: return "[TOOL_CALLS]"
        case .llama3: return "{\"name\""
        }
    }

    /// Whether a call may follow free text (false: a reply is either text or calls).
    public var allowsTextBeforeCalls: Bool {
        switch family {
        case .hermes, .fallback: return true
        case .mistral, .llama3: return false
        }
    }

    /// Whether one reply may hold several calls (all but Llama 3). Models never trained on tool
    /// calls tend to repeat a call they just made (SmolLM2 does under greedy decoding); callers
    /// that want one call per step pass `maximumCalls: 1` to the grammar.
    public var allowsMultipleCalls: Bool { family != .llama3 }

    /// The key under which a call's arguments are written.
    public var argumentsKey: String { family == .llama3 ? "parameters" : "arguments" }

    /// Bytes between the opener and a call's JSON object, and after it before the closer.
    var blockPadding: String { family == .hermes ? "\n" : "" }

    /// The text after each call's JSON (tag dialects) or nil.
    var blockCloser: String? {
        switch family {
        case .hermes, .fallback: return "</tool_call>"
        case .mistral, .llama3: return nil
        }
    }

    /// Every marker string the dialect's output may contain; tokens spelling one of them exactly
    /// should be decoded as text (and be usable by the grammar) even when they are special tokens.
    public var markers: [String] {
        switch family {
        case .hermes, .fallback: return ["<tool_call>", "</tool_call>"]
        case .mistral: return ["[TOOL_CALLS]"]
        case .llama3: return ["<|python_tag|>"]
        }
    }
}
