/// GGUF tensor names (llama.cpp's `LLM_TENSOR_*` spellings, shared by every architecture).
enum TensorName {
    static let tokenEmbedding = "token_embd.weight"
    static let outputNorm = "output_norm.weight"
    static let output = "output.weight"
    static let ropeFrequencies = "rope_freqs.weight"
    static let ropeFactorsLong = "rope_factors_long.weight"
    static let ropeFactorsShort = "rope_factors_short.weight"

    /// A per-block tensor, e.g. `block(3, "attn_q.weight")` = `blk.3.attn_q.weight`.
    static func block(_ index: Int, _ suffix: String) -> String { "blk.\(index).\(suffix)" }

    static let attentionNorm = "attn_norm.weight"
    static let query = "attn_q.weight"
    static let key = "attn_k.weight"
    static let value = "attn_v.weight"
    static let queryKeyValue = "attn_qkv.weight"
    static let queryNorm = "attn_q_norm.weight"
    static let keyNorm = "attn_k_norm.weight"
    static let postAttentionNorm = "post_attention_norm.weight"
    static let postFFNNorm = "post_ffw_norm.weight"
    static let queryBias = "attn_q.bias"
    static let keyBias = "attn_k.bias"
    static let valueBias = "attn_v.bias"
    static let attentionOutput = "attn_output.weight"
    static let ffnNorm = "ffn_norm.weight"
    static let ffnGate = "ffn_gate.weight"
    static let ffnUp = "ffn_up.weight"
    static let ffnDown = "ffn_down.weight"
}
