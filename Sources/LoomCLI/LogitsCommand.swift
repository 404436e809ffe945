import Engine
import LoomJSON

/// `loom logits`: evaluates token ids and prints each position's top logits (for comparing
/// Loom against the exact references in `../shared/reference`).
enum LogitsCommand: LoomCommand {
    static let name = "logits"
    static let summary = "print the top logits after each of the given token ids"
    static let usage = """
        usage: loom logits [-m MODEL] --ids "1 2 3" [--top K] [--full-last] [--stepwise] [--kv f32|f16|q8_0] [--json]
               loom logits [-m MODEL] --reference FILE [--kv f32|f16|q8_0]
        \(EngineOptions.usage)  --top K            logits per position, sorted descending, ties by lower id (default 8)
          --full-last        also print every logit of the last position
          --stepwise         feed the ids one at a time through the scheduler's decode path (the
                             arithmetic generation uses) instead of one batched evaluation
          --json             {"positions": [{"pos", "input_id", "top_ids", "top_logits", "logsumexp"}],
                              "full_logits_last_position": [...]} (the last key with --full-last)
          --reference FILE   instead: evaluate an exact reference file's ids (../shared/reference/*.json)
                             and print how far the logits are from it: {"positions", "max_abs",
                             "mean_abs", "max_abs_top4", "top1_agreeing", "top1_confident"}

        """

    static func run(_ arguments: [String]) async throws {
        let args = try Arguments(arguments, flags: ["json", "full-last", "stepwise"],
                                 options: EngineOptions.options.union(["top", "reference"]), aliases: EngineOptions.aliases)
        if let extra = args.positionals.first { throw UsageError("unexpected argument '\(extra)'") }
        if let reference = args.value("reference") {
            let model = try Model(path: args.modelPath)
            StandardOutput.write(try deviation(reference: reference, args: args, model: model).json + "\n")
            return
        }
        guard let ids = try EngineOptions.ids(args), !ids.isEmpty else { throw UsageError("--ids is required") }
        let top = try args.int("top", default: 8)
        guard top >= 1 else { throw UsageError("--top must be at least 1") }
        var progress = Progress(json: args.has("json"))
        let model = try progress.during("loading \(args.modelPath)") { try Model(path: args.modelPath) }
        let k = min(top, model.config.vocabularySize)
        let json = args.has("json")

        var out = json ? "{\"positions\": [" : ""
        var last: [Float] = []
        try evaluate(ids, model: model, args: args) { i, row in
            let best = topK(row, k)
            let lse = logsumexp(row)
            if json {
                if i > 0 { out += ", " }
                out += "{\"pos\": \(i), \"input_id\": \(ids[i]), \"top_ids\": [\(best.map { String($0) }.joined(separator: ", "))], "
                out += "\"top_logits\": [\(best.map { EngineOptions.number(row[$0]) }.joined(separator: ", "))], "
                out += "\"logsumexp\": \(EngineOptions.number(lse))}"
            } else {
                out += "pos \(i) id \(ids[i]) logsumexp \(lse):"
                for id in best { out += " \(id)=\(row[id])" }
                out += "\n"
            }
            if i == ids.count - 1 { last = Array(row) }
        }
        if json {
            out += "]"
            if args.has("full-last") {
                out += ", \"full_logits_last_position\": [\(last.map(EngineOptions.number).joined(separator: ", "))]"
            }
            out += "}\n"
        } else if args.has("full-last") {
            out += "last position logits: \(last.map { "\($0)" }.joined(separator: " "))\n"
        }
        StandardOutput.write(out)
    }

    /// Calls `row` with each position's logits: from one batched evaluation of `ids` (the prompt
    /// path), or with `--stepwise` from feeding them one at a time to a `SequentialEngine` (the
    /// decode path, whose fused integer products round differently from the prompt path's float
    /// products by up to a few thousandths of a logit).
    static func evaluate(_ ids: [Int32], model: Model, args: Arguments,
                         row: (Int, UnsafeBufferPointer<Float>) throws -> Void) throws {
        // A scheduler's sequence needs room for a few blocks, however short the ids are.
        let stepwise = args.has("stepwise")
        let configuration = try EngineOptions.configuration(args, positions: stepwise ? max(ids.count, 64) : ids.count)
        if stepwise {
            let engine = try SequentialEngine(model: model, configuration: configuration)
            try engine.prefill([ids[0]], reusePrefix: false)
            try row(0, engine.logits)
            for i in 1..<ids.count { try row(i, try engine.step(ids[i])) }
            return
        }
        let transformer = try Transformer(model: model, configuration: configuration)
        try transformer.evaluateAll(ids, cache: try transformer.makeCache(), row)
    }

    /// The `k` largest entries' indices, descending, lower index first among equal values.
    static func topK(_ row: UnsafeBufferPointer<Float>, _ k: Int) -> [Int] {
        var best: [Int] = []
        best.reserveCapacity(k + 1)
        func before(_ a: Int, _ b: Int) -> Bool { row[a] > row[b] || (row[a] == row[b] && a < b) }
        for i in row.indices {
            if best.count == k, !before(i, best[k - 1]) { continue }
            var at = best.count
            while at > 0, before(i, best[at - 1]) { at -= 1 }
            best.insert(i, at: at)
            if best.count > k { best.removeLast() }
        }
        return best
    }

    /// log Σ exp(row), accumulated in float64.
    static func logsumexp(_ row: UnsafeBufferPointer<Float>) -> Float {
        let m = Double(row.max() ?? 0)
        var s = 0.0
        for v in row { s += exp(Double(v) - m) }
        return Float(m + log(s))
    }
}

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
