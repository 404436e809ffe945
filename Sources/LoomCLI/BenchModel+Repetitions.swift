import CTensor
import Engine

extension BenchModel {
    /// The measured repetitions (the warm-up left out).
    struct Samples {
        var ppRates: [Double] = [], tgRates: [Double] = [], ttfts: [Double] = []
        /// Guided tg and unconstrained tg with the same prompt (`--schema` only).
        var guidedRates: [Double] = [], plainRates: [Double] = []
        /// Share of guided tokens the grammar forced, and the guided output's tokens (the last
        /// repetition's).
        var forcedShare = 0.0
        var guidedTokens = 0
        /// Where one more tg run's time went (`--profile` only).
        var profile: BenchProfile?
    }

    /// One warm-up and `reps` measured repetitions of pp (with the TTFT token), tg through the
    /// chosen engine and, with a schema, guided tg; pp and tg each start from an empty cache, or
    /// from one holding `depth` tokens.
    /// With `profile`, one more tg run follows with the kernel profile recording.
    static func measure(model: Model, modelPath: String, _ settings: Settings, schemaPath: String?, profile: Bool,
                        json: Bool) async throws -> Samples {
        let (pp, tg, depth, threads, kv) = (settings.pp, settings.tg, settings.depth, settings.threads, settings.kv)
        let context = depth + max(pp + 1, tg + 2)
        guard context <= model.config.contextLength else {
            let asked = depth > 0 ? "--depth \(depth) with --pp \(pp) or --tg \(tg)" : "--pp \(pp) or --tg \(tg)"
            throw RuntimeError("\(asked) exceeds the model's context of \(model.config.contextLength)")
        }
        let configuration = TransformerConfiguration(threads: threads, maxBatch: pp, contextLength: context, kvCacheType: kv)
        let transformer = try Transformer(model: model, configuration: configuration)
        let cache = try transformer.makeCache()
        let vocab = model.config.vocabularySize
        let prompt = (0..<pp).map { Int32(($0 * 7919 + 13) % vocab) }
        let decodes = (0..<tg).map { Int32(($0 * 31 + 5) % vocab) }
        // The depth's tokens: a sequence of their own, the same one Benchmarks/depth_llamacpp.py
        // puts in llama.cpp's cache.
        let filler = (0..<depth).map { Int32(($0 * 4099 + 7) % vocab) }
        let tokenizer = try? Tokenizer(gguf: model.file)
        // tg runs through the chosen engine: one transformer for pp, another inside the engine
        // (each owns its kernel threads; only one runs at a time).
        let generator = try BenchEngine(kind: settings.engine, model: model, configuration: TransformerConfiguration(
            threads: threads, maxBatch: 64, contextLength: depth + tg + 2, kvCacheType: kv))
        let guided = try schemaPath.map { try BenchGuided(schemaPath: $0, modelPath: modelPath, threads: threads, kv: kv,
                                                          tokens: tg) }

        var samples = Samples()
        var progress = Progress(json: json)
        for rep in 0...settings.reps {
            progress.step("bench: repetition", rep, of: settings.reps)
            cache.reset()
            // The depth in prompt-sized batches, untimed, as llama-bench fills its cache.
            for start in stride(from: 0, to: depth, by: pp) {
                _ = try transformer.evaluate(Array(filler[start..<min(start + pp, depth)]), cache: cache)
            }
            let t0 = loom_now_seconds()
            _ = try transformer.evaluate(prompt, cache: cache)
            let t1 = loom_now_seconds()
            _ = try transformer.decode(decodes[0], cache: cache)
            let t2 = loom_now_seconds()
            let tgSeconds = try await BenchGeneration.generationSeconds(engine: generator, first: decodes[0], tokens: tg,
                                                                       tokenizer: tokenizer, context: filler).seconds
            var guidedRun: (guided: Double, free: Double, tokens: Int, forced: Int)?
            if let guided { guidedRun = try await guided.repetition() }
            if rep == 0 { continue }  // warm-up
            samples.ppRates.append(Double(pp) / (t1 - t0))
            samples.ttfts.append((t2 - t0) * 1000)
            samples.tgRates.append(Double(tg) / tgSeconds)
            if let guidedRun {
                samples.guidedRates.append(guidedRun.guided)
                samples.plainRates.append(guidedRun.free)
                samples.forcedShare = Double(guidedRun.forced) / Double(max(guidedRun.tokens, 1))
                samples.guidedTokens = guidedRun.tokens
            }
        }
        if profile {
            progress.step("bench: profile", 1, of: 1)
            samples.profile = try await BenchProfile.record(window: {
                let run = try await BenchGeneration.generationSeconds(engine: generator, first: decodes[0], tokens: tg,
                                                                      tokenizer: tokenizer, context: filler)
                return (run.seconds, run.profileStart)
            })
        }
        progress.clear()
        return samples
    }
}
