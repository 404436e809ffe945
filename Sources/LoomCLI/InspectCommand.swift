import Engine
import LoomJSON

/// `loom inspect`: the GGUF header, metadata and tensor table of a model file, and for a model
/// Loom runs the bytes of keys and values each position costs in its global and local layers.
enum InspectCommand: LoomCommand {
    static let name = "inspect"
    static let summary = "show a GGUF file's metadata and tensors"
    static let usage = """
        usage: loom inspect [-m MODEL] [--json]
          -m, --model FILE   GGUF file (default: $LOOM_MODEL, then models/default.gguf)
          --kv TYPE          KV element type for the per-token sizes: f16 (default) or f32
          --json             print {"version", "metadata", "tensor_count", "tensors", "total_bytes", "kv_cache"}

        """

    static func run(_ arguments: [String]) async throws {
        let args = try Arguments(arguments, flags: ["json"], options: ["model", "kv"], aliases: ["m": "model"])
        if let extra = args.positionals.first { throw UsageError("unexpected argument '\(extra)'") }
        let file = try GGUFFile(path: args.modelPath)
        let total = file.tensors.reduce(0) { $0 + $1.byteCount }
        let kvName = args.value("kv") ?? "f16"
        guard let kvType = KVCacheType(rawValue: kvName) else { throw UsageError("--kv must be f16 or f32, not '\(kvName)'") }
        // Files Loom cannot run still show their header and tensors.
        let footprint = (try? ModelDescription(file: file)).map { KVFootprint($0, type: kvType) }
        if args.has("json") {
            var metadata = JSONObject()
            for key in file.metadataKeys { metadata[key] = summarized(file.metadata[key]!) }
            let tensors: [JSONValue] = file.tensors.map { t in
                .object(JSONObject([
                    ("name", .string(t.name)), ("type", .string(t.typeName)),
                    ("shape", .array(t.shape.map { .number(JSONNumber($0)) })),
                    ("offset", .number(JSONNumber(t.offset))), ("bytes", .number(JSONNumber(t.byteCount))),
                ]))
            }
            let doc: JSONValue = .object(JSONObject([
                ("version", .number(JSONNumber(Int(file.version)))), ("metadata", .object(metadata)),
                ("tensor_count", .number(JSONNumber(file.tensors.count))), ("tensors", .array(tensors)),
                ("total_bytes", .number(JSONNumber(total))),
                ("kv_cache", footprint.map(json) ?? .null),
            ]))
            StandardOutput.write(doc.serialized() + "\n")
            return
        }
        var out = "GGUF v\(file.version)  \(file.path)\n\nmetadata (\(file.metadataKeys.count) keys):\n"
        for key in file.metadataKeys {
            out += "  \(key) = \(summarized(file.metadata[key]!).serialized())\n"
        }
        out += "\ntensors (\(file.tensors.count)):\n"
        for t in file.tensors {
            out += "  \(t.name.padding(32)) \(t.typeName.padding(6)) \(t.shape)  \(t.byteCount) bytes\n"
        }
        out += "\ntotal tensor bytes: \(total)\n"
        if let f = footprint { out += "\n" + text(f) }
        StandardOutput.write(out)
    }

    /// The KV footprint as `{"type", "global_layers", "local_layers", "sliding_window",
    /// "bytes_per_token_global", "bytes_per_token_local"}`.
    static func json(_ f: KVFootprint) -> JSONValue {
        .object(JSONObject([
            ("type", .string(f.type.rawValue)), ("global_layers", .number(JSONNumber(f.globalLayers))),
            ("local_layers", .number(JSONNumber(f.localLayers))), ("sliding_window", .number(JSONNumber(f.window))),
            ("bytes_per_token_global", .number(JSONNumber(f.globalBytesPerToken))),
            ("bytes_per_token_local", .number(JSONNumber(f.localBytesPerToken))),
        ]))
    }

    /// The KV footprint for people: per token by kind of layer, and what a full context costs.
    static func text(_ f: KVFootprint) -> String {
        var out = "KV cache per token (\(f.type.rawValue)):\n"
        out += "  global layers: \(f.globalLayers) × \(f.bytesPerLayerToken) = \(f.globalBytesPerToken) bytes, every position\n"
        if f.localLayers > 0 {
            out += "  local layers:  \(f.localLayers) × \(f.bytesPerLayerToken) = \(f.localBytesPerToken) bytes, last \(f.window) positions only\n"
        }
        return out
    }

    /// A metadata value as JSON; arrays longer than 16 become `{"type", "count", "head"}`.
    static func summarized(_ value: GGUFValue) -> JSONValue {
        switch value {
        case .array(let type, let items) where items.count > 16:
            return .object(JSONObject([
                ("type", .string(type.name)), ("count", .number(JSONNumber(items.count))),
                ("head", .array(items.prefix(16).map(summarized))),
            ]))
        case .array(_, let items): return .array(items.map(summarized))
        case .string(let s): return .string(s)
        case .bool(let b): return .bool(b)
        case .float32(let f): return .number(JSONNumber(literal: f.isFinite ? "\(f)" : "null"))
        case .float64(let d): return .number(JSONNumber(literal: d.isFinite ? "\(d)" : "null"))
        default: return .number(JSONNumber(value.intValue ?? 0))
        }
    }
}
