import Engine
import Foundation
import LoomMetrics
import Provider

/// One request's measurements, taken by the task that runs it and recorded into the runtime's
/// `RequestMetrics` as they happen (the first token's latency at once, the rest when it ends).
/// Times count from the request's arrival: the call, less what a server says it already waited
/// (`RequestMetrics.waitedSecondsMetadataKey`).
final class RequestRecorder {
    private let metrics: RequestMetrics
    private let arrived: ContinuousClock.Instant
    private var lastToken: ContinuousClock.Instant?
    private var admitted = false
    private var generated = 0
    private var promptTokens: Int?
    private var cachedTokens: Int?

    init(metrics: RequestMetrics, request: LanguageModelExecutorGenerationRequest, started: ContinuousClock.Instant) {
        self.metrics = metrics
        var waited = request.metadata[RequestMetrics.waitedSecondsMetadataKey] as? Double ?? 0
        if !waited.isFinite || waited < 0 { waited = 0 }
        arrived = started - .nanoseconds(Int64(min(waited, 1e9) * 1e9))
    }

    /// The prompt is known (tokenized) and will be this many tokens.
    func prompt(_ tokens: Int) {
        promptTokens = tokens
    }

    /// The request's sequence got its place (an engine within the KV budget).
    func admit() {
        guard !admitted else { return }
        admitted = true
        metrics.queueWait.observe(ContinuousClock.now - arrived)
    }

    /// The prompt is in the KV cache; `cached` of its tokens were reused rather than evaluated.
    func prefilled(cached: Int) {
        cachedTokens = cached
    }

    /// `count` more tokens were generated (a forced run of the grammar arrives as one batch; each
    /// of its tokens is counted at the batch's average gap).
    func tokens(_ count: Int) {
        guard count > 0 else { return }
        let now = ContinuousClock.now
        if let last = lastToken {
            metrics.interTokenLatency.observe((now - last).seconds / Double(count), count: UInt64(count))
        } else {
            metrics.timeToFirstToken.observe(now - arrived)
            if count > 1 { metrics.interTokenLatency.observe(0, count: UInt64(count - 1)) }
        }
        lastToken = now
        generated += count
    }

    /// The generation's speculation totals.
    func speculation(proposed: Int, accepted: Int) {
        metrics.speculativeTokensProposed.increment(by: UInt64(max(0, proposed)))
        metrics.speculativeTokensAccepted.increment(by: UInt64(max(0, accepted)))
    }

    /// The request ended with `outcome`; records its duration, outcome and token counts.
    func finish(_ outcome: RequestOutcome) {
        metrics.duration.observe(ContinuousClock.now - arrived)
        metrics.count(outcome)
        // Token counts per request describe requests that ran; one refused before any compute
        // (too long, an unenforceable schema) has none.
        if admitted, let promptTokens {
            metrics.promptTokens.observe(Double(promptTokens))
            metrics.completionTokens.observe(Double(generated))
            if let cachedTokens {
                metrics.promptTokensCached.increment(by: UInt64(max(0, cachedTokens)))
                metrics.promptTokensEvaluated.increment(by: UInt64(max(0, promptTokens - cachedTokens)))
            }
        }
        metrics.completionTokensTotal.increment(by: UInt64(generated))
    }

    /// How a request that threw `error` ended, by the error the executor reports.
    static func outcome(of error: any Error) -> RequestOutcome {
        if error is CancellationError { return .cancelled }
        if let e = error as? LanguageModelError {
            if case .timeout = e { return .timeout }
            return .clientError
        }
        if let e = error as? LocalLanguageModelError {
            switch e {
            case .schemaCannotFitBudget, .schemaAdmitsNoValue, .invalidGenerationOptions: return .clientError
            case .modelLoadFailed, .chatTemplateFailed, .invalidConfiguration, .malformedToolCall, .kvCacheBudgetTooSmall,
                 .internalFailure:
                return .serverError
            }
        }
        if error is GenerationSchema.SchemaError { return .clientError }
        return .serverError
    }
}
