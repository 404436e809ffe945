import Engine
import Foundation
import LoomJSON
import Testing
@testable import LocalBackend
@testable import Provider

/// Many sessions on one model at once: no crash, no leakage between sessions, bounded memory.
///
/// Each of 16 sessions (different prompts; every fourth constrained by a schema) is first run
/// alone, greedily; then all 16 run concurrently and every output must equal its solo run (up to
/// the batch-split rounding explained below, counted and printed), in one concurrent round with
/// short answers. Throughput and peak RSS are printed for context, never asserted: timing is a
/// benchmark's subject, and a test that ran for a configurable time would be one. What is
/// asserted is the bound: the KV budget admits 8 engines, so half the sessions wait for an engine
/// at any time and no more than 8 are ever alive.
@Suite(.serialized, .timeLimit(.minutes(60))) struct LoadTests {
    /// One session's work: a prompt and, for some, a schema.
    struct Job: Sendable {
        let prompt: String
        let schema: JSONValue?

        func run(on model: LocalLanguageModel, tokens: Int) async throws -> (text: String, outputTokens: Int, cached: Int) {
            let session = LanguageModelSession(model: model, instructions: "You are a concise assistant.")
            // Schemas get room to finish on their own: every schema here has a bounded longest
            // output, and budget-aware closing is exercised by LocalGuidedGenerationTests.
            let options = GenerationOptions(samplingMode: .greedy, maximumResponseTokens: schema == nil ? tokens : 64)
            if let schema {
                let response = try await session.respond(
                    to: prompt, schema: try GenerationSchema(jsonSchema: schema), includeSchemaInPrompt: false,
                    options: options)
                return (response.rawContent.jsonString, response.usage?.output.totalTokenCount ?? 0,
                        response.usage?.input.cachedTokenCount ?? -1)
            }
            let response = try await session.respond(to: prompt, options: options)
            return (response.content, response.usage?.output.totalTokenCount ?? 0, response.usage?.input.cachedTokenCount ?? -1)
        }
    }

    static let topics = ["the sea", "mountains", "bread", "trains", "owls", "rain", "chess", "copper",
                         "bees", "glass", "winter", "maps", "violins", "salt", "comets", "moss"]

    static let schemas: [JSONValue] = [
        #"{"type":"object","properties":{"name":{"type":"string","maxLength":12},"rating":{"type":"integer","minimum":1,"maximum":5}},"required":["name","rating"],"additionalProperties":false}"#,
        #"{"type":"array","items":{"type":"string","enum":["yes","no","maybe"]},"minItems":1,"maxItems":3}"#,
        #"{"type":"object","properties":{"ok":{"type":"boolean"},"score":{"type":"integer","minimum":0,"maximum":100}},"required":["ok"],"additionalProperties":false}"#,
        #"{"type":"string","pattern":"^[a-z]{2,8}$"}"#,
    ].map { try! JSONValue(parsing: $0) }

    static var jobs: [Job] {
        topics.enumerated().map { i, topic in
            i % 4 == 3
                ? Job(prompt: "Describe \(topic) as JSON.", schema: schemas[(i / 4) % schemas.count])
                : Job(prompt: "Write one sentence about \(topic).", schema: nil)
        }
    }

    @Test func sixteenConcurrentSessionsMatchTheirSoloRuns() async throws {
        let tokens = 12
        // One thread per engine: 8 engines on a 2-core machine already oversubscribe it.
        let description = try ModelDescription(file: GGUFFile(path: SharedData.defaultModel))
        let context = 512
        let engineBytes = 2 * description.blockCount * context * KVCacheType.f16.rowBytes(elements: description.kvLength)
        let engines = 8
        let model = LocalLanguageModel(path: SharedData.defaultModel, variant: .automatic, contextSize: context, threads: 1,
                                       kvCacheBudget: engines * engineBytes)
        let executor = try LocalLanguageModel.Executor(configuration: model.executorConfiguration)
        let jobs = Self.jobs

        var solo: [String] = []
        var soloCached: [Int] = []
        for job in jobs {
            let run = try await job.run(on: model, tokens: tokens)
            solo.append(run.text)
            soloCached.append(run.cached)
        }

        let start = Date()
        var outputTokens = 0, splitDifferences = 0
        do {
            let outputs = try await withThrowingTaskGroup(of: (Int, String, Int, Int).self) { group in
                for (i, job) in jobs.enumerated() {
                    group.addTask {
                        let (text, n, cached) = try await job.run(on: model, tokens: tokens)
                        return (i, text, n, cached)
                    }
                }
                var results = [(text: String, cached: Int)](repeating: ("", 0), count: jobs.count)
                for try await (i, text, n, cached) in group {
                    results[i] = (text, cached)
                    outputTokens += n
                }
                return results
            }
            // The prompt tokens reused from an engine's cache decide how the prompt's keys and
            // values were split into batches, and the engine's batched kernels round differently
            // from its small-batch ones (SequentialEngineRuntimeTests.prefixReuseIsExact: within
            // 1e-3), so a greedy answer may take another turn after a dozen tokens when a session
            // finds a different cached prefix than it did alone. Such a difference is counted and
            // printed; with the same cached prefix the answer must be identical, and no answer may
            // ever be another session's.
            for i in jobs.indices where outputs[i].text != solo[i] {
                let message = "session \(i) under load (\(outputs[i].cached) prompt tokens cached): \(outputs[i].text.debugDescription), "
                    + "alone (\(soloCached[i]) cached): \(solo[i].debugDescription)"
                if let other = solo.indices.first(where: { $0 != i && solo[$0] == outputs[i].text }) {
                    Issue.record(Comment(rawValue: message + " — that is session \(other)'s answer"))
                } else if outputs[i].cached == soloCached[i] {
                    Issue.record(Comment(rawValue: message))
                } else {
                    splitDifferences += 1
                    print("load: split difference: " + message)
                }
            }
        }

        let elapsed = Date().timeIntervalSince(start)
        let mib = Double(1 << 20)
        let weights = (try? FileManager.default.attributesOfItem(atPath: URL(fileURLWithPath: SharedData.defaultModel).resolvingSymlinksInPath().path)[.size] as? Int) ?? 0
        print(String(format: "load: %d concurrent sessions in %.1f s, %d output tokens, %.1f tok/s",
                     jobs.count, elapsed, outputTokens, Double(outputTokens) / elapsed))
        print("load: \(splitDifferences) answers differed from their solo run after a different cached prefix")
        print(String(format: "load: peak RSS %d MiB; budgets: KV pool %.1f MiB (%d sequences × %.2f MiB, peak %d alive), weights file %.1f MiB",
                     PeakMemory.residentMiB, Double(executor.pool.budgetBytes) / mib, executor.pool.capacity,
                     Double(engineBytes) / mib, executor.pool.peakLiveCount, Double(weights) / mib))
        #expect(executor.pool.peakLiveCount <= engines)
    }
}

/// The process's peak resident set (`VmHWM` in /proc/self/status), in MiB; 0 where unavailable.
enum PeakMemory {
    static var residentMiB: Int {
        guard let status = try? String(contentsOfFile: "/proc/self/status", encoding: .utf8) else { return 0 }
        for line in status.split(separator: "\n") where line.hasPrefix("VmHWM:") {
            let kb = line.split(separator: " ").dropFirst().first.flatMap { Int($0) } ?? 0
            return kb / 1024
        }
        return 0
    }
}
