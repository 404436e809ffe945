import LoomMetrics
import Testing

@Suite struct MetricsRegistryTests {
    @Test func registeringAgainReturnsTheSameInstrument() {
        let registry = MetricsRegistry()
        let a = registry.counter("x_total", help: "x", labels: ["outcome": "ok"])
        let b = registry.counter("x_total", help: "x", labels: ["outcome": "ok"])
        let other = registry.counter("x_total", help: "x", labels: ["outcome": "cancelled"])
        a.increment()
        b.increment(by: 2)
        #expect(a === b)
        #expect(a.value == 3)
        #expect(other.value == 0)
        let snapshot = registry.snapshot()
        #expect(snapshot.value("x_total", labels: ["outcome": "ok"]) == 3)
        #expect(snapshot.value("x_total", labels: ["outcome": "cancelled"]) == 0)
        #expect(snapshot.families.count == 1)
    }

    @Test func gaugeSetsAndAdds() {
        let registry = MetricsRegistry()
        let g = registry.gauge("g", help: "g")
        g.set(5)
        g.add(-1.5)
        #expect(registry.snapshot().value("g") == 3.5)
    }

    @Test func histogramBucketsAreCumulativeAndCountEqualsTheInfBucket() throws {
        let registry = MetricsRegistry()
        let h = registry.histogram("h_seconds", help: "h", buckets: [0.1, 1, 10])
        for v in [0.05, 0.1, 0.5, 2, 100] { h.observe(v) }
        h.observe(0.2, count: 3)
        let value = try #require(registry.snapshot().histogram("h_seconds"))
        // 0.1 is inside its bucket (upper bounds are inclusive).
        #expect(value.cumulativeCounts == [2, 6, 7, 8])
        #expect(value.count == 8)
        #expect(abs(value.sum - (0.05 + 0.1 + 0.5 + 2 + 100 + 0.6)) < 1e-9)
    }

    @Test func observationsFromManyThreadsAllLand() async throws {
        let registry = MetricsRegistry()
        let h = registry.histogram("h", help: "h", buckets: [1])
        let c = registry.counter("c_total", help: "c")
        await withTaskGroup(of: Void.self) { group in
            for _ in 0..<8 {
                group.addTask {
                    for i in 0..<1000 {
                        h.observe(Double(i % 2))
                        c.increment()
                    }
                }
            }
        }
        let value = try #require(registry.snapshot().histogram("h"))
        #expect(value.count == 8000)
        #expect(value.sum == 4000)
        #expect(c.value == 8000)
    }

    @Test func sourcesAreSummedAndDroppedWhenTheirOwnerIsGone() {
        final class Owner: Sendable { let value: Double; init(_ v: Double) { value = v } }
        let registry = MetricsRegistry()
        var owner: Owner? = Owner(2)
        let kept = Owner(3)
        registry.gauge("running", help: "r", source: { [weak owner] in owner?.value })
        registry.gauge("running", help: "r", source: { [weak kept] in kept?.value })
        registry.gauge("alone", help: "a", source: { [weak owner] in owner?.value })
        #expect(registry.snapshot().value("running") == 5)
        #expect(registry.snapshot().value("alone") == 2)
        owner = nil
        let after = registry.snapshot()
        #expect(after.value("running") == 3)
        // A series whose every source is gone is left out; its family stays (HELP and TYPE only).
        #expect(after.value("alone") == nil)
        #expect(after.family("alone")?.series.isEmpty == true)
        _ = owner
    }

    @Test func requestMetricsShareOneSetPerRegistry() {
        let registry = MetricsRegistry()
        let a = RequestMetrics(registry: registry)
        let b = RequestMetrics(registry: registry)
        a.count(.ok)
        b.count(.ok)
        b.count(.clientError)
        let snapshot = registry.snapshot()
        #expect(snapshot.value("loom_requests_total", labels: ["outcome": "ok"]) == 2)
        #expect(snapshot.value("loom_requests_total", labels: ["outcome": "client_error"]) == 1)
        #expect(snapshot.family("loom_requests_total")?.series.count == RequestOutcome.allCases.count)
        #expect(a.timeToFirstToken === b.timeToFirstToken)
    }

    @Test(arguments: [(200, RequestOutcome.ok), (400, .clientError), (404, .clientError), (429, .clientError),
                      (499, .cancelled), (504, .timeout), (408, .timeout), (500, .serverError), (503, .serverError)])
    func outcomeOfAnHTTPStatus(status: Int, outcome: RequestOutcome) {
        #expect(RequestOutcome(httpStatus: status) == outcome)
    }
}
