import Engine
import Foundation

/// One `../shared/reference/*.json` file: exact float64 logits made by `reference_forward.py`.
struct ReferenceVectors {
    struct Position {
        let inputID: Int
        let topIDs: [Int]
        let topLogits: [Double]
        let logsumexp: Double
    }

    let name: String
    let modelPath: String
    let promptIDs: [Int]
    let generatedIDs: [Int]
    let allIDs: [Int]
    let positions: [Position]
    let fullLastLogits: [Double]
    /// llama.cpp's deviation from the same reference (the accuracy bar).
    let llamaMaxAbs: Double
    let llamaMeanAbs: Double
    let llamaMaxAbsTop4: Double
    let llamaTop1Agreement: Double

    /// Reads `reference/<name>.json`; the model is `models/fixtures/<name>.gguf`,
    /// `models/<name>.gguf`, or the default model for the SmolLM2 reference.
    init(_ name: String) throws {
        self.name = name
        let data = try Data(contentsOf: URL(fileURLWithPath: SharedData.path("reference/\(name).json")))
        let json = try JSONSerialization.jsonObject(with: data) as! [String: Any]
        if name.hasPrefix("synth-") {
            modelPath = SharedData.path("models/fixtures/\(name).gguf")
        } else if name.hasPrefix("smollm2") {
            modelPath = SharedData.defaultModel
        } else if name.hasPrefix("gemma3-270m") {
            modelPath = SharedData.gemma3Model
        } else {
            modelPath = SharedData.path("models/\(name).gguf")
        }
        func ints(_ any: Any?) -> [Int] { (any as? [Any] ?? []).map { ($0 as! NSNumber).intValue } }
        func doubles(_ any: Any?) -> [Double] { (any as? [Any] ?? []).map { ($0 as! NSNumber).doubleValue } }
        promptIDs = ints(json["prompt_ids"])
        generatedIDs = ints(json["generated_ids"])
        allIDs = ints(json["all_ids"])
        positions = (json["positions"] as! [[String: Any]]).map {
            Position(inputID: ($0["input_id"] as! NSNumber).intValue, topIDs: ints($0["top_ids"]),
                     topLogits: doubles($0["top_logits"]), logsumexp: ($0["logsumexp"] as! NSNumber).doubleValue)
        }
        fullLastLogits = doubles(json["full_logits_last_position"])
        let dev = json["llamacpp_deviation"] as! [String: Any]
        llamaMaxAbs = (dev["llamacpp_max_abs_diff"] as! NSNumber).doubleValue
        llamaMeanAbs = (dev["llamacpp_mean_abs_diff"] as! NSNumber).doubleValue
        llamaMaxAbsTop4 = (dev["llamacpp_max_abs_diff_top4"] as! NSNumber).doubleValue
        llamaTop1Agreement = (dev["llamacpp_top1_agreement_confident"] as! NSNumber).doubleValue
    }

    /// How far an engine's logits are from these.
    struct Deviation: CustomStringConvertible {
        /// Over every reference top-K logit of every position and the full last row.
        var maxAbs = 0.0
        var meanAbs = 0.0
        /// Over each position's reference top-4 ids.
        var maxAbsTop4 = 0.0
        var maxLogsumexp = 0.0
        var confident = 0
        var agreeing = 0
        var top1Agreement: Double { confident == 0 ? 1 : Double(agreeing) / Double(confident) }
        var description: String {
            "max \(maxAbs) mean \(meanAbs) top4 \(maxAbsTop4) lse \(maxLogsumexp) top-1 \(agreeing)/\(confident)"
        }
    }

    /// Runs `allIDs` through a fresh transformer and compares every position.
    func measure(configuration: TransformerConfiguration = TransformerConfiguration()) throws -> Deviation {
        let model = try Model(path: modelPath)
        var config = configuration
        config.contextLength = max(allIDs.count, 8)
        let transformer = try Transformer(model: model, configuration: config)
        let cache = try transformer.makeCache()
        var d = Deviation()
        var sum = 0.0, terms = 0
        let ids = allIDs.map { Int32($0) }
        try transformer.evaluateAll(ids, cache: cache) { i, logits in
            let row = Array(logits)
            let ref = positions[i]
            for (k, (id, value)) in zip(ref.topIDs, ref.topLogits).enumerated() {
                let delta = abs(Double(row[id]) - value)
                d.maxAbs = max(d.maxAbs, delta)
                if k < 4 { d.maxAbsTop4 = max(d.maxAbsTop4, delta) }
                sum += delta; terms += 1
            }
            let m = Double(row.max()!)
            let lse = m + log(row.reduce(0.0) { $0 + exp(Double($1) - m) })
            d.maxLogsumexp = max(d.maxLogsumexp, abs(lse - ref.logsumexp))
            if ref.topLogits.count > 1, ref.topLogits[0] - ref.topLogits[1] > 0.05 {
                d.confident += 1
                let argmax = row.indices.max { row[$0] < row[$1] || (row[$0] == row[$1] && $0 > $1) }!
                if argmax == ref.topIDs[0] { d.agreeing += 1 }
            }
            if i == ids.count - 1 {
                for (id, value) in fullLastLogits.enumerated() {
                    let delta = abs(Double(row[id]) - value)
                    d.maxAbs = max(d.maxAbs, delta)
                    sum += delta; terms += 1
                }
            }
        }
        d.meanAbs = sum / Double(max(terms, 1))
        return d
    }
}
