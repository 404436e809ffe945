import Engine

/// Index of the largest logit (lowest index on ties), as greedy decoding picks.
func argmax(_ logits: UnsafeBufferPointer<Float>) -> Int {
    var best = 0
    for i in 1..<logits.count where logits[i] > logits[best] { best = i }
    return best
}

/// Greedy continuation of `prompt` for `steps` tokens, stopping after any id in `stop`.
func greedyDecode(_ transformer: Transformer, prompt: [Int], steps: Int, stop: Set<Int> = []) throws -> [Int] {
    let cache = try transformer.makeCache()
    var logits = try transformer.evaluate(prompt.map { Int32($0) }, cache: cache)
    var out: [Int] = []
    for _ in 0..<steps {
        let next = argmax(logits)
        out.append(next)
        if stop.contains(next) { break }
        logits = try transformer.decode(Int32(next), cache: cache)
    }
    return out
}
