// Streamed `chat.completion.chunk` payloads → channel events, one step at a time.
//
// Content → `.response` appendText, `reasoning_content` → `.reasoning`, tool calls → `.toolCalls`
// (assembled by index in ChatCompletionDeltaAccumulator; a call is opened once its name and id
// are known, then each new argument fragment is forwarded). Token counts per delta are
// credited as 1 (servers send about one token per chunk); the usage the server reports at the
// end replaces those credits wholesale. A `content_filter` finish reason is a guardrail
// violation, not an empty answer; `logprobs.content` entries are announced in a metadata update
// before the text they belong to and listed whole in the final metadata (`TokenLogProbability`); a `refusal` field is the model declining, thrown as
// `LanguageModelError.refusal` with the server's text as the explanation.
import Foundation
import LoomJSON
import Provider

/// Translates one streamed Chat Completion into generation-channel events.
public struct ChatCompletionsEventTranslator: Sendable {
    /// The channel event type.
    public typealias Event = LanguageModelExecutorGenerationChannel.Event

    /// The response entry's id.
    public let responseEntryID: String
    /// The reasoning entry's id.
    public let reasoningEntryID: String
    /// The tool-calls entry's id.
    public let toolCallsEntryID: String

    private var accumulator = ChatCompletionDeltaAccumulator()
    private var opened: [Int: (id: String, sentBytes: Int)] = [:]
    private var sentResponse = false
    private var sentReasoning = false
    private let mapping: ChatCompletionsErrorMapping

    /// A translator with fresh entry ids; `mapping` turns in-stream errors into typed errors.
    public init(mapping: ChatCompletionsErrorMapping = ChatCompletionsErrorMapping()) {
        responseEntryID = UUID().uuidString
        reasoningEntryID = UUID().uuidString
        toolCallsEntryID = UUID().uuidString
        self.mapping = mapping
    }

    /// The assembled state so far (content, tool calls, usage, finish reason).
    public var state: ChatCompletionDeltaAccumulator { accumulator }

    /// How many payloads were consumed (a stream with none is not a completion).
    public private(set) var chunkCount = 0

    /// The events for one SSE `data` payload (not `[DONE]`).
    public mutating func consume(data: String) throws -> [Event] {
        chunkCount += 1
        let deltas: [ChatCompletionDeltaAccumulator.Delta]
        do {
            deltas = try accumulator.apply(data: data)
        } catch {
            switch error {
            case .serverError(let envelope): throw mapping.error(streamed: envelope)
            case .malformedChunk(let why): throw ChatCompletionsError.malformedResponse(why)
            }
        }
        var events: [Event] = []
        for delta in deltas {
            switch delta {
            case .content(let text):
                sentResponse = true
                let entries = accumulator.chunkLogProbabilities
                if !entries.isEmpty {
                    // As a local model does: the delta's tokens' entries just before it.
                    events.append(.response(entryID: responseEntryID, action: .updateMetadata([
                        TokenLogProbability.metadataKey: entries,
                    ])))
                }
                events.append(.response(entryID: responseEntryID, action: .appendText(text, tokenCount: max(entries.count, 1))))
            case .reasoning(let text):
                sentReasoning = true
                events.append(.reasoning(entryID: reasoningEntryID, action: .appendText(text, tokenCount: 1)))
            case .toolCallStarted, .toolCallArguments:
                break  // forwarded below from the assembled state
            }
        }
        events += toolCallEvents(final: false)
        return events
    }

    /// The closing events: remaining tool-call text, usage and metadata. Throws for a content
    /// filter stop or a refusal.
    public mutating func finish(serverRequestID: String? = nil) throws -> [Event] {
        if !accumulator.refusal.isEmpty {
            var metadata: [String: any Sendable] = [:]
            if let m = accumulator.model { metadata["model"] = m }
            if let reason = accumulator.finishReason { metadata["finishReason"] = reason }
            throw LanguageModelError.refusal(.init(
                explanation: accumulator.refusal,
                debugDescription: "The server answered with a refusal instead of content: \(accumulator.refusal)",
                metadata: metadata))
        }
        if accumulator.finishReason == "content_filter" {
            var metadata: [String: any Sendable] = ["finishReason": "content_filter"]
            if let m = accumulator.model { metadata["model"] = m }
            throw LanguageModelError.guardrailViolation(.init(
                debugDescription: "The server stopped the response with finish_reason \"content_filter\".", metadata: metadata))
        }
        var events = toolCallEvents(final: true)
        var metadata: LanguageModelExecutorGenerationChannel.Metadata = [:]
        if let m = accumulator.model { metadata["model"] = m }
        if let id = accumulator.responseID { metadata["responseID"] = id }
        if let id = serverRequestID { metadata["requestID"] = mapping.scrub(id) }
        if let reason = accumulator.finishReason { metadata["finishReason"] = reason }
        if !accumulator.logProbabilities.isEmpty { metadata[TokenLogProbability.metadataKey] = accumulator.logProbabilities }

        let sentCalls = !opened.isEmpty
        let usage = accumulator.usage.map(Self.usage)
        // Usage and metadata go to the entry that holds the answer: the response, or the tool
        // calls when the step only called tools.
        if sentCalls && !sentResponse {
            events.append(.toolCalls(entryID: toolCallsEntryID, action: .updateMetadata(metadata)))
            if let (input, output) = usage {
                events.append(.toolCalls(entryID: toolCallsEntryID, action: .updateUsage(input: input, output: output)))
            }
        } else {
            events.append(.response(entryID: responseEntryID, action: .updateMetadata(metadata)))
            if let (input, output) = usage {
                events.append(.response(entryID: responseEntryID, action: .updateUsage(input: input, output: output)))
            }
        }
        return events
    }

    private mutating func toolCallEvents(final: Bool) -> [Event] {
        var events: [Event] = []
        for call in accumulator.toolCalls {
            if let state = opened[call.index] {
                let bytes = call.arguments.utf8.count
                if bytes > state.sentBytes {
                    let fragment = String(decoding: call.arguments.utf8.dropFirst(state.sentBytes), as: UTF8.self)
                    events.append(.toolCalls(entryID: toolCallsEntryID, action: .toolCall(
                        id: state.id, name: call.name, action: .appendArguments(fragment, tokenCount: 1))))
                    opened[call.index]?.sentBytes = bytes
                }
                continue
            }
            // Open a call once its name and id are known (servers send both in the first
            // delta); at the end, a missing id is generated so the call can be answered.
            guard !call.name.isEmpty, call.id != nil || final else { continue }
            let id = call.id ?? "call_" + UUID().uuidString
            let bytes = call.arguments.utf8.count
            events.append(.toolCalls(entryID: toolCallsEntryID, action: .toolCall(
                id: id, name: call.name, action: .appendArguments(call.arguments, tokenCount: bytes == 0 ? 0 : 1))))
            opened[call.index] = (id, bytes)
        }
        if final {
            for call in accumulator.toolCalls where opened[call.index]?.sentBytes == 0 {
                // A call with no argument text takes no arguments: `{}` keeps it parseable.
                events.append(.toolCalls(entryID: toolCallsEntryID, action: .toolCall(
                    id: opened[call.index]!.id, name: call.name, action: .appendArguments("{}", tokenCount: 0))))
                opened[call.index]?.sentBytes = 2
            }
        }
        return events
    }

    /// Names of tool calls that never received a function name (a malformed stream).
    public var unnamedToolCalls: [Int] {
        accumulator.toolCalls.filter { $0.name.isEmpty }.map(\.index)
    }

    private static func usage(_ u: JSONObject) -> (LanguageModelExecutorGenerationChannel.Usage.Input,
                                                   LanguageModelExecutorGenerationChannel.Usage.Output) {
        let input = LanguageModelExecutorGenerationChannel.Usage.Input(
            totalTokenCount: u["prompt_tokens"]?.intValue ?? 0,
            cachedTokenCount: u["prompt_tokens_details"]?["cached_tokens"]?.intValue ?? 0)
        let output = LanguageModelExecutorGenerationChannel.Usage.Output(
            totalTokenCount: u["completion_tokens"]?.intValue ?? 0,
            reasoningTokenCount: u["completion_tokens_details"]?["reasoning_tokens"]?.intValue ?? 0)
        return (input, output)
    }
}
