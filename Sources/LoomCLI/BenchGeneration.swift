import CTensor
import Engine
import LoomJSON
import LoomSupport

/// The engine-level measurements of `loom bench`: token generation through either engine (the
/// consumer detokenizing each token, as a service would) and second-turn time to first token with
/// and without prefix reuse.
enum BenchGeneration {
    /// tg through an engine, greedy with no stop tokens; the consumer detokenizes every token.
    /// Seconds per run, and the profile counters (`loom_profile.h`) as they stood when the timed
    /// part began (all zero when that is the start).
    /// - From an empty context (`context` empty): a one-token prompt and `tokens` tokens, the whole
    ///   run timed, so `tokens` forward passes of one token are counted.
    /// - At depth (llama-bench's `-d`): `context` is evaluated as the prompt first, untimed, and
    ///   the `tokens` single-token decodes after it are timed: the clock and the counters are read
    ///   on the scheduler's thread after every forward pass (`Scheduler.stepObserver`), and the
    ///   run's time starts from the pass that evaluated the prompt's last chunk. The scheduler
    ///   runs ahead of this consumer, so a clock started when the first token reaches the consumer
    ///   could miss decodes that had already run.
    static func generationSeconds(engine: BenchEngine, first: Int32, tokens: Int, tokenizer: Tokenizer?,
                                  context: [Int32] = []) async throws -> (seconds: Double, profileStart: [loom_work_time]) {
        var decoder = tokenizer.map { StreamingDecoder(tokenizer: $0) }
        var text = 0
        let atDepth = !context.isEmpty
        let profiling = loom_profile_active() != 0
        let marks = Locked<[(seconds: Double, counters: [loom_work_time])]>([])
        if atDepth {
            engine.scheduler.stepObserver = { _ in
                var counters = [loom_work_time](repeating: loom_work_time(), count: Int(LOOM_WORK_KINDS))
                if profiling { counters.withUnsafeMutableBufferPointer { loom_profile_read($0.baseAddress) } }
                let now = loom_now_seconds()
                marks.withLock { $0.append((now, counters)) }
            }
        }
        defer { if atDepth { engine.scheduler.stepObserver = nil } }
        let t0 = loom_now_seconds()
        var n = 0
        let generated = try await engine.generate(prompt: atDepth ? context : [first], sampling: .greedy,
                                                  maxTokens: atDepth ? tokens + 1 : tokens, reusePrefix: false) { t in
            n += 1
            // At depth the first token is the prompt's, sampled before the timed decodes.
            if atDepth, n == 1 { return }
            if decoder != nil { text &+= ((try? decoder!.append(t)) ?? "").utf8.count }
        }
        let end = loom_now_seconds()
        let expected = atDepth ? tokens + 1 : tokens
        guard generated == expected else { throw RuntimeError("generation stopped after \(generated) of \(expected) tokens") }
        _ = text
        guard atDepth else { return (end - t0, [loom_work_time](repeating: loom_work_time(), count: Int(LOOM_WORK_KINDS))) }
        // The last `tokens` passes decoded; the one before them evaluated the prompt's last chunk.
        let passes = marks.withLock { $0 }
        guard passes.count > tokens else { throw RuntimeError("\(passes.count) forward passes for \(expected) tokens") }
        let start = passes[passes.count - tokens - 1]
        return (end - start.seconds, start.counters)
    }

    /// One multi-turn conversation: turn 1 is the `prefix` plus a question, answered with
    /// `answerTokens` tokens; each later turn appends the answer and a new question. Returns
    /// the last turn's time to first token (prompt evaluation plus choosing the first token) and
    /// the prompt tokens it did not evaluate.
    static func lastTurn(engine: BenchEngine, prefix: [Int32], turns: Int, question: (Int) -> [Int32],
                         answerTokens: Int, reuse: Bool) async throws -> (seconds: Double, prompt: Int, cached: Int) {
        var conversation = prefix + question(1)
        var answer: [Int32] = []
        _ = try await engine.generate(prompt: conversation, sampling: .greedy, maxTokens: answerTokens, reusePrefix: false) {
            answer.append($0)
        }
        var result = (seconds: 0.0, prompt: 0, cached: 0)
        for turn in 2...max(turns, 2) {
            conversation += answer + question(turn)
            answer.removeAll()
            let t0 = loom_now_seconds()
            var firstAt = 0.0
            _ = try await engine.generate(prompt: conversation, sampling: .greedy,
                                          maxTokens: turn == turns ? 1 : answerTokens, reusePrefix: reuse) {
                if answer.isEmpty { firstAt = loom_now_seconds() }
                answer.append($0)
            }
            result = (firstAt - t0, conversation.count, engine.lastPrefill.cachedTokenCount)
        }
        return result
    }
}

/// Either engine behind one generation call, so the benchmark loops are written once.
final class BenchEngine {
    let sequential: SequentialEngine?
    let pipelined: PipelinedEngine?
    private(set) var lastPrefill = PrefillResult(cachedTokenCount: 0, evaluatedTokenCount: 0)

    /// An engine of `kind` with a one-sequence scheduler of its own.
    init(kind: String, model: Model, configuration: TransformerConfiguration) throws {
        if kind == "pipelined" {
            pipelined = try PipelinedEngine(model: model, configuration: configuration)
            sequential = nil
        } else {
            sequential = try SequentialEngine(model: model, configuration: configuration)
            pipelined = nil
        }
    }

    /// An engine of `kind` whose sequence runs on `scheduler` (sharing its KV pool).
    init(kind: String, scheduler: Scheduler) throws {
        if kind == "pipelined" {
            pipelined = try PipelinedEngine(scheduler: scheduler)
            sequential = nil
        } else {
            sequential = SequentialEngine(scheduler: scheduler)
            pipelined = nil
        }
    }

    var engine: SequentialEngine { sequential ?? pipelined!.engine }

    /// The scheduler the engine's sequence runs on.
    var scheduler: Scheduler { engine.scheduler }

    /// Generates and hands each token to `body`; returns how many were generated.
    func generate(prompt: [Int32], sampling: SamplingParameters, maxTokens: Int, reusePrefix: Bool,
                  body: (Int32) -> Void) async throws -> Int {
        if let sequential {
            let outcome = try sequential.generate(prompt: prompt, sampling: sampling, maxTokens: maxTokens,
                                                  reusePrefix: reusePrefix, body: body)
            lastPrefill = outcome.prefill
            return outcome.tokenCount
        }
        let stream = try pipelined!.start(prompt: prompt, sampling: sampling, stopTokens: [], maxTokens: maxTokens,
                                          reusePrefix: reusePrefix, cancellation: CancellationFlag())
        var n = 0
        for try await t in stream {
            body(t)
            n += 1
        }
        lastPrefill = stream.prefill
        return n
    }
}
