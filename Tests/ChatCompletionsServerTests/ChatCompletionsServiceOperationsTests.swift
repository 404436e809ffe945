import ChatCompletionsServer
import Foundation
import HTTPServer
import LoomJSON
import LoomMetrics
import LoomSupport
import LoomTestSupport
import Provider
import Testing

/// What operators see of the service: `/metrics`, the requests it refuses before the model,
/// `/health` while draining, and what it notes for the access log.
@Suite(.timeLimit(.minutes(2))) struct ChatCompletionsServiceOperationsTests {
    @Test func metricsAreServedAsPrometheusTextBehindTheAPIKey() async throws {
        let metrics = MetricsRegistry()
        let served = try await ServedModel.start(ScriptedLanguageModel(script: [.text("ok")]), apiKey: "k", metrics: metrics)
        let client = try served.client()
        #expect(try await client.exchange("GET", "/metrics").status == 401)
        let scrape = try await client.exchange("GET", "/metrics", headers: [("Authorization", "Bearer k")])
        #expect(scrape.status == 200)
        #expect(scrape.header("Content-Type") == MetricsSnapshot.prometheusContentType)
        #expect(scrape.text.contains("# TYPE loom_requests_total counter\n"))
        #expect(scrape.text.contains("loom_requests_total{outcome=\"ok\"} 0\n"))
        #expect(scrape.text.contains("# TYPE loom_time_to_first_token_seconds histogram\n"))
        await served.stop()
    }

    @Test func withoutARegistryThereIsNoMetricsRoute() async throws {
        let served = try await ServedModel.start(script: [.text("ok")])
        #expect(try await served.client().exchange("GET", "/metrics").status == 404)
        await served.stop()
    }

    @Test func requestsRefusedBeforeTheModelAreCountedByOutcome() async throws {
        let metrics = MetricsRegistry()
        let unloaded = try await ServedModel.start(ScriptedLanguageModel(script: [.text("ok")]), load: false, metrics: metrics)
        #expect(try await unloaded.chat(chatBody()).status == 503)
        await unloaded.stop()
        let served = try await ServedModel.start(ScriptedLanguageModel(script: [.text("ok")]), metrics: metrics)
        let client = try served.client()
        #expect(try await client.exchange("POST", "/v1/chat/completions", body: Array("{not json".utf8)).status == 400)
        let otherModel = JSONValue.object(JSONObject([("model", "nope"), ("messages", [["role": "user", "content": "Hi"]])]))
        #expect(try await served.chat(otherModel).status == 404)
        // An answered request is the model's to count (a LocalLanguageModel given the registry does).
        #expect(try await served.chat(chatBody()).status == 200)
        await served.stop()
        let snapshot = metrics.snapshot()
        #expect(snapshot.value("loom_requests_total", labels: ["outcome": "client_error"]) == 2)
        #expect(snapshot.value("loom_requests_total", labels: ["outcome": "server_error"]) == 1)
        #expect(snapshot.value("loom_requests_total", labels: ["outcome": "ok"]) == 0)
    }

    @Test func theModelLearnsHowLongTheRequestAlreadyWaitedOnlyWhenMetricsAreOn() async throws {
        let measured = try await ServedModel.start(ScriptedLanguageModel(script: [.text("ok")]), metrics: MetricsRegistry())
        #expect(try await measured.chat(chatBody()).status == 200)
        let waited = try #require(measured.requests.first?.metadata[RequestMetrics.waitedSecondsMetadataKey] as? Double)
        #expect(waited >= 0)
        await measured.stop()
        let plain = try await ServedModel.start(script: [.text("ok")])
        #expect(try await plain.chat(chatBody()).status == 200)
        #expect(plain.requests.first?.metadata[RequestMetrics.waitedSecondsMetadataKey] == nil)
        await plain.stop()
    }

    @Test func healthAnswers503WhileDraining() async throws {
        let served = try await ServedModel.start(script: [.text("ok")])
        #expect(try await served.client().exchange("GET", "/health").status == 200)
        served.service.beginDraining()
        let health = try await served.client().exchange("GET", "/health")
        #expect(health.status == 503)
        #expect(health.header("Retry-After") == String(HTTPServer.drainingRetryAfterSeconds))
        #expect(health.json?["error"]?["code"] == "server_draining")
        await served.stop()
    }

    @Test(arguments: [false, true])
    func theAccessLogGetsTheGenerationsFiguresAndTheRequestID(stream: Bool) async throws {
        let records = Locked<[HTTPAccessRecord]>([])
        let served = try await ServedModel.start(
            ScriptedLanguageModel(script: [.text("Hello", tokens: 2), .text(" there", tokens: 3), .usage(input: 7, cached: 4, output: 5)]),
            accessLog: { record in records.withLock { $0.append(record) } })
        let body = stream ? chatBody("Hi", [("stream", true)]) : chatBody()
        let response = try await served.chat(body, headers: [("X-Request-ID", "trace-1")])
        #expect(response.status == 200)
        #expect(response.header("X-Request-ID") == "trace-1")
        await served.stop()
        let record = try #require(records.withLock { $0 }.first)
        #expect(record.requestID == "trace-1")
        #expect(record.notes["outcome"] == "ok")
        #expect(record.notes["finish_reason"] == "stop")
        #expect(record.notes["prompt_tokens"] == 7)
        #expect(record.notes["cached_tokens"] == 4)
        #expect(record.notes["completion_tokens"] == 5)
        #expect(record.notes["time_to_first_token_seconds"] != nil)
    }
}
