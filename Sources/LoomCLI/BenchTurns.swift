import CTensor
import Engine
import LoomJSON

/// `loom bench --prefix N --turns T [--no-prefix-reuse]`: time to first token of a conversation's
/// last turn, whose prompt starts with an N-token shared prefix (a system prompt) and the earlier
/// turns. With reuse, the engine evaluates only what the scheduler's KV pool does not hold; a
/// second figure is a *new* sequence whose prefix another session's sequence left in the pool
/// (a shared system prompt).
/// Without reuse both prompts are evaluated cold: the baseline the speed-up is measured against.
enum BenchTurns {
    /// Tokens per question and per (non-final) answer.
    static let questionTokens = 16, answerTokens = 16

    static func run(model: Model, file: String, engine kind: String, threads: Int, kv: KVCacheType, reps: Int,
                    prefix n: Int, turns: Int, reuse: Bool, json: Bool) async throws {
        let vocab = model.config.vocabularySize
        let context = n + turns * (questionTokens + answerTokens) + 8
        guard context <= model.config.contextLength else {
            throw RuntimeError("--prefix \(n) with \(turns) turns needs \(context) positions; the model has \(model.config.contextLength)")
        }
        let configuration = TransformerConfiguration(threads: threads, maxBatch: 64, contextLength: context, kvCacheType: kv)
        let prefix = (0..<n).map { Int32(($0 * 7919 + 13) % vocab) }
        func question(_ turn: Int) -> [Int32] { (0..<questionTokens).map { Int32(($0 * 31 + 5 + turn * 1009) % vocab) } }

        let scheduler = try Scheduler(model: model, configuration: configuration,
                                      policy: SchedulerPolicy(maxSequences: 3, prefillChunk: 64, maxPrefillTokensPerStep: 64))
        let engine = try BenchEngine(kind: kind, scheduler: scheduler)
        // The shared prefix, evaluated once by another session.
        let other = SequentialEngine(scheduler: scheduler)
        try other.prefill(prefix + question(0), reusePrefix: false)
        other.reset()
        let fresh = try BenchEngine(kind: kind, scheduler: scheduler)

        var ttfts: [Double] = [], restored: [Double] = []
        var last = (seconds: 0.0, prompt: 0, cached: 0), restoredCached = 0
        for rep in 0...reps {
            last = try await BenchGeneration.lastTurn(engine: engine, prefix: prefix, turns: turns, question: question,
                                                      answerTokens: answerTokens, reuse: reuse)
            // A new session: an empty sequence, the prefix (if reusing) from the pool.
            fresh.engine.reset()
            let t0 = loom_now_seconds()
            var firstAt = 0.0
            _ = try await fresh.generate(prompt: prefix + question(7), sampling: .greedy, maxTokens: 1, reusePrefix: reuse) { _ in
                firstAt = loom_now_seconds()
            }
            restoredCached = fresh.lastPrefill.cachedTokenCount
            if rep == 0 { continue }  // warm-up
            ttfts.append(last.seconds * 1000)
            restored.append((firstAt - t0) * 1000)
        }
        let isa = String(cString: loom_isa_name(loom_isa_active()))
        if json {
            let doc: JSONValue = .object(JSONObject([
                ("model", .string(file)), ("threads", .number(JSONNumber(threads))), ("engine", .string(kind)),
                ("prefix_tokens", .number(JSONNumber(n))), ("turns", .number(JSONNumber(turns))),
                ("prefix_reuse", .bool(reuse)), ("prompt_tokens", .number(JSONNumber(last.prompt))),
                ("cached_tokens", .number(JSONNumber(last.cached))), ("ttft_ms", BenchModel.stats(ttfts)),
                ("restored_cached_tokens", .number(JSONNumber(restoredCached))),
                ("restored_ttft_ms", BenchModel.stats(restored)), ("isa", .string(isa)),
            ]))
            StandardOutput.write(doc.serialized() + "\n")
            return
        }
        StandardOutput.write("""
            model \(file), \(threads) threads, engine \(kind), prefix \(n) tokens, \(turns) turns, \
            prefix reuse \(reuse ? "on" : "off")
            turn \(turns): \(last.prompt) prompt tokens, \(last.cached) cached; time to first token median \
            \(BenchModel.format(BenchModel.median(ttfts))) ms (min \(BenchModel.format(ttfts.min()!)), max \(BenchModel.format(ttfts.max()!)))
            new session: \(n + questionTokens) prompt tokens, \(restoredCached) from the prefix cache; time to first token \
            median \(BenchModel.format(BenchModel.median(restored))) ms

            """)
    }
}
