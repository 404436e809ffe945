import CTensor
import Engine
import Foundation
import LocalBackend
import LoomJSON
import Provider

extension BenchConcurrency {
    /// `--concurrency … --schema FILE`: N sessions on one `LocalLanguageModel` (automatic variant,
    /// a KV pool of N full contexts) each asked greedily for the schema's JSON at once, through the
    /// generation loop every guided request takes (a mask per sampled token, forced runs as one
    /// segment of a step). A guided response can deliver several tokens in one update (a forced
    /// run), so its inter-token latency is each sequence's mean, (last update − first) ÷ (tokens − 1),
    /// and the percentiles are over sequences; time to first token counts from submission.
    static func runGuided(modelPath: String, file: String, schemaPath: String, levels: [Int], tokens: Int, reps: Int,
                          threads: Int, kv: KVCacheType, json: Bool) async throws {
        let schema = try GenerationSchema(jsonSchema: JSONValue(parsing: FileInput.text(schemaPath)))
        let context = 512 + tokens
        var results: [Level] = []
        for n in levels {
            var model = LocalLanguageModel(path: modelPath, variant: .automatic, contextSize: context, threads: threads,
                                           kvCacheType: kv)
            model.kvCacheBudget = try model.kvCacheBytesPerSequence() * n
            let executor = try await LocalLanguageModel.Executor.load(configuration: model.executorConfiguration)
            if n == levels.first { _ = try await guidedRun(model: model, schema: schema, n: 1, tokens: min(tokens, 8)) }
            var aggregate: [Double] = [], itls: [Double] = [], firsts: [Double] = []
            for _ in 0..<reps {
                let (traces, wall) = try await guidedRun(model: model, schema: schema, n: n, tokens: tokens)
                aggregate.append(Double(traces.reduce(0) { $0 + $1.tokens }) / wall)
                for t in traces {
                    firsts.append(t.firstTokenSeconds)
                    if t.tokens > 1 { itls.append((t.lastTokenAt - t.firstTokenSeconds) / Double(t.tokens - 1)) }
                }
            }
            results.append(Level(n: n, aggregateTokensPerSecond: BenchModel.median(aggregate),
                                 interTokenMs: (percentile(itls, 50) * 1e3, percentile(itls, 99) * 1e3),
                                 firstTokenMs: (percentile(firsts, 50) * 1e3, percentile(firsts, 99) * 1e3),
                                 peakRSSMegabytes: BenchModel.peakResidentMegabytes(), kvBytes: executor.kvCacheBytes))
        }
        let isa = String(cString: loom_isa_name(loom_isa_active()))
        if json {
            let weightBytes = (try? FileManager.default.attributesOfItem(atPath: modelPath)[.size] as? Int) ?? 0
            StandardOutput.write(report(file: file, threads: threads, promptTokens: nil, schema: schemaPath, tokens: tokens,
                                        reps: reps, isa: isa, weightBytes: weightBytes, results).serialized() + "\n")
        } else {
            StandardOutput.write("guided by \(schemaPath)\n" + table(file: file, threads: threads, promptTokens: nil,
                                                                    tokens: tokens, isa: isa, results))
        }
    }

    /// `n` guided sessions started together; each trace's times are seconds from the start (the
    /// last token's too), and the wall time is the last response's end.
    static func guidedRun(model: LocalLanguageModel, schema: GenerationSchema, n: Int, tokens: Int) async throws
        -> ([Trace], Double)
    {
        let t0 = loom_now_seconds()
        let traces = try await withThrowingTaskGroup(of: Trace.self) { group in
            for i in 0..<n {
                group.addTask {
                    // Distinct openings, so the prompts share no KV block.
                    let session = LanguageModelSession(model: model, instructions: "Session \(i): answer in JSON.")
                    let stream = session.streamResponse(
                        to: "Invent example \(i).", schema: schema, includeSchemaInPrompt: false,
                        options: GenerationOptions(samplingMode: .greedy, maximumResponseTokens: tokens))
                    var trace = Trace()
                    for try await _ in stream {
                        let now = loom_now_seconds() - t0
                        if trace.firstTokenSeconds == 0 { trace.firstTokenSeconds = now }
                        trace.lastTokenAt = now
                    }
                    trace.tokens = ResponseFigures(try await stream.collect().transcriptEntries).outputTokens
                    return trace
                }
            }
            var all: [Trace] = []
            for try await t in group { all.append(t) }
            return all
        }
        return (traces, (traces.map(\.lastTokenAt).max() ?? 0))
    }
}
