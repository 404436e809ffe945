import Provider

/// Failures of tool-call grammar building and output parsing.
public enum ToolCallingError: Error, Sendable, Equatable, CustomStringConvertible {
    /// A tool's `parameters` schema cannot be compiled to a grammar (the grammar error's text).
    case invalidParameterSchema(toolName: String, reason: String)
    /// Combining the call grammar with the text, reasoning or response grammars failed (a bug or
    /// a resource limit, not a property of the request's tools).
    case grammarComposition(reason: String)
    /// `.required` tool calling with no tools enabled: no output could satisfy it.
    case noToolsForRequiredCall
    /// The output opened a call that is not well formed (possible only without a grammar, or
    /// when generation stopped inside the call).
    case malformedToolCall(text: String, reason: String)

    /// A readable description.
    public var description: String {
        switch self {
        case .invalidParameterSchema(let name, let reason): return "tool '\(name)': parameters schema not supported: \(reason)"
        case .grammarComposition(let reason): return "tool-call grammar could not be built: \(reason)"
        case .noToolsForRequiredCall: return "a tool call is required but no tools are enabled"
        case .malformedToolCall(let text, let reason): return "malformed tool call (\(reason)): \(text)"
        }
    }
}
