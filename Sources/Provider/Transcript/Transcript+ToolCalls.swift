import Foundation

extension Transcript {
    /// The tool calls the model made in one step (possibly several, run in parallel).
    public struct ToolCalls: Sendable, Equatable, Identifiable, RandomAccessCollection {
        /// The entry id.
        public var id: String
        /// The calls, in the order the model opened them.
        public var calls: [ToolCall]
        /// Entry-level metadata (wholesale snapshot from the executor).
        public var metadata: [String: GeneratedContent]
        /// Usage reported for this entry, if the executor scoped usage to it.
        public var usage: Usage?

        /// Builds a tool-calls entry.
        public init<S: Sequence>(id: String = UUID().uuidString, _ calls: S) where S.Element == ToolCall {
            self.id = id
            self.calls = Array(calls)
            metadata = [:]
            usage = nil
        }

        /// The first call's index.
        public var startIndex: Int { calls.startIndex }
        /// One past the last call's index.
        public var endIndex: Int { calls.endIndex }
        /// The call at `position`.
        public subscript(position: Int) -> ToolCall { calls[position] }
    }

    /// One call of a tool by the model.
    public struct ToolCall: Sendable, Equatable, Identifiable {
        /// The call id (answered by the `ToolOutput` with the same id).
        public var id: String
        /// The tool's name.
        public var toolName: String
        /// The arguments the model generated.
        public var arguments: GeneratedContent
        /// Per-call metadata (wholesale snapshot from the executor).
        public var metadata: [String: GeneratedContent]

        /// Builds a tool call.
        public init(id: String, toolName: String, arguments: GeneratedContent, metadata: [String: GeneratedContent] = [:]) {
            self.id = id
            self.toolName = toolName
            self.arguments = arguments
            self.metadata = metadata
        }
    }

    /// The output of one tool call.
    public struct ToolOutput: Sendable, Equatable, Identifiable {
        /// The id of the call this output answers.
        public var id: String
        /// The tool's name.
        public var toolName: String
        /// The output's content.
        public var segments: [Segment]

        /// Builds a tool output.
        public init(id: String, toolName: String, segments: [Segment]) {
            self.id = id
            self.toolName = toolName
            self.segments = segments
        }
    }
}
