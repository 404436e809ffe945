// Executor channel events → what a Chat Completion says: the content, reasoning and tool calls
// so far, the deltas to stream since the previous event, the usage and the finish reason.
//
// Text follows the channel's rules (segments by id, `appendText` vs `replaceTextSegment`, one
// entry per `entryID`); the visible content is all response text in entry order. A stream can
// only append, so when an executor revises text or retracts a tool call that was already sent,
// `revisedStreamedOutput` is set and the streaming writer reports an error instead of sending
// a stream whose concatenation would be wrong. Tool calls get indices in the order they open
// (the protocol routes argument fragments by index). Usage: the executor's cumulative report
// wins; without one, the per-delta token credits are the count.
import Foundation
import LoomJSON
import Provider

/// Accumulates one generation's events into a Chat Completion.
public struct ChatCompletionAssembler: Sendable {
    /// The event type consumed.
    public typealias Event = LanguageModelExecutorGenerationChannel.Event

    /// A change to stream, in protocol terms.
    public enum Delta: Sendable, Equatable {
        /// More assistant text.
        case content(String)
        /// More reasoning text (`reasoning_content`).
        case reasoning(String)
        /// A tool call opened: its index, id, function name and first argument text.
        case toolCallStarted(index: Int, id: String, name: String, arguments: String)
        /// More argument text for the call at `index`.
        case toolCallArguments(index: Int, String)
    }

    /// One tool call as assembled so far.
    public struct ToolCall: Sendable, Equatable {
        /// The call id.
        public var id: String
        /// The function name.
        public var name: String
        /// The argument JSON text as generated.
        public var arguments: String
    }

    /// Text entries keep segment order and ids, so `segmentID` targets work as in transcripts.
    private struct TextEntry: Sendable {
        var segments: [(id: String, text: String)] = []
        var text: String { segments.map(\.text).joined() }

        mutating func append(_ text: String, segmentID: String?) {
            if let segmentID {
                if let i = segments.firstIndex(where: { $0.id == segmentID }) { segments[i].text += text } else { segments.append((segmentID, text)) }
            } else if segments.isEmpty {
                segments.append((UUID().uuidString, text))
            } else {
                segments[segments.count - 1].text += text
            }
        }

        mutating func replace(_ text: String, segmentID: String?) {
            if let segmentID, let i = segments.firstIndex(where: { $0.id == segmentID }) {
                segments[i].text = text
            } else if segmentID == nil, !segments.isEmpty {
                segments[segments.count - 1].text = text
            } else {
                segments.append((segmentID ?? UUID().uuidString, text))
            }
        }
    }

    private var responses: [(id: String, entry: TextEntry)] = []
    private var reasonings: [(id: String, entry: TextEntry)] = []
    private var lastReasoningID: String?
    private var lastWasReasoning = false
    /// Calls by id, in opening order.
    private var calls: [ToolCall] = []
    private var streamedContent = ""
    private var streamedReasoning = ""
    /// Argument bytes already streamed, per call id.
    private var streamedArguments: [String: Int] = [:]

    private var reportedInput: LanguageModelExecutorGenerationChannel.Usage.Input?
    private var reportedOutput: LanguageModelExecutorGenerationChannel.Usage.Output?
    private var creditedOutput = 0
    private var creditedReasoning = 0
    private var reportedFinishReason: String?
    /// Log-probabilities the executor announced for the next response text delta.
    private var announcedLogProbabilities: [TokenLogProbability] = []
    /// Entries of `contentLogProbabilities` already handed to the stream.
    private var streamedLogProbabilities = 0

    /// Log-probabilities of the response text's tokens, in order (requests that asked): the
    /// entries an executor sends in the metadata update before each text delta (see
    /// `TokenLogProbability`).
    public private(set) var contentLogProbabilities: [TokenLogProbability] = []

    /// True once the executor changed output that had already been streamed.
    public private(set) var revisedStreamedOutput = false
    /// True once the executor sent an attachment, which Chat Completions cannot carry.
    public private(set) var producedAttachment = false

    /// An empty assembler.
    public init() {}

    /// The assistant text so far.
    public var content: String { responses.map(\.entry.text).joined() }
    /// The reasoning text so far.
    public var reasoning: String { reasonings.map(\.entry.text).joined() }
    /// The tool calls so far, in index order.
    public var toolCalls: [ToolCall] { calls }

    /// Applies one event and returns what to stream for it.
    public mutating func apply(_ event: Event) -> [Delta] {
        switch event.kind.storage {
        case .response(let e):
            lastWasReasoning = false
            applyResponse(e)
        case .reasoning(let e):
            let id = e.entryID ?? (lastWasReasoning ? lastReasoningID : nil) ?? UUID().uuidString
            lastWasReasoning = true
            lastReasoningID = id
            applyReasoning(id, e.action)
        case .toolCalls(let e):
            lastWasReasoning = false
            applyToolCalls(e.action)
        }
        return pendingDeltas()
    }

    private mutating func applyResponse(_ e: Event.Response) {
        var entry = responses.first(where: { $0.id == e.entryID })?.entry ?? TextEntry()
        switch e.action {
        case .appendText(let text, let segmentID, let tokens):
            entry.append(text, segmentID: segmentID)
            creditedOutput += tokens
            takeAnnouncedLogProbabilities()
        case .replaceTextSegment(let text, let segmentID, let tokens):
            entry.replace(text, segmentID: segmentID)
            creditedOutput += tokens
            takeAnnouncedLogProbabilities()
        case .addAttachmentSegment:
            producedAttachment = true
        case .removeAttachmentSegment:
            break
        case .updateMetadata(let metadata):
            noteFinishReason(metadata)
            // Each update replaces the announcement: the last one before a delta is its tokens'.
            announcedLogProbabilities = metadata[TokenLogProbability.metadataKey] as? [TokenLogProbability] ?? []
        case .updateUsage(let input, let output, _):
            report(input, output)
        }
        store(&responses, e.entryID, entry)
    }

    private mutating func applyReasoning(_ id: String, _ action: Event.Reasoning.Action) {
        var entry = reasonings.first(where: { $0.id == id })?.entry ?? TextEntry()
        switch action {
        case .appendText(let text, let segmentID, let tokens):
            entry.append(text, segmentID: segmentID)
            creditedOutput += tokens
            creditedReasoning += tokens
        case .replaceTextSegment(let text, let segmentID, let tokens):
            entry.replace(text, segmentID: segmentID)
            creditedOutput += tokens
            creditedReasoning += tokens
        case .updateSignature(_, let tokens):
            creditedOutput += tokens
            creditedReasoning += tokens
        case .updateMetadata(let metadata):
            noteFinishReason(metadata)
        case .updateUsage(let input, let output, _):
            report(input, output)
        }
        store(&reasonings, id, entry)
    }

    private mutating func applyToolCalls(_ action: Event.ToolCalls.Action) {
        switch action {
        case .toolCall(let id, let name, let inner):
            if !calls.contains(where: { $0.id == id }) { calls.append(ToolCall(id: id, name: name, arguments: "")) }
            let i = calls.firstIndex { $0.id == id }!
            if !name.isEmpty, calls[i].name != name {
                if streamedArguments[id] != nil { revisedStreamedOutput = true }
                calls[i].name = name
            }
            switch inner {
            case .appendArguments(let text, let tokens):
                calls[i].arguments += text
                creditedOutput += tokens
            case .updateMetadata:
                break
            }
        case .removeToolCall(let call):
            if streamedArguments[call.id] != nil { revisedStreamedOutput = true }
            calls.removeAll { $0.id == call.id }
        case .updateMetadata(let metadata):
            noteFinishReason(metadata)
        case .updateUsage(let input, let output, _):
            report(input, output)
        }
    }

    private mutating func takeAnnouncedLogProbabilities() {
        contentLogProbabilities += announcedLogProbabilities
        announcedLogProbabilities = []
    }

    /// The entries of `contentLogProbabilities` not returned by an earlier call (for the chunk
    /// carrying the content they belong to).
    public mutating func takeUnstreamedLogProbabilities() -> [TokenLogProbability] {
        defer { streamedLogProbabilities = contentLogProbabilities.count }
        return Array(contentLogProbabilities[streamedLogProbabilities...])
    }

    private func store(_ list: inout [(id: String, entry: TextEntry)], _ id: String, _ entry: TextEntry) {
        if let i = list.firstIndex(where: { $0.id == id }) { list[i].entry = entry } else { list.append((id, entry)) }
    }

    private mutating func report(_ input: LanguageModelExecutorGenerationChannel.Usage.Input,
                                 _ output: LanguageModelExecutorGenerationChannel.Usage.Output) {
        // Entry-scoped reports are cumulative totals; a report without prompt counts does not
        // erase an earlier one that had them.
        if input != .init() || reportedInput == nil { reportedInput = input }
        var merged = reportedOutput ?? output
        merged.totalTokenCount = max(merged.totalTokenCount, output.totalTokenCount)
        merged.reasoningTokenCount = max(merged.reasoningTokenCount, output.reasoningTokenCount)
        reportedOutput = merged
    }

    /// Executors may state why they stopped in entry metadata: OpenAI's words under
    /// `finishReason`/`finish_reason`, or LocalLanguageModel's `stopReason`
    /// (`maximumTokens` is a length stop; end of generation, a stop sequence or a completed
    /// grammar are natural stops).
    private mutating func noteFinishReason(_ metadata: LanguageModelExecutorGenerationChannel.Metadata) {
        for key in ["finishReason", "finish_reason", "stopReason"] {
            guard let value = metadata[key] as? String else { continue }
            switch value {
            case "stop", "length", "content_filter": reportedFinishReason = value
            case "maximumTokens": reportedFinishReason = "length"
            case "endOfGeneration", "stopSequence", "grammarComplete": reportedFinishReason = "stop"
            default: break
            }
        }
    }

    /// Everything not yet streamed, marking it as streamed.
    private mutating func pendingDeltas() -> [Delta] {
        var out: [Delta] = []
        if let more = Self.growth(of: &streamedReasoning, to: reasoning, revised: &revisedStreamedOutput) {
            out.append(.reasoning(more))
        }
        if let more = Self.growth(of: &streamedContent, to: content, revised: &revisedStreamedOutput) {
            out.append(.content(more))
        }
        for (index, call) in calls.enumerated() {
            let bytes = Array(call.arguments.utf8)
            if let sent = streamedArguments[call.id] {
                if bytes.count > sent {
                    out.append(.toolCallArguments(index: index, String(decoding: bytes[sent...], as: UTF8.self)))
                    streamedArguments[call.id] = bytes.count
                }
            } else if !call.name.isEmpty {
                // A call opens once its name is known: clients need the name in the first delta.
                out.append(.toolCallStarted(index: index, id: call.id, name: call.name, arguments: call.arguments))
                streamedArguments[call.id] = bytes.count
            }
        }
        return out
    }

    /// The text `now` adds to `sent` (compared as UTF-8, so a combining mark arriving after its
    /// base letter is still an extension), or nil; flags `revised` when `now` does not extend it.
    private static func growth(of sent: inout String, to now: String, revised: inout Bool) -> String? {
        let sentCount = sent.utf8.count
        guard now.utf8.starts(with: sent.utf8) else {
            revised = true
            return nil
        }
        guard now.utf8.count > sentCount else { return nil }
        let more = String(decoding: Array(now.utf8)[sentCount...], as: UTF8.self)
        sent = now
        return more
    }

    // MARK: Outcome

    /// The token counts for the `usage` object.
    public struct Usage: Sendable, Equatable {
        /// Prompt tokens (the whole rendered conversation).
        public var promptTokens: Int
        /// Of those, tokens served from a prefix cache.
        public var cachedTokens: Int
        /// Generated tokens, reasoning included.
        public var completionTokens: Int
        /// Of those, reasoning tokens.
        public var reasoningTokens: Int

        /// Builds counts.
        public init(promptTokens: Int, cachedTokens: Int, completionTokens: Int, reasoningTokens: Int) {
            self.promptTokens = promptTokens
            self.cachedTokens = cachedTokens
            self.completionTokens = completionTokens
            self.reasoningTokens = reasoningTokens
        }
    }

    /// The usage: the executor's report, else the per-delta credits.
    public var usage: Usage {
        Usage(promptTokens: reportedInput?.totalTokenCount ?? 0,
              cachedTokens: reportedInput?.cachedTokenCount ?? 0,
              completionTokens: max(reportedOutput?.totalTokenCount ?? 0, creditedOutput),
              reasoningTokens: max(reportedOutput?.reasoningTokenCount ?? 0, creditedReasoning))
    }

    /// `tool_calls` when the model called tools; else the executor's stated reason; else
    /// `length` when the output reached `maximumResponseTokens` (an inference for executors that
    /// do not say); else `stop`.
    public func finishReason(maximumResponseTokens: Int?) -> String {
        if !calls.isEmpty { return "tool_calls" }
        if let reportedFinishReason { return reportedFinishReason }
        if let limit = maximumResponseTokens, usage.completionTokens >= limit { return "length" }
        return "stop"
    }
}
