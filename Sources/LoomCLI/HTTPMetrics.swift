import HTTPServer
import LoomMetrics

/// `loom serve`'s own series, beside the model's: every response by status code, and the
/// server's concurrency gate (requests running and waiting for a slot).
struct HTTPMetrics: Sendable {
    let registry: MetricsRegistry

    /// Responses by their status code; the label is bounded by the codes the server sends.
    func record(_ record: HTTPAccessRecord) {
        let code = record.status.map(String.init) ?? "none"
        registry.counter("loom_http_requests_total", help: "HTTP requests by the status code answered ('none': no response was sent).",
                         labels: ["code": code]).increment()
    }

    /// Adds the gate's gauges, read from `server` at every scrape.
    func observe(_ server: HTTPServer) {
        registry.gauge("loom_http_requests_in_flight", help: "Generation requests holding one of the server's --parallel slots.",
                       source: { [weak server] in server.map { Double($0.inFlight) } })
        registry.gauge("loom_http_requests_queued", help: "Generation requests waiting for a slot (up to --queue; more get 429).",
                       source: { [weak server] in server.map { Double($0.queued) } })
    }
}
