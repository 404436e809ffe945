import Engine
import Foundation
import LocalBackend
import Provider
import Testing

/// Sampling with speculation draws from the model's own distribution: on stories260K, tokens
/// sampled with speculation (one set of seeds) and without it (another set) are compared by a
/// two-sample chi-square test over (position, token) cells, for sampling inside the scheduler
/// and for the caller-driven loop. The seeds differ, so the test compares distributions, not
/// draws: a verifier that kept proposals the sampler would not have drawn (or drew from the
/// wrong row) shifts the later positions toward copying the prompt, and fails it.
@Suite(.serialized, .timeLimit(.minutes(10))) struct SpeculationDistributionTests {
    /// A story phrase said three times and begun a fourth: the model often goes on repeating
    /// it, so prompt lookup proposes runs from it and some are accepted.
    static let text = String(repeating: "Once upon a time, there was a little girl named Lily. She loved to play. ",
                             count: 3) + "Once upon a"
    /// Sampling settings of every trial but the seed (a little below temperature 1, so copies
    /// are frequent enough to be verified many times).
    static func sampling(seed: Int) -> SamplingParameters { SamplingParameters(temperature: 0.7, seed: UInt64(seed)) }
    static let length = 10, trials = 400

    /// Counts of (position, token) over `samples`, each `length` tokens or fewer.
    private static func cells(_ samples: [[Int32]]) -> [Int: Int] {
        var counts: [Int: Int] = [:]
        for s in samples { for (i, t) in s.enumerated() { counts[i * 1_000_000 + Int(t), default: 0] += 1 } }
        return counts
    }

    /// The two-sample chi-square statistic of equal-sized samples over cells with at least 10
    /// observations in all (the rest pooled in one cell), and its critical value at α = 0.001
    /// (Wilson–Hilferty).
    static func chiSquare(_ a: [[Int32]], _ b: [[Int32]]) -> (statistic: Double, critical: Double, cells: Int) {
        let ca = cells(a), cb = cells(b)
        var statistic = 0.0, kept = 0, restA = 0, restB = 0
        for key in Set(ca.keys).union(cb.keys) {
            let x = ca[key, default: 0], y = cb[key, default: 0]
            if x + y >= 10 {
                statistic += Double((x - y) * (x - y)) / Double(x + y)
                kept += 1
            } else {
                restA += x
                restB += y
            }
        }
        if restA + restB > 0 {
            statistic += Double((restA - restB) * (restA - restB)) / Double(restA + restB)
            kept += 1
        }
        let df = Double(max(kept - 1, 1)), z = 3.09
        let critical = df * pow(1 - 2 / (9 * df) + z * (2 / (9 * df)).squareRoot(), 3)
        return (statistic, critical, kept)
    }

    @Test func samplingInsideTheSchedulerKeepsTheDistribution() async throws {
        let model = try ModelStore.shared.model(path: SharedData.stories)
        let prompt = try Tokenizer(gguf: GGUFFile(path: SharedData.stories)).encode(Self.text, addBOS: true)
        let scheduler = try Scheduler(model: model,
                                      configuration: TransformerConfiguration(threads: 1, maxBatch: 64,
                                                                              contextLength: 128),
                                      policy: SchedulerPolicy(maxSequences: 4))
        var plain: [[Int32]] = [], speculative: [[Int32]] = []
        var proposed = 0, accepted = 0
        for trial in 0..<Self.trials {
            let off = try scheduler.generate(prompt: prompt, sampling: Self.sampling(seed: trial),
                                             maxTokens: Self.length)
            plain.append(try await RuntimeFixtures.collect(off))
            let on = try scheduler.generate(prompt: prompt,
                                            sampling: Self.sampling(seed: Self.trials + trial),
                                            maxTokens: Self.length, speculation: 6)
            speculative.append(try await RuntimeFixtures.collect(on))
            proposed += on.speculation.proposed
            accepted += on.speculation.accepted
        }
        #expect(accepted > 0 && proposed > accepted, "proposed \(proposed), accepted \(accepted)")
        let test = Self.chiSquare(plain, speculative)
        #expect(test.cells > 20)
        #expect(test.statistic < test.critical, "chi-square \(test.statistic) over \(test.cells) cells")
    }

    @Test func samplingInTheCallerDrivenLoopKeepsTheDistribution() async throws {
        func model(_ speculation: Int) -> LocalLanguageModel {
            var model = LocalLanguageModel(path: SharedData.stories, variant: .sequential, contextSize: 136, threads: 1)
            model.speculationLimit = speculation
            return model
        }
        let plainModel = model(0), speculativeModel = model(6)
        var plain: [[Int32]] = [], speculative: [[Int32]] = []
        var proposed = 0, accepted = 0
        for trial in 0..<Self.trials {
            for (speculating, seed) in [(false, trial), (true, Self.trials + trial)] {
                let session = LanguageModelSession(model: speculating ? speculativeModel : plainModel)
                let options = GenerationOptions(samplingMode: .random(top: 512, seed: UInt64(seed)), temperature: 0.7,
                                                maximumResponseTokens: Self.length)
                let response = try await session.respond(to: Self.text, options: options)
                // Cells over the text's characters stand in for tokens: equal distributions of
                // tokens give equal distributions of their spellings.
                let sample = response.content.unicodeScalars.prefix(24).map { Int32($0.value) }
                if speculating {
                    speculative.append(sample)
                    proposed += response.localMetadata.proposedTokens ?? 0
                    accepted += response.localMetadata.acceptedTokens ?? 0
                } else {
                    plain.append(sample)
                }
            }
        }
        #expect(accepted > 0 && proposed > accepted, "proposed \(proposed), accepted \(accepted)")
        let test = Self.chiSquare(plain, speculative)
        #expect(test.cells > 20)
        #expect(test.statistic < test.critical, "chi-square \(test.statistic) over \(test.cells) cells")
    }
}
