import Foundation
import LoomJSON

/// Turns the channel events of one generation step into transcript entries.
///
/// Rules (seed 001's event reference; the empty-entry pitfall fixed):
/// - events group by `entryID`; an entry sits where its first event arrived, so interleaved
///   reasoning/text with stable ids yields one entry of each kind;
/// - a nil reasoning `entryID` continues the trailing reasoning entry when the previous
///   event was reasoning, and otherwise opens a fresh one;
/// - `tokenCount` credits accumulate into the entry's usage; `updateUsage` and every
///   `updateMetadata` replace wholesale;
/// - a response entry that only ever received usage/metadata does not survive a step that
///   produced tool calls (its usage/metadata move to the tool-calls entry instead), so a
///   tool-only turn never leaves an empty Response entry.
struct TranscriptAssembler {
    private enum Slot {
        case response(Transcript.Response)
        case reasoning(Transcript.Reasoning)
        case toolCalls(Transcript.ToolCalls, arguments: [String: String])
    }

    private enum EventKind { case response, reasoning, toolCalls }

    private var slots: [Slot] = []
    private var indexByID: [String: Int] = [:]
    private var lastKind: EventKind?
    private var lastReasoningID: String?

    /// Generated tokens credited by deltas in this step.
    private(set) var creditedOutputTokens = 0
    /// Reasoning tokens credited by reasoning deltas in this step.
    private(set) var creditedReasoningTokens = 0

    mutating func apply(_ event: LanguageModelExecutorGenerationChannel.Event) {
        switch event.kind.storage {
        case .response(let e):
            applyResponse(e.entryID, e.action)
            lastKind = .response
        case .reasoning(let e):
            let id: String
            if let explicit = e.entryID {
                id = explicit
            } else if lastKind == .reasoning, let trailing = lastReasoningID {
                id = trailing
            } else {
                id = UUID().uuidString
            }
            applyReasoning(id, e.action)
            lastKind = .reasoning
            lastReasoningID = id
        case .toolCalls(let e):
            applyToolCalls(e.entryID, e.action)
            lastKind = .toolCalls
        }
    }

    // MARK: Response

    private mutating func applyResponse(_ id: String, _ action: LanguageModelExecutorGenerationChannel.Event.Response.Action) {
        var entry: Transcript.Response
        if let index = indexByID[id], case .response(let existing) = slots[index] {
            entry = existing
        } else {
            entry = Transcript.Response(id: id, segments: [])
        }
        switch action {
        case .appendText(let text, let segmentID, let tokenCount):
            Self.appendText(text, segmentID: segmentID, to: &entry.segments)
            Self.credit(tokenCount, reasoning: false, to: &entry.usage)
            creditedOutputTokens += tokenCount
        case .replaceTextSegment(let text, let segmentID, let tokenCount):
            Self.replaceText(text, segmentID: segmentID, in: &entry.segments)
            Self.credit(tokenCount, reasoning: false, to: &entry.usage)
            creditedOutputTokens += tokenCount
        case .addAttachmentSegment(let segment):
            entry.segments.append(.attachment(segment))
        case .removeAttachmentSegment(let segment):
            if let i = entry.segments.firstIndex(where: { if case .attachment(let a) = $0 { return a.id == segment.id }; return false }) {
                entry.segments.remove(at: i)
            }
        case .updateMetadata(let metadata):
            entry.metadata = Self.convert(metadata)
        case .updateUsage(let input, let output, let metadata):
            entry.usage = Transcript.Usage(input: input, output: output)
            if !metadata.isEmpty { entry.metadata = metadata.mapValues(\.generatedContent) }
        }
        store(.response(entry), id: id)
    }

    // MARK: Reasoning

    private mutating func applyReasoning(_ id: String, _ action: LanguageModelExecutorGenerationChannel.Event.Reasoning.Action) {
        var entry: Transcript.Reasoning
        if let index = indexByID[id], case .reasoning(let existing) = slots[index] {
            entry = existing
        } else {
            entry = Transcript.Reasoning(id: id, segments: [])
        }
        switch action {
        case .appendText(let text, let segmentID, let tokenCount):
            Self.appendText(text, segmentID: segmentID, to: &entry.segments)
            Self.credit(tokenCount, reasoning: true, to: &entry.usage)
            creditedOutputTokens += tokenCount
            creditedReasoningTokens += tokenCount
        case .replaceTextSegment(let text, let segmentID, let tokenCount):
            Self.replaceText(text, segmentID: segmentID, in: &entry.segments)
            Self.credit(tokenCount, reasoning: true, to: &entry.usage)
            creditedOutputTokens += tokenCount
            creditedReasoningTokens += tokenCount
        case .updateSignature(let signature, let tokenCount):
            entry.signature = signature
            Self.credit(tokenCount, reasoning: true, to: &entry.usage)
            creditedOutputTokens += tokenCount
            creditedReasoningTokens += tokenCount
        case .updateMetadata(let metadata):
            entry.metadata = Self.convert(metadata)
        case .updateUsage(let input, let output, let metadata):
            entry.usage = Transcript.Usage(input: input, output: output)
            if !metadata.isEmpty { entry.metadata = metadata.mapValues(\.generatedContent) }
        }
        store(.reasoning(entry), id: id)
    }

    // MARK: Tool calls

    private mutating func applyToolCalls(_ id: String, _ action: LanguageModelExecutorGenerationChannel.Event.ToolCalls.Action) {
        var entry: Transcript.ToolCalls
        var arguments: [String: String]
        if let index = indexByID[id], case .toolCalls(let existing, let args) = slots[index] {
            entry = existing
            arguments = args
        } else {
            entry = Transcript.ToolCalls(id: id, [])
            arguments = [:]
        }
        switch action {
        case .toolCall(let callID, let name, let inner):
            let callIndex: Int
            if let i = entry.calls.firstIndex(where: { $0.id == callID }) {
                callIndex = i
            } else {
                entry.calls.append(Transcript.ToolCall(id: callID, toolName: name, arguments: GeneratedContent(jsonValue: .object(JSONObject()), isComplete: false)))
                callIndex = entry.calls.count - 1
            }
            if !name.isEmpty { entry.calls[callIndex].toolName = name }
            switch inner {
            case .appendArguments(let text, let tokenCount):
                arguments[callID, default: ""] += text
                entry.calls[callIndex].arguments = Self.arguments(from: arguments[callID] ?? "", final: false)
                Self.credit(tokenCount, reasoning: false, to: &entry.usage)
                creditedOutputTokens += tokenCount
            case .updateMetadata(let metadata):
                entry.calls[callIndex].metadata = Self.convert(metadata)
            }
        case .removeToolCall(let call):
            entry.calls.removeAll { $0.id == call.id }
            arguments[call.id] = nil
        case .updateMetadata(let metadata):
            entry.metadata = Self.convert(metadata)
        case .updateUsage(let input, let output, let metadata):
            entry.usage = Transcript.Usage(input: input, output: output)
            if !metadata.isEmpty { entry.metadata = metadata.mapValues(\.generatedContent) }
        }
        store(.toolCalls(entry, arguments: arguments), id: id)
    }

    private mutating func store(_ slot: Slot, id: String) {
        if let index = indexByID[id] {
            // An id reused across kinds keeps the first kind's slot; the new kind gets its own.
            switch (slots[index], slot) {
            case (.response, .response), (.reasoning, .reasoning), (.toolCalls, .toolCalls):
                slots[index] = slot
                return
            default:
                let scoped = "\(id)#\(slots.count)"
                indexByID[scoped] = slots.count
                slots.append(slot)
                return
            }
        }
        indexByID[id] = slots.count
        slots.append(slot)
    }

    // MARK: Reading

    /// The entries as they stand (tool-call arguments parsed as far as generated).
    var entries: [Transcript.Entry] { build(final: false) }

    /// The entries at the end of the step: tool-call arguments parsed in full, empty
    /// entries dropped, and the usage/metadata of an empty response on a tool-only step
    /// carried to the tool-calls entry.
    func finalEntries() -> [Transcript.Entry] { build(final: true) }

    /// The text of the latest response entry that has text so far (the streaming answer).
    var responseText: String {
        for slot in slots.reversed() {
            if case .response(let r) = slot {
                let text = r.segments.compactMap { if case .text(let t) = $0 { return t.content }; return nil }.joined()
                if !text.isEmpty || r.segments.contains(where: { if case .text = $0 { return true }; return false }) { return text }
            }
        }
        return ""
    }

    /// True once any response text has arrived.
    var hasResponseContent: Bool {
        slots.contains { if case .response(let r) = $0 { return !r.segments.isEmpty }; return false }
    }

    private func build(final: Bool) -> [Transcript.Entry] {
        let hasToolCalls = slots.contains { if case .toolCalls(let t, _) = $0 { return !t.calls.isEmpty }; return false }
        var carriedUsage: Transcript.Usage?
        var carriedMetadata: [String: GeneratedContent] = [:]
        var out: [Transcript.Entry] = []
        for slot in slots {
            switch slot {
            case .response(let r):
                if r.segments.isEmpty && hasToolCalls {
                    carriedUsage = carriedUsage ?? r.usage
                    if carriedMetadata.isEmpty { carriedMetadata = r.metadata }
                    continue
                }
                out.append(.response(r))
            case .reasoning(let r):
                out.append(.reasoning(r))
            case .toolCalls(var t, let arguments):
                if t.calls.isEmpty && final { continue }
                for i in t.calls.indices {
                    t.calls[i].arguments = Self.arguments(from: arguments[t.calls[i].id] ?? "", final: final)
                }
                out.append(.toolCalls(t))
            }
        }
        if carriedUsage != nil || !carriedMetadata.isEmpty,
           let i = out.lastIndex(where: { if case .toolCalls = $0 { return true }; return false }),
           case .toolCalls(var t) = out[i] {
            if let carried = carriedUsage {
                // The response-scoped report is the executor's authoritative total; the entry's
                // own usage may hold only delta credits, so keep the larger output count.
                var merged = t.usage ?? carried
                if merged.input == .init() { merged.input = carried.input }
                merged.output.totalTokenCount = max(merged.output.totalTokenCount, carried.output.totalTokenCount)
                merged.output.reasoningTokenCount = max(merged.output.reasoningTokenCount, carried.output.reasoningTokenCount)
                t.usage = merged
            }
            if t.metadata.isEmpty { t.metadata = carriedMetadata }
            out[i] = .toolCalls(t)
        }
        return out
    }

    // MARK: Helpers

    private static func appendText(_ text: String, segmentID: String?, to segments: inout [Transcript.Segment]) {
        if let segmentID {
            if let i = segments.firstIndex(where: { $0.id == segmentID }), case .text(var t) = segments[i] {
                t.content += text
                segments[i] = .text(t)
            } else {
                segments.append(.text(Transcript.TextSegment(id: segmentID, content: text)))
            }
        } else if case .text(var t)? = segments.last {
            t.content += text
            segments[segments.count - 1] = .text(t)
        } else {
            segments.append(.text(Transcript.TextSegment(content: text)))
        }
    }

    private static func replaceText(_ text: String, segmentID: String?, in segments: inout [Transcript.Segment]) {
        let index: Int?
        if let segmentID {
            index = segments.firstIndex(where: { $0.id == segmentID })
        } else {
            index = segments.lastIndex(where: { if case .text = $0 { return true }; return false })
        }
        if let index, case .text(var t) = segments[index] {
            t.content = text
            segments[index] = .text(t)
        } else {
            segments.append(.text(Transcript.TextSegment(id: segmentID ?? UUID().uuidString, content: text)))
        }
    }

    private static func credit(_ tokens: Int, reasoning: Bool, to usage: inout Transcript.Usage?) {
        guard tokens != 0 else { return }
        var u = usage ?? Transcript.Usage(input: .init(), output: .init())
        u.output.totalTokenCount += tokens
        if reasoning { u.output.reasoningTokenCount += tokens }
        usage = u
    }

    static func arguments(from text: String, final: Bool) -> GeneratedContent {
        let trimmed = text.trimmingCharacters(in: .whitespacesAndNewlines)
        if trimmed.isEmpty { return GeneratedContent(jsonValue: .object(JSONObject()), isComplete: final) }
        if final, let strict = try? GeneratedContent(json: text) { return strict }
        if let partial = try? GeneratedContent(partialJSON: text) {
            return final ? GeneratedContent(jsonValue: partial.jsonValue, isComplete: partial.isComplete) : partial
        }
        // Not JSON at all: keep the raw text so the tool's argument parsing reports it.
        return GeneratedContent(jsonValue: .string(text), isComplete: final)
    }

    /// Converts executor metadata to generated content through its `Codable` form.
    static func convert(_ metadata: LanguageModelExecutorGenerationChannel.Metadata) -> [String: GeneratedContent] {
        var out: [String: GeneratedContent] = [:]
        for (key, value) in metadata {
            if let convertible = value as? any ConvertibleToGeneratedContent {
                out[key] = convertible.generatedContent
                continue
            }
            let encoder = JSONEncoder()
            if let data = try? encoder.encode(value), let json = try? JSONValue(parsing: Array(data)) {
                out[key] = GeneratedContent(jsonValue: json)
            } else {
                out[key] = GeneratedContent(jsonValue: .string(String(describing: value)))
            }
        }
        return out
    }
}
