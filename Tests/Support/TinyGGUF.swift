import Foundation

/// Writes small GGUF v3 files for loader tests: a metadata list and F32 tensors filled with a
/// deterministic pattern. Enough to build valid and deliberately broken models of every
/// architecture Loom runs.
public struct TinyGGUF {
    /// A metadata value of one of the GGUF types the loader tests need.
    public enum Value: Sendable {
        case u32(UInt32), i32(Int32), f32(Float), string(String), bool(Bool), strings([String]), bools([Bool])
    }

    /// Metadata in file order.
    public var metadata: [(String, Value)] = []
    /// Tensors in file order, all F32.
    public var tensors: [(name: String, shape: [Int])] = []
    /// Tensors filled with one value instead of the pattern.
    public var constants: [String: Float] = [:]

    /// An empty file: no metadata, no tensors.
    public init() {}

    /// The value of a metadata key; setting nil removes it.
    public subscript(key: String) -> Value? {
        get { metadata.first { $0.0 == key }?.1 }
        set {
            metadata.removeAll { $0.0 == key }
            if let newValue { metadata.append((key, newValue)) }
        }
    }

    /// Drops a tensor.
    public mutating func removeTensor(_ name: String) { tensors.removeAll { $0.name == name } }
    /// Changes a tensor's shape.
    public mutating func setShape(_ name: String, _ shape: [Int]) {
        if let i = tensors.firstIndex(where: { $0.name == name }) { tensors[i].shape = shape }
    }

    /// A 1- or 2-block llama-style model: dim 8, 2 heads, 1 KV head, FFN 16, vocabulary 4.
    public static func llama(blocks: Int = 1, architecture: String = "llama", bias: Bool = false) -> TinyGGUF {
        var g = TinyGGUF()
        let a = architecture
        g["general.architecture"] = .string(a)
        g["\(a).embedding_length"] = .u32(8)
        g["\(a).block_count"] = .u32(UInt32(blocks))
        g["\(a).feed_forward_length"] = .u32(16)
        g["\(a).attention.head_count"] = .u32(2)
        g["\(a).attention.head_count_kv"] = .u32(1)
        g["\(a).context_length"] = .u32(32)
        g["\(a).attention.layer_norm_rms_epsilon"] = .f32(1e-5)
        g["tokenizer.ggml.tokens"] = .strings(["<unk>", "<s>", "</s>", "a"])
        g["tokenizer.ggml.bos_token_id"] = .u32(1)
        g["tokenizer.ggml.eos_token_id"] = .u32(2)
        g.tensors = [("token_embd.weight", [8, 4]), ("output_norm.weight", [8])]
        for b in 0..<blocks {
            let p = "blk.\(b)."
            g.tensors += [(p + "attn_norm.weight", [8]), (p + "attn_q.weight", [8, 8]), (p + "attn_k.weight", [8, 4]),
                          (p + "attn_v.weight", [8, 4]), (p + "attn_output.weight", [8, 8]), (p + "ffn_norm.weight", [8]),
                          (p + "ffn_gate.weight", [8, 16]), (p + "ffn_up.weight", [8, 16]), (p + "ffn_down.weight", [16, 8])]
            if bias { g.tensors += [(p + "attn_q.bias", [8]), (p + "attn_k.bias", [4]), (p + "attn_v.bias", [4])] }
        }
        return g
    }

    /// A gemma3-style model on `llama`'s geometry: per-head Q/K norms, post-branch norms,
    /// head dimension 4 as `key_length`, and a sliding window of 2 positions.
    public static func gemma3(blocks: Int = 6) -> TinyGGUF {
        var g = llama(blocks: blocks, architecture: "gemma3")
        g["gemma3.attention.key_length"] = .u32(4)
        g["gemma3.attention.value_length"] = .u32(4)
        g["gemma3.attention.sliding_window"] = .u32(2)
        for b in 0..<blocks {
            let p = "blk.\(b)."
            g.tensors += [(p + "attn_q_norm.weight", [4]), (p + "attn_k_norm.weight", [4]),
                          (p + "post_attention_norm.weight", [8]), (p + "post_ffw_norm.weight", [8])]
        }
        return g
    }

    /// Serialises to GGUF v3 bytes.
    public func bytes() -> [UInt8] {
        var out: [UInt8] = []
        func u32(_ v: UInt32) { withUnsafeBytes(of: v.littleEndian) { out += $0 } }
        func u64(_ v: UInt64) { withUnsafeBytes(of: v.littleEndian) { out += $0 } }
        func str(_ s: String) { u64(UInt64(s.utf8.count)); out += Array(s.utf8) }
        u32(0x4655_4747); u32(3); u64(UInt64(tensors.count)); u64(UInt64(metadata.count))
        for (key, value) in metadata {
            str(key)
            switch value {
            case .u32(let v): u32(4); u32(v)
            case .i32(let v): u32(5); u32(UInt32(bitPattern: v))
            case .f32(let v): u32(6); u32(v.bitPattern)
            case .bool(let v): u32(7); out.append(v ? 1 : 0)
            case .string(let s): u32(8); str(s)
            case .strings(let list): u32(9); u32(8); u64(UInt64(list.count)); list.forEach(str)
            case .bools(let list): u32(9); u32(7); u64(UInt64(list.count)); out += list.map { $0 ? 1 : 0 }
            }
        }
        var offset = 0
        for t in tensors {
            str(t.name); u32(UInt32(t.shape.count)); t.shape.forEach { u64(UInt64($0)) }
            u32(0); u64(UInt64(offset))
            offset += (t.shape.reduce(1, *) * 4 + 31) / 32 * 32
        }
        while out.count % 32 != 0 { out.append(0) }
        for (n, t) in tensors.enumerated() {
            let count = t.shape.reduce(1, *)
            for i in 0..<count {
                // Norm gains near 1, weights small and varied.
                let v: Float = constants[t.name]
                    ?? (t.shape.count == 1 ? 1 + Float(i % 3) * 0.1 : Float((i * 7 + n * 3) % 11 - 5) * 0.05)
                u32(v.bitPattern)
            }
            while out.count % 32 != 0 { out.append(0) }
        }
        return out
    }

    /// Writes the file and returns its path.
    public func write() throws -> String { try SharedData.temporaryFile(bytes: bytes()) }
}
