import Foundation

/// The history of a session: instructions, prompts, tool calls and outputs, reasoning and
/// responses, in order.
///
/// A transcript is a mutable, range-replaceable collection of `Entry` values, so apps can
/// trim or rewrite history (`session.transcript.removeSubrange(…)`, `transcript.history =
/// transcript.history.suffix(4)`), and it is `Codable` so a conversation can be persisted and
/// restored into a new session with `LanguageModelSession(model:tools:transcript:)`.
public struct Transcript: Sendable, Equatable, RandomAccessCollection, MutableCollection, RangeReplaceableCollection {
    /// The entries, in order.
    public var entries: [Entry]

    /// A transcript holding `entries`.
    public init(entries: some Sequence<Entry> = []) {
        self.entries = Array(entries)
    }

    /// An empty transcript.
    public init() { entries = [] }

    /// The index of the first entry.
    public var startIndex: Int { entries.startIndex }
    /// One past the index of the last entry.
    public var endIndex: Int { entries.endIndex }

    /// The entry at `position`.
    public subscript(position: Int) -> Entry {
        get { entries[position] }
        set { entries[position] = newValue }
    }

    /// Replaces `subrange` with `newElements`.
    public mutating func replaceSubrange<C: Collection>(_ subrange: Range<Int>, with newElements: C) where C.Element == Entry {
        entries.replaceSubrange(subrange, with: newElements)
    }

    /// A view of the conversation after the leading instructions entry.
    public typealias HistoryView = ArraySlice<Entry>

    /// Every entry except a leading `.instructions` entry; assigning replaces those entries
    /// and keeps the instructions.
    public var history: HistoryView {
        get { entries[historyStart...] }
        set { entries.replaceSubrange(historyStart..., with: newValue) }
    }

    private var historyStart: Int {
        if case .instructions? = entries.first { return 1 }
        return 0
    }
}

extension Transcript {
    /// One step of a conversation. Non-frozen: switch with `@unknown default`.
    public enum Entry: Sendable, Equatable, Identifiable, CustomStringConvertible {
        /// The developer's instructions (system prompt) and the tools offered.
        case instructions(Instructions)
        /// A user prompt (text and images).
        case prompt(Prompt)
        /// Tool calls the model made.
        case toolCalls(ToolCalls)
        /// The output of one tool call.
        case toolOutput(ToolOutput)
        /// The model's response.
        case response(Response)
        /// The model's reasoning.
        case reasoning(Reasoning)

        /// The entry's id.
        public var id: String {
            switch self {
            case .instructions(let e): return e.id
            case .prompt(let e): return e.id
            case .toolCalls(let e): return e.id
            case .toolOutput(let e): return e.id
            case .response(let e): return e.id
            case .reasoning(let e): return e.id
            }
        }

        /// A one-line summary of the entry, for logs.
        public var description: String {
            switch self {
            case .instructions(let e): return "Instructions: \(TextJoining.text(of: e.segments))"
            case .prompt(let e): return "Prompt: \(TextJoining.text(of: e.segments))"
            case .toolCalls(let e): return "ToolCalls: " + e.map { "\($0.toolName)(\($0.arguments.jsonString))" }.joined(separator: ", ")
            case .toolOutput(let e): return "ToolOutput(\(e.toolName)): \(TextJoining.text(of: e.segments))"
            case .response(let e): return "Response: \(TextJoining.text(of: e.segments))"
            case .reasoning(let e): return "Reasoning: \(TextJoining.text(of: e.segments))"
            }
        }
    }

    /// A piece of entry content. Non-frozen: switch with `@unknown default`.
    public enum Segment: Sendable, Equatable, Identifiable {
        /// Text.
        case text(TextSegment)
        /// Structured (JSON) content.
        case structure(StructuredSegment)
        /// An attachment such as an image.
        case attachment(AttachmentSegment)

        /// The segment's id.
        public var id: String {
            switch self {
            case .text(let s): return s.id
            case .structure(let s): return s.id
            case .attachment(let s): return s.id
            }
        }
    }

    /// A text segment.
    public struct TextSegment: Sendable, Equatable, Identifiable, Codable {
        /// The segment's id.
        public var id: String
        /// The text.
        public var content: String

        /// Builds a text segment.
        public init(id: String = UUID().uuidString, content: String) {
            self.id = id
            self.content = content
        }
    }

    /// A structured segment: generated content with the name of its source (a type or schema).
    public struct StructuredSegment: Sendable, Equatable, Identifiable {
        /// The segment's id.
        public var id: String
        /// What produced the content (for example the generated type's name).
        public var source: String
        /// The content.
        public var content: GeneratedContent

        /// Builds a structured segment.
        public init(id: String = UUID().uuidString, source: String, content: GeneratedContent) {
            self.id = id
            self.source = source
            self.content = content
        }
    }
}
