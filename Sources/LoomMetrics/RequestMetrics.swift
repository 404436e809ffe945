/// The per-request series every layer that serves generation records into, by their fixed
/// names. A model's runtime records the requests it runs; a server in front of it records the
/// requests it refuses before they reach the model, so each request is counted once.
///
/// Built from a registry, which hands out the same instruments to every layer that asks.
public struct RequestMetrics: Sendable {
    /// `loom_requests_total{outcome}`, one counter per `RequestOutcome`.
    public let requests: [RequestOutcome: Counter]
    /// `loom_time_to_first_token_seconds`: arrival to the first generated token, streamed or not.
    public let timeToFirstToken: Histogram
    /// `loom_inter_token_latency_seconds`: the gap before each later token.
    public let interTokenLatency: Histogram
    /// `loom_request_duration_seconds`: arrival to the end of generation, whatever the outcome.
    public let duration: Histogram
    /// `loom_queue_wait_seconds`: arrival to the request's sequence getting its place.
    public let queueWait: Histogram
    /// `loom_request_prompt_tokens`: prompt tokens per request.
    public let promptTokens: Histogram
    /// `loom_request_completion_tokens`: generated tokens per request.
    public let completionTokens: Histogram
    /// `loom_prompt_tokens_evaluated_total`: prompt tokens run through the model.
    public let promptTokensEvaluated: Counter
    /// `loom_prompt_tokens_cached_total`: prompt tokens whose keys and values came from the cache.
    public let promptTokensCached: Counter
    /// `loom_speculative_tokens_proposed_total`: tokens prompt-lookup speculation proposed.
    public let speculativeTokensProposed: Counter
    /// `loom_speculative_tokens_accepted_total`: proposed tokens the model's own choices confirmed.
    public let speculativeTokensAccepted: Counter
    /// `loom_completion_tokens_total`: tokens generated.
    public let completionTokensTotal: Counter

    /// The key under which a server puts, in an executor request's metadata, the seconds (a
    /// `Double`) the request already waited before reaching the model (its own queue), so the
    /// model's latencies are measured from the request's arrival.
    public static let waitedSecondsMetadataKey = "loom.waitedSeconds"

    /// Buckets for latencies of a whole request or its first token, 10 ms to 10 min.
    public static let requestLatencyBuckets: [Double] = [0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 120, 300, 600]
    /// Buckets for the gap between tokens, 1 ms to 2.5 s.
    public static let tokenLatencyBuckets: [Double] = [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5]
    /// Buckets for token counts per request, 1 to 32768 (powers of two from 16).
    public static let tokenCountBuckets: [Double] = [1, 4, 16, 32, 64, 128, 256, 512, 1024, 2048, 4096, 8192, 16384, 32768]

    /// The instruments in `registry` (registered there on first use).
    public init(registry: MetricsRegistry) {
        var requests: [RequestOutcome: Counter] = [:]
        for outcome in RequestOutcome.allCases {
            requests[outcome] = registry.counter(
                "loom_requests_total", help: "Generation requests by how they ended.", labels: ["outcome": outcome.rawValue])
        }
        self.requests = requests
        timeToFirstToken = registry.histogram(
            "loom_time_to_first_token_seconds", help: "Seconds from a request's arrival to its first generated token.",
            buckets: Self.requestLatencyBuckets)
        interTokenLatency = registry.histogram(
            "loom_inter_token_latency_seconds", help: "Seconds between consecutive generated tokens of a request.",
            buckets: Self.tokenLatencyBuckets)
        duration = registry.histogram(
            "loom_request_duration_seconds", help: "Seconds from a request's arrival to the end of its generation, any outcome.",
            buckets: Self.requestLatencyBuckets)
        queueWait = registry.histogram(
            "loom_queue_wait_seconds", help: "Seconds a request waited before its sequence got a place in the scheduler.",
            buckets: Self.requestLatencyBuckets)
        promptTokens = registry.histogram(
            "loom_request_prompt_tokens", help: "Prompt tokens per request.", buckets: Self.tokenCountBuckets)
        completionTokens = registry.histogram(
            "loom_request_completion_tokens", help: "Generated tokens per request.", buckets: Self.tokenCountBuckets)
        promptTokensEvaluated = registry.counter(
            "loom_prompt_tokens_evaluated_total", help: "Prompt tokens run through the model.")
        promptTokensCached = registry.counter(
            "loom_prompt_tokens_cached_total", help: "Prompt tokens served from the KV prefix cache instead of evaluated.")
        completionTokensTotal = registry.counter("loom_completion_tokens_total", help: "Tokens generated.")
        speculativeTokensProposed = registry.counter(
            "loom_speculative_tokens_proposed_total", help: "Tokens proposed by prompt-lookup speculation and verified.")
        speculativeTokensAccepted = registry.counter(
            "loom_speculative_tokens_accepted_total", help: "Proposed tokens the model's own choices confirmed.")
    }

    /// Counts one request that ended with `outcome`.
    public func count(_ outcome: RequestOutcome) {
        requests[outcome]?.increment()
    }
}
