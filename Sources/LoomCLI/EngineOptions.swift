import Engine

/// Options shared by the commands that run a model (`logits`, `generate`).
enum EngineOptions {
    /// Option names these commands accept, for `Arguments`.
    static let options: Set<String> = ["model", "ids", "kv", "threads", "context"]
    static let aliases = ["m": "model", "t": "threads", "c": "context", "ctx": "context"]
    static let usage = """
          -m, --model FILE   GGUF file (default: $LOOM_MODEL, then models/default.gguf)
          --ids "1 2 3"      token ids (space- or comma-separated), evaluated as given (no BOS)
          --kv f32|f16|q8_0  KV cache element type (default f32: exact)
          -t, --threads N    kernel threads (default 2)
          -c, --context N    KV cache positions (default: enough for the run; --ctx also accepted)

        """

    /// Parses `--ids`.
    static func ids(_ args: Arguments) throws(UsageError) -> [Int32]? {
        guard let raw = args.value("ids") else { return nil }
        var out: [Int32] = []
        for part in raw.split(whereSeparator: { $0 == " " || $0 == "," || $0 == "\n" || $0 == "\t" }) {
            guard let v = Int32(part) else { throw UsageError("--ids: '\(part)' is not a token id") }
            out.append(v)
        }
        return out
    }

    /// Builds a transformer with room for `positions` tokens (or `--context`).
    static func transformer(_ args: Arguments, model: Model, positions: Int) throws -> Transformer {
        try Transformer(model: model, configuration: configuration(args, positions: positions))
    }

    /// The engine settings of `args`: `--kv`, `-t`, `--context` (default: `positions`).
    static func configuration(_ args: Arguments, positions: Int) throws -> TransformerConfiguration {
        let kv = try kvCacheType(args, default: .f32)
        let threads = try args.int("threads", default: 2)
        guard threads >= 1 else { throw UsageError("--threads must be at least 1") }
        let context = try args.int("context") ?? max(positions, 1)
        guard context >= 1 else { throw UsageError("--context must be positive") }
        return TransformerConfiguration(threads: threads, contextLength: context, kvCacheType: kv)
    }

    /// `--kv`: a `KVCacheType` raw value (`f32`, `f16`, `q8_0`), or `fallback` when absent.
    static func kvCacheType(_ args: Arguments, default fallback: KVCacheType) throws(UsageError) -> KVCacheType {
        guard let raw = args.value("kv") else { return fallback }
        guard let kv = KVCacheType(rawValue: raw) else {
            throw UsageError("--kv must be one of \(KVCacheType.allCases.map(\.rawValue).joined(separator: ", ")), got '\(raw)'")
        }
        return kv
    }

    /// A float as JSON, at full precision (shortest text that reads back as the same Float).
    static func number(_ f: Float) -> String { f.isFinite ? "\(f)" : "null" }
}
