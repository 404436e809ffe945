import Engine
import Foundation

extension LogitsCommand {
    /// How far Loom's logits are from an exact reference file (`../shared/reference/*.json`),
    /// measured as the reference README defines it: |Δlogit| over each position's reference
    /// top-K ids and the whole last row, and top-1 agreement on positions whose reference top-2
    /// margin exceeds 0.05 (where a flip is not a tie).
    struct ReferenceDeviation {
        var maxAbs = 0.0, meanAbs = 0.0, maxAbsTop4 = 0.0
        var confident = 0, agreeing = 0, positions = 0

        /// The deviation as one JSON object.
        var json: String {
            "{\"positions\": \(positions), \"max_abs\": \(maxAbs), \"mean_abs\": \(meanAbs), "
                + "\"max_abs_top4\": \(maxAbsTop4), \"top1_agreeing\": \(agreeing), \"top1_confident\": \(confident)}"
        }
    }

    /// The reference's token ids (`all_ids`) evaluated with `args`' engine settings, compared
    /// position by position.
    static func deviation(reference path: String, args: Arguments, model: Model) throws -> ReferenceDeviation {
        let data = try Data(contentsOf: URL(fileURLWithPath: path))
        guard let json = try JSONSerialization.jsonObject(with: data) as? [String: Any],
              let ids = (json["all_ids"] as? [NSNumber])?.map({ $0.int32Value }),
              let positions = json["positions"] as? [[String: Any]], positions.count == ids.count
        else { throw UsageError("\(path) is not a reference file (all_ids and positions)") }
        let last = (json["full_logits_last_position"] as? [NSNumber])?.map(\.doubleValue) ?? []
        // Sized as the reference tests size it (their context: the ids, at least 8).
        let transformer = try EngineOptions.transformer(args, model: model, positions: max(ids.count, 8))
        let cache = try transformer.makeCache()
        var d = ReferenceDeviation()
        d.positions = ids.count
        var sum = 0.0, terms = 0
        try transformer.evaluateAll(ids, cache: cache) { i, row in
            let topIDs = (positions[i]["top_ids"] as? [NSNumber])?.map(\.intValue) ?? []
            let topLogits = (positions[i]["top_logits"] as? [NSNumber])?.map(\.doubleValue) ?? []
            for (k, (id, value)) in zip(topIDs, topLogits).enumerated() {
                let delta = abs(Double(row[id]) - value)
                d.maxAbs = max(d.maxAbs, delta)
                if k < 4 { d.maxAbsTop4 = max(d.maxAbsTop4, delta) }
                sum += delta
                terms += 1
            }
            if topLogits.count > 1, topLogits[0] - topLogits[1] > 0.05 {
                d.confident += 1
                if topK(row, 1).first == topIDs[0] { d.agreeing += 1 }
            }
            if i == ids.count - 1 {
                for (id, value) in last.enumerated() where id < row.count {
                    let delta = abs(Double(row[id]) - value)
                    d.maxAbs = max(d.maxAbs, delta)
                    sum += delta
                    terms += 1
                }
            }
        }
        d.meanAbs = sum / Double(max(terms, 1))
        return d
    }
}
