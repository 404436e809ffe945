import LoomMetrics
import Testing

@Suite struct PrometheusTextTests {
    @Test func countersGaugesAndHistogramsRenderAsExpositionFormat004() {
        let registry = MetricsRegistry()
        registry.counter("loom_requests_total", help: "Requests.", labels: ["outcome": "ok"]).increment(by: 5)
        registry.counter("loom_requests_total", help: "Requests.", labels: ["outcome": "cancelled"])
        registry.gauge("loom_kv_bytes_free", help: "Free bytes.").set(1_048_576)
        let h = registry.histogram("loom_time_to_first_token_seconds", help: "TTFT.", buckets: [0.25, 1])
        h.observe(0.125)
        h.observe(3)
        let text = registry.snapshot().prometheusText()
        #expect(text == """
            # HELP loom_requests_total Requests.
            # TYPE loom_requests_total counter
            loom_requests_total{outcome="ok"} 5
            loom_requests_total{outcome="cancelled"} 0
            # HELP loom_kv_bytes_free Free bytes.
            # TYPE loom_kv_bytes_free gauge
            loom_kv_bytes_free 1048576
            # HELP loom_time_to_first_token_seconds TTFT.
            # TYPE loom_time_to_first_token_seconds histogram
            loom_time_to_first_token_seconds_bucket{le="0.25"} 1
            loom_time_to_first_token_seconds_bucket{le="1"} 1
            loom_time_to_first_token_seconds_bucket{le="+Inf"} 2
            loom_time_to_first_token_seconds_sum 3.125
            loom_time_to_first_token_seconds_count 2

            """)
    }

    @Test func helpAndLabelValuesAreEscaped() {
        let registry = MetricsRegistry()
        registry.gauge("g", help: "a \\ b\nc", labels: ["b": "x\"y\\z\nw", "a": "1"]).set(-2.5)
        let text = registry.snapshot().prometheusText()
        #expect(text == """
            # HELP g a \\\\ b\\nc
            # TYPE g gauge
            g{a="1",b="x\\"y\\\\z\\nw"} -2.5

            """)
    }

    @Test func specialValuesUseThePrometheusSpellings() {
        let registry = MetricsRegistry()
        registry.gauge("a", help: "a").set(.infinity)
        registry.gauge("b", help: "b").set(-.infinity)
        registry.gauge("c", help: "c").set(.nan)
        registry.gauge("d", help: "d").set(1e-7)
        let lines = registry.snapshot().prometheusText().split(separator: "\n").filter { !$0.hasPrefix("#") }
        #expect(lines == ["a +Inf", "b -Inf", "c NaN", "d 1e-07"])
    }
}
