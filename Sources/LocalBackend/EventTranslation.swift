import Foundation
import Provider

/// Turns generated text into channel events: response text, reasoning and tool calls (recognised
/// by the tool-call dialect's stream parser) as they are produced, and the authoritative
/// cumulative usage and final metadata at the end.
///
/// Each entry opens as session 339 prescribes: metadata, then usage carrying the prompt's token
/// count (output 0; the deltas' credits add to it), then the first delta — so an app sees what a
/// request costs before its answer streams. Only the entry the output actually produces is opened
/// that way: sending them to a response entry before knowing the step calls tools only would leave
/// an empty response entry in the transcript.
final class EventTranslation {
    typealias Channel = LanguageModelExecutorGenerationChannel
    private let channel: Channel
    let responseID = UUID().uuidString
    let reasoningID = UUID().uuidString
    let toolCallsID = UUID().uuidString
    private var parser: ToolCallStreamParser
    private var toolCallsOpened = false
    /// Names of calls announced by a streaming parser (their arguments arrive as deltas).
    private var streamedCalls: [String: String] = [:]
    private let baseMetadata: Channel.Metadata
    /// The prompt's counts as known before output: its tokens, and those the KV cache served
    /// once prefill has said.
    private var upfrontInput: Channel.Usage.Input
    private var responseOpened = false
    private var reasoningOpened = false
    private var pendingTokens = 0
    private(set) var reasoningTokens = 0
    private var trimLeadingResponseSpace: Bool
    /// Log-probabilities, when the request asked: entries of tokens not yet credited to an
    /// event (in order), and every entry of the step.
    private let reportsLogProbabilities: Bool
    private var pendingLogProbabilities: [TokenLogProbability] = []
    private var allLogProbabilities: [TokenLogProbability] = []

    /// - Parameters:
    ///   - parser: splits output into text, reasoning and calls (its dialect nil: no calls).
    ///   - trimLeadingSpace: drop whitespace before the first response text (plain-format
    ///     prompts end with `assistant:` and models continue with a space).
    init(channel: Channel, metadata: Channel.Metadata, promptTokens: Int, parser: ToolCallStreamParser,
         trimLeadingSpace: Bool, reportsLogProbabilities: Bool = false) {
        self.channel = channel
        self.reportsLogProbabilities = reportsLogProbabilities
        baseMetadata = metadata
        upfrontInput = Channel.Usage.Input(totalTokenCount: promptTokens)
        self.parser = parser
        trimLeadingResponseSpace = trimLeadingSpace || parser.reasoning != nil
    }

    /// Whether any response text was sent.
    var hasResponse: Bool { responseOpened }

    /// Records how many prompt tokens the KV cache served, for the upfront usage.
    func prefilled(cachedTokens: Int) {
        upfrontInput.cachedTokenCount = cachedTokens
    }

    /// The usage an entry opens with: the prompt's counts, nothing generated yet.
    private var upfrontUsage: (input: Channel.Usage.Input, output: Channel.Usage.Output) {
        (upfrontInput, Channel.Usage.Output())
    }

    /// Records the log-probabilities of tokens whose text follows.
    func logProbabilities(_ entries: [TokenLogProbability]) {
        pendingLogProbabilities.append(contentsOf: entries)
        allLogProbabilities.append(contentsOf: entries)
    }

    /// The pending entries of the next `tokens` credited tokens.
    private func takeLogProbabilities(_ tokens: Int) -> [TokenLogProbability] {
        let n = min(tokens, pendingLogProbabilities.count)
        defer { pendingLogProbabilities.removeFirst(n) }
        return Array(pendingLogProbabilities.prefix(n))
    }

    /// Handles new output text produced by `tokenCount` tokens.
    func text(_ text: String, tokenCount: Int) async throws {
        pendingTokens += tokenCount
        for event in try parse({ (p: inout ToolCallStreamParser) throws(ToolCallingError) in try p.consume(text) }) { await send(event) }
    }

    /// Sends what the parser held back; throws when a call was left unfinished.
    func flush() async throws {
        for event in try parse({ (p: inout ToolCallStreamParser) throws(ToolCallingError) in try p.finish() }) { await send(event) }
    }

    private func parse(_ body: (inout ToolCallStreamParser) throws(ToolCallingError) -> [ToolCallStreamEvent]) throws -> [ToolCallStreamEvent] {
        do { return try body(&parser) } catch {
            throw LocalLanguageModelError.malformedToolCall(error.description)
        }
    }

    private func send(_ event: ToolCallStreamEvent) async {
        switch event {
        case .text(var text):
            if trimLeadingResponseSpace && !responseOpened {
                text = String(text.drop(while: { $0 == " " || $0 == "\n" }))
                if text.isEmpty { return }
            }
            let tokens = pendingTokens
            pendingTokens = 0
            if !responseOpened {
                responseOpened = true
                await channel.send(.response(entryID: responseID, action: .updateMetadata(baseMetadata)))
                let (input, output) = upfrontUsage
                await channel.send(.response(entryID: responseID, action: .updateUsage(input: input, output: output)))
            }
            if reportsLogProbabilities {
                // The entries of exactly the tokens this delta credits, just before it.
                var metadata = baseMetadata
                metadata[TokenLogProbability.metadataKey] = takeLogProbabilities(tokens)
                await channel.send(.response(entryID: responseID, action: .updateMetadata(metadata)))
            }
            await channel.send(.response(entryID: responseID, action: .appendText(text, tokenCount: tokens)))
        case .reasoning(let text):
            let tokens = pendingTokens
            pendingTokens = 0
            reasoningTokens += tokens
            if reportsLogProbabilities { _ = takeLogProbabilities(tokens) }
            if !reasoningOpened {
                reasoningOpened = true
                await channel.send(.reasoning(entryID: reasoningID, action: .updateMetadata(baseMetadata)))
                let (input, output) = upfrontUsage
                await channel.send(.reasoning(entryID: reasoningID, action: .updateUsage(input: input, output: output)))
            }
            await channel.send(.reasoning(entryID: reasoningID, action: .appendText(text, tokenCount: tokens)))
        case .toolCallStarted(let id, let name):
            streamedCalls[id] = name
        case .toolCallArguments(let id, let delta):
            await sendArguments(id: id, name: streamedCalls[id] ?? "", delta)
        case .toolCall(let call):
            // A streamed call's arguments were already sent as deltas.
            if streamedCalls[call.id] != nil { return }
            await sendArguments(id: call.id, name: call.toolName, call.arguments.jsonString)
        }
    }

    private func sendArguments(id: String, name: String, _ text: String) async {
        let tokens = pendingTokens
        pendingTokens = 0
        if reportsLogProbabilities { _ = takeLogProbabilities(tokens) }
        if !toolCallsOpened {
            toolCallsOpened = true
            await channel.send(.toolCalls(entryID: toolCallsID, action: .updateMetadata(baseMetadata)))
            let (input, output) = upfrontUsage
            await channel.send(.toolCalls(entryID: toolCallsID, action: .updateUsage(input: input, output: output)))
        }
        await channel.send(.toolCalls(entryID: toolCallsID, action: .toolCall(
            id: id, name: name, action: .appendArguments(text, tokenCount: tokens))))
    }

    /// Sends the final metadata and cumulative usage to the response entry (opening it when the
    /// model produced neither text nor calls), and usage to the reasoning and tool-calls entries
    /// when there were some.
    func finish(_ summary: GenerationSummary, extra: Channel.Metadata) async throws {
        try await flush()
        var metadata = baseMetadata
        for (k, v) in extra { metadata[k] = v }
        if reportsLogProbabilities { metadata[TokenLogProbability.metadataKey] = allLogProbabilities }
        let input = Channel.Usage.Input(totalTokenCount: summary.promptTokens, cachedTokenCount: summary.cachedTokens)
        let output = Channel.Usage.Output(totalTokenCount: summary.outputTokens, reasoningTokenCount: reasoningTokens)
        if reasoningOpened {
            await channel.send(.reasoning(entryID: reasoningID, action: .updateUsage(input: input, output: output)))
        }
        if toolCallsOpened {
            await channel.send(.toolCalls(entryID: toolCallsID, action: .updateMetadata(metadata)))
            await channel.send(.toolCalls(entryID: toolCallsID, action: .updateUsage(input: input, output: output)))
            if !responseOpened { return }
        }
        responseOpened = true
        await channel.send(.response(entryID: responseID, action: .updateMetadata(metadata)))
        await channel.send(.response(entryID: responseID, action: .updateUsage(input: input, output: output)))
    }
}
