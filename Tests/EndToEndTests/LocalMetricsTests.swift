import Foundation
import LocalBackend
import LoomJSON
import LoomMetrics
import Provider
import Testing

/// A `LocalLanguageModel` given a registry records what its requests did: counts held to a small
/// workload on SmolLM2 (free text on both engine paths, one guided answer, one refused request).
@Suite(.serialized, .timeLimit(.minutes(20))) struct LocalMetricsTests {
    @Test func aWorkloadIsCountedExactly() async throws {
        let metrics = MetricsRegistry()
        var model = E2EData.smol(.automatic)
        model.metrics = metrics
        // The runtime lives while an executor does: held here, it (and its KV pool, whose prefix
        // cache the later prompts hit, and the scheduler the gauges read) outlives each session.
        let executor = try await LocalLanguageModel.Executor.load(configuration: model.executorConfiguration)
        defer { withExtendedLifetime(executor) {} }
        let options = GenerationOptions(samplingMode: .greedy, maximumResponseTokens: 8)
        var completionTokens = 0
        for prompt in ["Name a colour.", "Name a fruit."] {
            let response = try await LanguageModelSession(model: model, instructions: "You are terse.")
                .respond(to: prompt, options: options)
            completionTokens += try #require(response.usage).output.totalTokenCount
        }
        let schema = try GenerationSchema(jsonSchema: JSONValue(parsing: #"""
            {"type":"object","properties":{"colour":{"enum":["red","green","blue"]}},"required":["colour"],"additionalProperties":false}
            """#))
        let guided = try await LanguageModelSession(model: model, instructions: "You are terse.")
            .respond(to: "Pick a colour.", schema: schema, options: GenerationOptions(samplingMode: .greedy, maximumResponseTokens: 24))
        completionTokens += try #require(guided.usage).output.totalTokenCount
        // Too long for the context: refused before any compute, a client error.
        let tooLong = String(repeating: "word ", count: 2000)
        await #expect(throws: (any Error).self) {
            _ = try await LanguageModelSession(model: model).respond(to: tooLong, options: options)
        }

        // A finished sequence leaves the scheduler on its thread's next wake.
        #expect(await until { metrics.snapshot().value("loom_sequences_running") == 0 })
        let snapshot = metrics.snapshot()
        #expect(snapshot.value("loom_requests_total", labels: ["outcome": "ok"]) == 3)
        #expect(snapshot.value("loom_requests_total", labels: ["outcome": "client_error"]) == 1)
        #expect(snapshot.value("loom_requests_total", labels: ["outcome": "cancelled"]) == 0)
        #expect(snapshot.histogram("loom_time_to_first_token_seconds")?.count == 3)
        #expect(snapshot.histogram("loom_queue_wait_seconds")?.count == 3)
        #expect(snapshot.histogram("loom_request_duration_seconds")?.count == 4)
        let completion = try #require(snapshot.histogram("loom_request_completion_tokens"))
        #expect(completion.count == 3)
        #expect(Int(completion.sum) == completionTokens)
        #expect(snapshot.value("loom_completion_tokens_total") == Double(completionTokens))
        #expect(snapshot.histogram("loom_inter_token_latency_seconds")?.count == UInt64(completionTokens - 3))
        let prompt = try #require(snapshot.histogram("loom_request_prompt_tokens"))
        let evaluated = try #require(snapshot.value("loom_prompt_tokens_evaluated_total"))
        let cached = try #require(snapshot.value("loom_prompt_tokens_cached_total"))
        #expect(evaluated + cached == prompt.sum)
        // The three prompts share the template's system turn: later ones reuse its blocks.
        #expect(cached > 0)
        #expect(snapshot.histogram("loom_grammar_compile_seconds")?.count ?? 0 >= 1)
        #expect(snapshot.histogram("loom_grammar_mask_seconds")?.count ?? 0 >= 1)
        // The one guided request built its matcher cold and left it warm for the next.
        #expect(snapshot.value("loom_grammar_warm_misses_total") == 1)
        #expect(snapshot.value("loom_grammar_warm_hits_total") == 0)
        #expect(snapshot.value("loom_grammar_warm_guides") == 1)
        #expect(snapshot.value("loom_grammar_warm_bytes") ?? 0 > 0)
        #expect(snapshot.value("loom_sequences_running") == 0)
        #expect(snapshot.value("loom_sequences_queued") == 0)
        let blocks = try #require(snapshot.value("loom_kv_blocks"))
        #expect(snapshot.value("loom_kv_blocks_in_use").map { $0 + (snapshot.value("loom_kv_blocks_free") ?? 0) } == blocks)
        #expect(snapshot.value("loom_kv_cached_prefix_bytes") ?? 0 > 0)
        #expect(snapshot.value("loom_scheduler_steps_total") ?? 0 > 0)
    }

    @Test func aCancelledRequestIsCountedAsCancelled() async throws {
        let metrics = MetricsRegistry()
        var model = E2EData.smol(.automatic)
        model.metrics = metrics
        let session = LanguageModelSession(model: model)
        let stream = session.streamResponse(to: "Write a long story about the sea.",
                                            options: GenerationOptions(samplingMode: .greedy, maximumResponseTokens: 400))
        let task = Task {
            for try await _ in stream { withUnsafeCurrentTask { $0?.cancel() } }
        }
        _ = await task.result
        // The executor counts the request when its cancellation has unwound, which may be just
        // after the stream's consumer stopped.
        #expect(await until { metrics.snapshot().value("loom_requests_total", labels: ["outcome": "cancelled"]) == 1 })
        let snapshot = metrics.snapshot()
        #expect(snapshot.value("loom_requests_total", labels: ["outcome": "cancelled"]) == 1)
        #expect(snapshot.value("loom_requests_total", labels: ["outcome": "ok"]) == 0)
        #expect(snapshot.histogram("loom_time_to_first_token_seconds")?.count == 1)
    }
}
