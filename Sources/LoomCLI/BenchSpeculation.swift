import Foundation
import LocalBackend
import LoomJSON
import Provider

/// `loom bench --speculate --task extract|rewrite|free`: each prompt of the task's file (in
/// `Benchmarks/speculation/`) answered greedily through `LanguageModelSession` and
/// `LocalLanguageModel` — the path users run, guided when the prompt has a schema — once with
/// prompt-lookup speculation and once without, alternating which goes first; decode tok/s
/// after the first token, how many proposed tokens were confirmed, and whether both answers
/// are the same text (they must be).
enum BenchSpeculation {
    /// One prompt of a task file.
    struct Prompt {
        let instructions: String
        let text: String
        let schema: GenerationSchema?
        let maximumTokens: Int
    }

    /// The prompts of `task`, from `path` or `Benchmarks/speculation/<task>.json` (found from
    /// the working directory, then from the executable's package).
    static func prompts(task: String, path: String?) throws -> [Prompt] {
        let file = try path ?? locate("Benchmarks/speculation/\(task).json")
        let document = try JSONValue(parsing: FileInput.text(file))
        guard let items = document.objectValue?["prompts"]?.arrayValue, !items.isEmpty else {
            throw RuntimeError("\(file): no \"prompts\" array")
        }
        return try items.map { item in
            guard let o = item.objectValue, let text = o["prompt"]?.stringValue else {
                throw RuntimeError("\(file): every prompt needs a \"prompt\" string")
            }
            return Prompt(instructions: o["instructions"]?.stringValue ?? "", text: text,
                          schema: try o["schema"].map { try GenerationSchema(jsonSchema: $0) },
                          maximumTokens: o["max_tokens"]?.intValue ?? 256)
        }
    }

    private static func locate(_ relative: String) throws -> String {
        let here = FileManager.default.currentDirectoryPath + "/" + relative
        if FileManager.default.fileExists(atPath: here) { return here }
        // .build/<configuration>/loom → the package root three levels up.
        let executable = URL(fileURLWithPath: CommandLine.arguments[0]).resolvingSymlinksInPath()
        let root = executable.deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        let beside = root.appendingPathComponent(relative).path
        if FileManager.default.fileExists(atPath: beside) { return beside }
        throw RuntimeError("cannot find \(relative) (run from the package root, or give --prompts FILE)")
    }

    /// One answer's figures.
    struct Answer {
        let text: String
        let tokensPerSecond: Double
        let proposed: Int, accepted: Int, runs: Int
    }

    static func answer(_ prompt: Prompt, model: LocalLanguageModel) async throws -> Answer {
        let session = LanguageModelSession(model: model, instructions: prompt.instructions)
        let options = GenerationOptions(samplingMode: .greedy, maximumResponseTokens: prompt.maximumTokens)
        let text: String
        let entries: ArraySlice<Transcript.Entry>
        if let schema = prompt.schema {
            let r = try await session.respond(to: prompt.text, schema: schema, includeSchemaInPrompt: true, options: options)
            (text, entries) = (r.rawContent.jsonString, r.transcriptEntries)
        } else {
            let r = try await session.respond(to: prompt.text, options: options)
            (text, entries) = (r.content, r.transcriptEntries)
        }
        let figures = ResponseFigures(entries)
        guard let rate = figures.local.tokensPerSecond, rate > 0 else {
            throw RuntimeError("speculation bench: an answer too short to time (under two tokens)")
        }
        return Answer(text: text, tokensPerSecond: rate, proposed: figures.local.proposedTokens ?? 0,
                      accepted: figures.local.acceptedTokens ?? 0, runs: figures.local.speculativeRuns ?? 0)
    }

    static func run(modelPath: String, file: String, task: String, promptsPath: String?, threads: Int, reps: Int,
                    limit: Int, json: Bool) async throws {
        let prompts = try prompts(task: task, path: promptsPath)
        let context = 2048
        var on = LocalLanguageModel(path: modelPath, variant: .automatic, contextSize: context, threads: threads)
        on.speculationLimit = limit
        var off = on
        off.speculationLimit = 0
        // Warm-up: load both runtimes and compile the schemas once.
        for p in prompts.prefix(1) {
            _ = try await answer(p, model: on)
            _ = try await answer(p, model: off)
        }
        var rateOn: [Double] = [], rateOff: [Double] = []
        var proposed = 0, accepted = 0, runs = 0
        var identical = true
        for rep in 0..<reps {
            for p in prompts {
                let first = rep % 2 == 0
                let a = try await answer(p, model: first ? on : off)
                let b = try await answer(p, model: first ? off : on)
                let (withIt, without) = first ? (a, b) : (b, a)
                rateOn.append(withIt.tokensPerSecond)
                rateOff.append(without.tokensPerSecond)
                proposed += withIt.proposed
                accepted += withIt.accepted
                runs += withIt.runs
                if withIt.text != without.text { identical = false }
            }
        }
        let speedup = BenchModel.median(rateOn) / BenchModel.median(rateOff)
        let acceptance = proposed > 0 ? Double(accepted) / Double(proposed) : 0
        let meanRun = runs > 0 ? Double(accepted) / Double(runs) : 0
        if json {
            let report = JSONValue.object(JSONObject([
                ("model", .string(file)), ("threads", .number(JSONNumber(threads))),
                ("speculation", .object(JSONObject([
                    ("task", .string(task)), ("prompts", .number(JSONNumber(prompts.count))),
                    ("reps", .number(JSONNumber(reps))), ("max_run", .number(JSONNumber(limit))),
                    ("tok_s_off", BenchModel.stats(rateOff)), ("tok_s_on", BenchModel.stats(rateOn)),
                    ("speedup", .number(JSONNumber(speedup))),
                    ("acceptance_rate", .number(JSONNumber(acceptance))),
                    ("mean_accepted_run", .number(JSONNumber(meanRun))),
                    ("identical", .bool(identical)),
                ]))),
            ]))
            StandardOutput.write(report.serialized() + "\n")
        } else {
            StandardOutput.write(String(format: """
                %@, %d threads, task %@ (%d prompts × %d reps, greedy)
                  without speculation  %.1f tok/s
                  with speculation     %.1f tok/s   (%.2fx)
                  accepted %d of %d proposed tokens (%.0f%%), %.2f per verified run; outputs %@

                """, file, threads, task, prompts.count, reps, BenchModel.median(rateOff), BenchModel.median(rateOn), speedup, accepted,
                proposed, acceptance * 100, meanRun, identical ? "identical" : "DIFFER"))
        }
        if !identical { throw RuntimeError("speculation changed an output: the answers with and without it differ") }
    }
}
