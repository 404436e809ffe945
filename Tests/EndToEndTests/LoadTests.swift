import Foundation
import LoomJSON
import Provider
import Testing

/// Many sessions on one model at once: no crash, no leakage between sessions, bounded memory.
///
/// Each of 16 sessions (different prompts; every fourth constrained by a schema) is first run
/// alone, greedily; then all 16 run concurrently and every output must equal its solo run. The
/// default test does one concurrent round with short answers; `LOOM_LOAD_SECONDS=N` keeps running
/// rounds for N seconds (the figures in docs/reliability.md come from such a run). Throughput and
/// peak RSS are printed, never asserted.
@Suite(.serialized) struct LoadTests {
    /// One session's work: a prompt and, for some, a schema.
    struct Job: Sendable {
        let prompt: String
        let schema: JSONValue?

        func run(on model: LocalLanguageModel, tokens: Int) async throws -> (text: String, outputTokens: Int) {
            let session = LanguageModelSession(model: model, instructions: "You are a concise assistant.")
            // Schemas get room to finish on their own: every schema here has a bounded longest
            // output, and budget-aware closing is exercised by LocalGuidedGenerationTests.
            let options = GenerationOptions(samplingMode: .greedy, maximumResponseTokens: schema == nil ? tokens : 64)
            if let schema {
                let response = try await session.respond(
                    to: prompt, schema: try GenerationSchema(jsonSchema: schema), includeSchemaInPrompt: false,
                    options: options)
                return (response.rawContent.jsonString, response.usage?.output.totalTokenCount ?? 0)
            }
            let response = try await session.respond(to: prompt, options: options)
            return (response.content, response.usage?.output.totalTokenCount ?? 0)
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
        let environment = ProcessInfo.processInfo.environment
        let seconds = environment["LOOM_LOAD_SECONDS"].flatMap(Double.init) ?? 0
        let tokens = seconds > 0 ? 48 : 12
        // One thread per engine: 16 engines on a 2-core machine already oversubscribe it.
        let model = LocalLanguageModel(path: SharedData.defaultModel, variant: .automatic, contextSize: 512, threads: 1)
        let jobs = Self.jobs

        var solo: [String] = []
        for job in jobs { solo.append(try await job.run(on: model, tokens: tokens).text) }

        let start = Date()
        var rounds = 0, outputTokens = 0
        repeat {
            let outputs = try await withThrowingTaskGroup(of: (Int, String, Int).self) { group in
                for (i, job) in jobs.enumerated() {
                    group.addTask {
                        let (text, n) = try await job.run(on: model, tokens: tokens)
                        return (i, text, n)
                    }
                }
                var results = [String](repeating: "", count: jobs.count)
                for try await (i, text, n) in group {
                    results[i] = text
                    outputTokens += n
                }
                return results
            }
            for i in jobs.indices where outputs[i] != solo[i] {
                Issue.record("session \(i) under load: \(outputs[i].debugDescription), alone: \(solo[i].debugDescription)")
            }
            rounds += 1
        } while Date().timeIntervalSince(start) < seconds

        let elapsed = Date().timeIntervalSince(start)
        print(String(format: "load: %d rounds × %d sessions in %.1f s, %d output tokens, %.1f tok/s, peak RSS %d MiB",
                     rounds, jobs.count, elapsed, outputTokens, Double(outputTokens) / elapsed,
                     PeakMemory.residentMiB))
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
