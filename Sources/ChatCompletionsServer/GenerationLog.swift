// A chat completion's figures for the access log (`loom serve --log-format json`): the outcome,
// tokens, prefix-cache hits and the time to the first visible output, noted on the request once
// the generation ends.
import HTTPServer
import LoomJSON
import LoomMetrics

struct GenerationLog: Sendable {
    let notes: HTTPRequestNotes
    let receivedAt: ContinuousClock.Instant

    /// Notes how the generation behind `cursor` ended.
    func end(_ cursor: GenerationCursor, outcome: RequestOutcome, finishReason: String? = nil) {
        let usage = cursor.assembler.usage
        notes.set("outcome", .string(outcome.rawValue))
        if let finishReason { notes.set("finish_reason", .string(finishReason)) }
        notes.set("prompt_tokens", .number(JSONNumber(usage.promptTokens)))
        notes.set("cached_tokens", .number(JSONNumber(usage.cachedTokens)))
        notes.set("completion_tokens", .number(JSONNumber(usage.completionTokens)))
        if let first = cursor.firstOutputAt {
            let (seconds, attoseconds) = (first - receivedAt).components
            notes.set("time_to_first_token_seconds", .number(JSONNumber(Double(seconds) + Double(attoseconds) * 1e-18)))
        }
    }
}
