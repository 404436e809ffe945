/// A rewrite of a transcript's history (every entry after the instructions) that a profile
/// applies before each request.
struct HistoryTransform: Sendable {
    let rewrite: @Sendable (Transcript.HistoryView) throws -> Transcript.HistoryView
}

extension DynamicProfile {
    /// Rewrites the transcript's history before every request while this profile is active —
    /// typically to drop old turns so a long conversation stays within the context size:
    ///
    /// ```swift
    /// Profile { "You are a helpful assistant." }
    ///     .historyTransform { history in history.suffix(8) }
    /// ```
    ///
    /// `transform` receives the entries after the instructions (`Transcript.history`) and
    /// returns the entries to keep in their place; the instructions are never passed to it and
    /// always stay. The rewrite is part of the request's turn: it becomes the session's transcript
    /// when the turn succeeds and is reverted with the rest of the turn when it fails (under
    /// `.revertTranscript`). Local models reuse the KV cache up to the first entry the rewrite
    /// changed and evaluate only what follows. A transform that throws fails the request before
    /// the model is called. Several transforms apply outermost first.
    public func historyTransform(
        _ transform: @escaping @Sendable (Transcript.HistoryView) throws -> Transcript.HistoryView
    ) -> some DynamicProfile {
        ModifiedProfile(content: self) { $0.historyTransforms.append(HistoryTransform(rewrite: transform)) }
    }
}

/// When and how a profile's `summarizeHistory` condenses the history.
struct HistorySummarization: Sendable {
    let tokenLimit: Int
    let keepingLast: Int
    let model: (any LanguageModel)?
    let instructions: String
    let maximumSummaryTokens: Int?
}

extension DynamicProfile {
    /// Condenses old history into a summary, written by a model call, whenever the transcript
    /// grows past `tokenLimit` tokens — so a conversation can run on past the context size:
    ///
    /// ```swift
    /// Profile { "You are a helpful assistant." }
    ///     .model(model)
    ///     .summarizeHistory(whenTokenCountExceeds: model.contextSize * 3 / 4)
    /// ```
    ///
    /// Before each request the session counts the transcript with the active model
    /// (`tokenCount(for:)`). Past `tokenLimit`, the history entries before the last
    /// `keepingLast` (moved back to the start of a turn, so a tool call keeps its output) are
    /// sent to `model` (the active model when nil) under `instructions`, and replaced by one
    /// response entry holding the summary; the instructions and the kept turns stay as they were.
    /// The rewrite commits or reverts with the request's turn, like `historyTransform`, and a
    /// summary call that fails fails the request. Applied after any `historyTransform`.
    ///
    /// - Parameters:
    ///   - tokenLimit: the transcript size, in the active model's tokens, above which to summarise.
    ///   - keepingLast: how many of the newest history entries stay verbatim (default 2: the last
    ///     prompt and its answer).
    ///   - model: the model that writes the summary; nil uses the active model.
    ///   - instructions: what the summarising call is told.
    ///   - maximumSummaryTokens: a cap on the summary's length; nil leaves it to the model.
    public func summarizeHistory(
        whenTokenCountExceeds tokenLimit: Int,
        keepingLast: Int = 2,
        using model: (any LanguageModel)? = nil,
        instructions: String = "Summarize the conversation below in a few sentences. Keep names, numbers, decisions and open questions.",
        maximumSummaryTokens: Int? = nil
    ) -> some DynamicProfile {
        let summarization = HistorySummarization(tokenLimit: tokenLimit, keepingLast: max(0, keepingLast), model: model,
                                                 instructions: instructions, maximumSummaryTokens: maximumSummaryTokens)
        return ModifiedProfile(content: self) { $0.summarization = summarization }
    }
}
