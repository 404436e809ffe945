import LoomSupport

extension LanguageModelSession {
    /// `transcript` with its old history replaced by a model-written summary when it is longer
    /// than `summarization.tokenLimit` (see `DynamicProfile.summarizeHistory`); unchanged otherwise.
    func summarize(_ transcript: Transcript, _ summarization: HistorySummarization,
                   driver: any ModelDriver) async throws -> Transcript {
        let size = try await driver.tokenCount(for: .transcriptEntries(transcript.entries), store: executors)
        guard size > summarization.tokenLimit else { return transcript }
        let history = transcript.history
        // Cut at the start of a turn, so no tool call is kept without its output or vice versa.
        var cut = max(history.startIndex, history.endIndex - summarization.keepingLast)
        while cut > history.startIndex, cut < history.endIndex {
            if case .prompt = history[cut] { break }
            cut -= 1
        }
        guard cut > history.startIndex else { return transcript }
        let old = history[history.startIndex..<cut]

        let conversation = old.map(\.description).joined(separator: "\n")
        let request = LanguageModelExecutorGenerationRequest(
            transcript: Transcript(entries: [
                .instructions(Transcript.Instructions(segments: [.text(Transcript.TextSegment(content: summarization.instructions))],
                                                      toolDefinitions: [])),
                .prompt(Transcript.Prompt(segments: [.text(Transcript.TextSegment(content: conversation))])),
            ]),
            generationOptions: GenerationOptions(maximumResponseTokens: summarization.maximumSummaryTokens,
                                                 toolCallingMode: nil))
        let recorder = StepRecorder()
        let channel = LanguageModelExecutorGenerationChannel { event in recorder.assembler.withLock { $0.apply(event) } }
        let summarizer = summarization.model.map { makeDriver($0) } ?? driver
        try await summarizer.respond(to: request, channel: channel, store: executors)
        try Task.checkCancellation()
        let summary = recorder.assembler.withLock { $0.responseText }

        var condensed = transcript
        let summaryEntry = Transcript.Entry.response(Transcript.Response(
            segments: [.text(Transcript.TextSegment(content: "Summary of the conversation so far: " + summary))]))
        condensed.history = ArraySlice([summaryEntry] + history[cut...])
        return condensed
    }
}
