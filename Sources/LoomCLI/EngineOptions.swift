import Engine

/// Options shared by the commands that run a model (`logits`, `generate`).
enum EngineOptions {
    /// Option names these commands accept, for `Arguments`.
    static let options: Set<String> = ["model", "ids", "kv", "threads", "context"]
    static let aliases = ["m": "model", "t": "threads", "c": "context", "ctx": "context"]
    static let usage = """
          -m, --model FILE   GGUF file (default: $LOOM_MODEL, then models/default.gguf)
          --ids "1 2 3"      token ids (space- or comma-separated), evaluated as given (no BOS)
          --kv f32|f16       KV cache element type (default f32: exact)
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
        let kv: KVCacheType
        switch args.value("kv") ?? "f32" {
        case "f32": kv = .f32
        case "f16": kv = .f16
        case let other: throw UsageError("--kv must be f32 or f16, got '\(other)'")
        }
        let threads = try args.int("threads", default: 2)
        guard threads >= 1 else { throw UsageError("--threads must be at least 1") }
        let context = try args.int("context") ?? max(positions, 1)
        guard context >= 1 else { throw UsageError("--context must be positive") }
        return TransformerConfiguration(threads: threads, contextLength: context, kvCacheType: kv)
    }

    /// A float as JSON, at full precision (shortest text that reads back as the same Float).
    static func number(_ f: Float) -> String { f.isFinite ? "\(f)" : "null" }
}
