import Foundation

/// Turns generated text into channel events: response text and reasoning (split at the model's
/// markers) as they are produced, metadata with the first content event, and the authoritative
/// cumulative usage and final metadata at the end.
final class EventTranslation {
    typealias Channel = LanguageModelExecutorGenerationChannel
    private let channel: Channel
    let responseID = UUID().uuidString
    let reasoningID = UUID().uuidString
    private var splitter: ReasoningSplitter?
    private let baseMetadata: Channel.Metadata
    private var responseOpened = false
    private var reasoningOpened = false
    private var pendingTokens = 0
    private(set) var reasoningTokens = 0
    private var trimLeadingResponseSpace: Bool

    /// - Parameters:
    ///   - reasoningMarkers: the model's reasoning delimiters (nil: all output is response text).
    ///   - trimLeadingSpace: drop whitespace before the first response text (plain-format
    ///     prompts end with `assistant:` and models continue with a space).
    init(channel: Channel, metadata: Channel.Metadata, reasoningMarkers: (open: String, close: String)?,
         startsInReasoning: Bool, trimLeadingSpace: Bool) {
        self.channel = channel
        baseMetadata = metadata
        splitter = reasoningMarkers.map { ReasoningSplitter(open: $0.open, close: $0.close, startsInReasoning: startsInReasoning) }
        trimLeadingResponseSpace = trimLeadingSpace || reasoningMarkers != nil
    }

    /// Whether any response text was sent.
    var hasResponse: Bool { responseOpened }

    /// Handles new output text produced by `tokenCount` tokens.
    func text(_ text: String, tokenCount: Int) async {
        pendingTokens += tokenCount
        let pieces = splitter != nil ? splitter!.consume(text) : (text.isEmpty ? [] : [.text(text)])
        for piece in pieces { await send(piece) }
    }

    /// Sends what the splitter held back.
    func flush() async {
        guard splitter != nil else { return }
        for piece in splitter!.finish() { await send(piece) }
    }

    private func send(_ piece: OutputPiece) async {
        switch piece {
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
            }
            await channel.send(.response(entryID: responseID, action: .appendText(text, tokenCount: tokens)))
        case .reasoning(let text):
            let tokens = pendingTokens
            pendingTokens = 0
            reasoningTokens += tokens
            if !reasoningOpened {
                reasoningOpened = true
                await channel.send(.reasoning(entryID: reasoningID, action: .updateMetadata(baseMetadata)))
            }
            await channel.send(.reasoning(entryID: reasoningID, action: .appendText(text, tokenCount: tokens)))
        case .toolCall:
            break
        }
    }

    /// Sends the final metadata and cumulative usage to the response entry (opening it when the
    /// model produced no text), and usage to the reasoning entry when there was one.
    func finish(_ summary: GenerationSummary, extra: Channel.Metadata) async {
        await flush()
        var metadata = baseMetadata
        for (k, v) in extra { metadata[k] = v }
        let input = Channel.Usage.Input(totalTokenCount: summary.promptTokens, cachedTokenCount: summary.cachedTokens)
        let output = Channel.Usage.Output(totalTokenCount: summary.outputTokens, reasoningTokenCount: reasoningTokens)
        if reasoningOpened {
            await channel.send(.reasoning(entryID: reasoningID, action: .updateUsage(input: input, output: output)))
        }
        responseOpened = true
        await channel.send(.response(entryID: responseID, action: .updateMetadata(metadata)))
        await channel.send(.response(entryID: responseID, action: .updateUsage(input: input, output: output)))
    }
}
