// Transcript → chat messages: the one rule every backend uses to turn a transcript into the
// role-based turns chat models are trained on. Backends then write these messages in their own
// form (OpenAI wire JSON, a chat template's message dicts with a tool-call dialect on top).
//
// The rules, and why:
// - instructions → system, prompt → user, response → assistant, tool output → tool.
// - One model step is one assistant message. A step's entries arrive as they were generated
//   (reasoning, text, calls), so tool calls join the assistant message just before them when it
//   has no calls yet, and text joins the message just before it when that message holds calls
//   but no text. Splitting them would show the model a turn it never wrote, and for a local
//   model the re-rendered history would no longer match the tokens it generated.
// - Reasoning belongs to the assistant message that follows it. Reasoning no response or call
//   follows (an interrupted step) stays in its own turn as an assistant message without content;
//   it is never carried past a prompt or tool output into a later turn it did not precede.
// - A segment list's text is its text and structured segments (compact JSON) joined by newlines,
//   the session's rule for joining prompt parts.
// - Attachments are never dropped silently: a backend states where it can carry them, and every
//   entry holding one elsewhere is reported in one `unsupportedTranscriptContent` error.

extension Transcript {
    /// One chat turn built from one or more transcript entries.
    public struct ChatMessage: Sendable, Equatable {
        /// Who speaks.
        public enum Role: String, Sendable, Equatable {
            /// The instructions.
            case system
            /// A prompt.
            case user
            /// A model step: text, reasoning and tool calls.
            case assistant
            /// One tool output.
            case tool
        }

        /// Who speaks.
        public var role: Role
        /// Text, structured and attachment segments in order; nil for an assistant message that
        /// only reasons or only calls tools.
        public var content: [Segment]?
        /// The reasoning that preceded this assistant message's text or calls.
        public var reasoning: String?
        /// The calls an assistant message makes.
        public var toolCalls: [ToolCall]
        /// For a tool message: the id of the call it answers.
        public var toolCallID: String?
        /// For a tool message: the tool that answered.
        public var toolName: String?
        /// The transcript entries the message was built from (for errors that name them).
        public var entries: [Entry]

        /// Creates a message.
        public init(role: Role, content: [Segment]?, reasoning: String? = nil, toolCalls: [ToolCall] = [],
                    toolCallID: String? = nil, toolName: String? = nil, entries: [Entry] = []) {
            self.role = role
            self.content = content
            self.reasoning = reasoning
            self.toolCalls = toolCalls
            self.toolCallID = toolCallID
            self.toolName = toolName
            self.entries = entries
        }

        /// The content's text: text segments as written and structured ones as compact JSON,
        /// joined by newlines; attachments contribute nothing. nil when there is no content.
        public var text: String? { content.map(Self.text(of:)) }

        /// Whether the content holds an attachment.
        public var hasAttachments: Bool {
            content?.contains { if case .attachment = $0 { return true }; return false } ?? false
        }

        /// The text of `segments` by the rule of `text`.
        public static func text(of segments: [Segment]) -> String {
            TextJoining.text(of: segments)
        }
    }

    /// Where a backend can carry attachments.
    public enum ChatAttachmentPlacement: Sendable, Equatable {
        /// Nowhere: the model reads text only.
        case none
        /// In prompts (user messages) only.
        case prompts
    }

    /// The transcript as chat messages, by the rules in this file.
    ///
    /// - Parameters:
    ///   - includingReasoning: false leaves reasoning entries out altogether (for servers that
    ///     take no reasoning history); true attaches them to the assistant message they precede.
    ///   - attachments: where the backend can carry attachments.
    /// - Throws: `LanguageModelError.unsupportedTranscriptContent` naming every entry holding an
    ///   attachment where `attachments` does not allow one.
    public func chatMessages(includingReasoning: Bool = true,
                             attachments: ChatAttachmentPlacement = .none) throws -> [ChatMessage] {
        var out: [ChatMessage] = []
        var pendingReasoning: [String] = []
        var pendingReasoningEntries: [Entry] = []
        var unsupported: [Entry] = []

        func check(_ segments: [Segment], of entry: Entry, allowed: Bool) {
            guard !allowed, segments.contains(where: { if case .attachment = $0 { return true }; return false }) else { return }
            unsupported.append(entry)
        }
        func takeReasoning() -> (String?, [Entry]) {
            defer {
                pendingReasoning = []
                pendingReasoningEntries = []
            }
            return (pendingReasoning.isEmpty ? nil : pendingReasoning.joined(separator: "\n"), pendingReasoningEntries)
        }
        func flushReasoning() {
            let (reasoning, entries) = takeReasoning()
            guard let reasoning else { return }
            out.append(ChatMessage(role: .assistant, content: nil, reasoning: reasoning, entries: entries))
        }
        /// The index of the last message if it is an assistant message `entry` may join.
        func joinableAssistant(forCalls: Bool) -> Int? {
            guard pendingReasoning.isEmpty, let last = out.last, last.role == .assistant else { return nil }
            let joinable = forCalls ? last.toolCalls.isEmpty : (!last.toolCalls.isEmpty && last.content == nil)
            return joinable ? out.count - 1 : nil
        }

        for entry in entries {
            switch entry {
            case .instructions(let e):
                flushReasoning()
                check(e.segments, of: entry, allowed: false)
                out.append(ChatMessage(role: .system, content: e.segments, entries: [entry]))
            case .prompt(let e):
                flushReasoning()
                check(e.segments, of: entry, allowed: attachments == .prompts)
                out.append(ChatMessage(role: .user, content: e.segments, entries: [entry]))
            case .response(let e):
                check(e.segments, of: entry, allowed: false)
                if let i = joinableAssistant(forCalls: false) {
                    out[i].content = e.segments
                    out[i].entries.append(entry)
                } else {
                    let (reasoning, reasoningEntries) = takeReasoning()
                    out.append(ChatMessage(role: .assistant, content: e.segments, reasoning: reasoning,
                                           entries: reasoningEntries + [entry]))
                }
            case .toolCalls(let e):
                if let i = joinableAssistant(forCalls: true) {
                    out[i].toolCalls = e.calls
                    out[i].entries.append(entry)
                } else {
                    let (reasoning, reasoningEntries) = takeReasoning()
                    out.append(ChatMessage(role: .assistant, content: nil, reasoning: reasoning, toolCalls: e.calls,
                                           entries: reasoningEntries + [entry]))
                }
            case .toolOutput(let e):
                flushReasoning()
                check(e.segments, of: entry, allowed: false)
                out.append(ChatMessage(role: .tool, content: e.segments, toolCallID: e.id, toolName: e.toolName, entries: [entry]))
            case .reasoning(let e):
                guard includingReasoning else { continue }
                check(e.segments, of: entry, allowed: false)
                pendingReasoning.append(ChatMessage.text(of: e.segments))
                pendingReasoningEntries.append(entry)
            }
        }
        flushReasoning()
        if !unsupported.isEmpty {
            let holding = "\(unsupported.count) entr\(unsupported.count == 1 ? "y holds" : "ies hold") attachments"
            let why = switch attachments {
            case .none: "this model reads text only; \(holding)"
            case .prompts: "this model accepts attachments only in prompts; \(holding) elsewhere"
            }
            throw LanguageModelError.unsupportedTranscriptContent(.init(unsupportedContent: unsupported, debugDescription: why))
        }
        return out
    }
}
