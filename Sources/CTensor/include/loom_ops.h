// loom_ops.h — the non-matmul operations of a transformer forward pass.
//
// Every op works on caller-owned F32 buffers, never allocates, and dispatches at run time to the
// tier `loom_isa_active()` reports (scalar, AVX2+FMA, AVX-512). Reductions that decide accuracy
// (norm sums of squares, softmax sums) accumulate in double; per-element products in F32 with FMA.
// In-place use is allowed where a parameter says "may alias".
#ifndef LOOM_OPS_H
#define LOOM_OPS_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

// MARK: - Normalisation (ops_norm.c)

/// y = x / sqrt(mean(x²) + eps) * w (w may be NULL: no weight). y may alias x.
void loom_rmsnorm(float *y, const float *x, const float *w, int64_t n, float eps);

/// y = (x - mean) / sqrt(var + eps) * w + b (w, b may be NULL). y may alias x.
void loom_layernorm(float *y, const float *x, const float *w, const float *b, int64_t n, float eps);

// MARK: - Rotary position embedding (ops_rope.c)

/// How a head's dimensions pair up for rotation.
typedef enum loom_rope_layout {
    /// llama/GPT-J style: pairs are adjacent elements (x[2i], x[2i+1]).
    LOOM_ROPE_ADJACENT = 0,
    /// NeoX style (Qwen, Phi, Gemma, …): pairs are (x[i], x[i + n_dims/2]).
    LOOM_ROPE_NEOX = 2,
} loom_rope_layout;

/// Parameters of a rotary embedding. Pair i rotates by angle
/// pos * freq_scale * freq_base^(-2i/n_dims) / freq_factors[i].
typedef struct loom_rope_params {
    /// Leading dimensions of each head that rotate (even, <= head_dim); the rest pass through.
    int32_t n_dims;
    /// A `loom_rope_layout` value.
    int32_t layout;
    /// θ base (10000 for llama 1/2, 500000 for llama 3, …).
    float freq_base;
    /// Linear position scaling (1 = none; 1/k for "linear" context extension by k).
    float freq_scale;
    /// Optional per-pair divisors (n_dims/2 entries, GGUF `rope_freqs`), or NULL.
    const float *freq_factors;
} loom_rope_params;

/// Rotates `x` in place: n_tokens tokens, each `n_heads` heads of `head_dim` floats, token t at
/// x + t * token_stride (token_stride 0 means n_heads * head_dim), using positions[t].
/// Angles are computed in double, so results do not depend on the token count or order.
/// Returns 0, or -1 when n_dims is odd, non-positive, above head_dim or above 2048.
int loom_rope(float *x, int64_t n_tokens, int64_t n_heads, int64_t head_dim, int64_t token_stride,
               const int32_t *positions, const loom_rope_params *params);

/// Floats of a rotation table for n_tokens tokens: n_tokens * n_dims (a cos, sin pair per
/// rotated pair).
size_t loom_rope_cache_floats(int64_t n_tokens, const loom_rope_params *params);

/// Fills `cache` (loom_rope_cache_floats floats) with cos/sin of every token's angles. Angles
/// depend only on positions and params, so one table serves every layer's Q and K of a batch.
/// Returns 0 or -1 (invalid n_dims).
int loom_rope_cache_fill(float *cache, int64_t n_tokens, const int32_t *positions,
                          const loom_rope_params *params);

/// As loom_rope, with the angles taken from a table made by loom_rope_cache_fill for the same
/// tokens and params. Returns 0 or -1 (invalid dimensions).
int loom_rope_cached(float *x, int64_t n_tokens, int64_t n_heads, int64_t head_dim, int64_t token_stride,
                      const float *cache, const loom_rope_params *params);

// MARK: - Softmax (ops_softmax.c)

/// Numerically stable softmax of x[0..n) in place (max subtracted first). Entries at -inf get
/// probability 0; a row with no finite entry becomes all zeros.
void loom_softmax(float *x, int64_t n);

// MARK: - Element-wise (ops_activation.c)

/// y = x * sigmoid(x). y may alias x.
void loom_silu(float *y, const float *x, int64_t n);
/// y = GELU(x) with the tanh approximation (ggml's GELU). y may alias x.
void loom_gelu(float *y, const float *x, int64_t n);
/// y = GELU(x) = x/2 * (1 + erf(x/√2)) exactly (erf form). y may alias x.
void loom_gelu_erf(float *y, const float *x, int64_t n);
/// y = silu(gate) * up. y may alias gate or up.
void loom_swiglu(float *y, const float *gate, const float *up, int64_t n);
/// y = gelu(gate) * up (tanh approximation; GeGLU). y may alias gate or up.
void loom_geglu(float *y, const float *gate, const float *up, int64_t n);
/// y = cap * tanh(x / cap) (logit soft-capping). y may alias x.
void loom_softcap(float *y, const float *x, float cap, int64_t n);
/// y = a + b (residual connection). y may alias a or b.
void loom_add(float *y, const float *a, const float *b, int64_t n);
/// y = a * b element-wise. y may alias a or b.
void loom_mul(float *y, const float *a, const float *b, int64_t n);
/// x *= s in place.
void loom_scale(float *x, float s, int64_t n);

// MARK: - Half-precision rows (ops_convert.c)

/// dst[i] = F16(src[i]) with round-to-nearest-even (bit-identical to loom_fp32_to_fp16), e.g.
/// to append K/V rows to an F16 cache.
void loom_fp32_to_fp16_row(uint16_t *dst, const float *src, int64_t n);
/// dst[i] = F32(src[i]), exact.
void loom_fp16_to_fp32_row(float *dst, const uint16_t *src, int64_t n);

// MARK: - KV cache rows (kv_quant.c)

/// Bytes of one KV row of `n` elements of `kv_type`: 4n for LOOM_TYPE_F32, 2n for LOOM_TYPE_F16,
/// 34 per 32 elements for LOOM_TYPE_Q8_0 (ggml's block: an F16 scale, then 32 int8). 0 when the
/// type is not a KV type or `n` is not a whole number of its blocks.
int64_t loom_kv_row_bytes(int32_t kv_type, int64_t n);

/// Writes `n` F32 values into a KV row of `kv_type` at `dst` (loom_kv_row_bytes(kv_type, n)
/// bytes): copied, rounded to F16 (nearest even), or quantized to Q8_0 blocks (per 32 values:
/// d = max|x| / 127 rounded to F16, q = round(x / d) half away from zero, computed with the
/// unrounded d as ggml does). Every tier writes bit-identical bytes. Returns 0, or -1 when
/// loom_kv_row_bytes(kv_type, n) is 0.
int loom_kv_store_row(int32_t kv_type, void *dst, const float *src, int64_t n);

/// Q8_0 quantization of `n` values (a multiple of 32) at a given tier (tests compare tiers).
void loom_kv_quantize_q8_0_isa(int isa, void *dst, const float *src, int64_t n);

// MARK: - Attention over a KV cache (ops_attention.c)

/// One layer's KV cache and head geometry.
///
/// Layout: K and V are each [ctx][kv_stride] elements of `kv_type` (F32, F16 or Q8_0),
/// position-major; KV head j of position p starts at element p * kv_stride + j * head_dim. A row
/// takes loom_kv_row_bytes(kv_type, kv_stride) bytes; with Q8_0, head_dim and kv_stride must be
/// multiples of 32, so every head is whole blocks, and the kernels dequantize inside the q·k
/// products and the value accumulation. kv_stride is usually n_kv_head * head_dim. Query head h
/// reads KV head h / (n_head / n_kv_head) (grouped-query attention; n_head must be a multiple
/// of n_kv_head).
///
/// Paged layout: when block_table is not NULL, k and v are pools of blocks of block_size rows,
/// and logical position p of the sequence lives at row block_table[p / block_size] * block_size
/// + p % block_size. Results are bit-identical to the contiguous layout holding the same rows.
typedef struct loom_attention_desc {
    int64_t n_head;
    int64_t n_kv_head;
    int64_t head_dim;
    /// LOOM_TYPE_F32 (0), LOOM_TYPE_F16 (1) or LOOM_TYPE_Q8_0 (8).
    int32_t kv_type;
    int64_t kv_stride;
    const void *k;
    const void *v;
    /// Multiplier on q·k (usually 1/sqrt(head_dim)).
    float scale;
    /// Physical block of each logical block of positions, or NULL for the contiguous layout.
    const int32_t *block_table;
    /// Rows per block (used only with block_table).
    int64_t block_size;
    /// Sliding window: a query at position p sees keys at positions p - window < pos <= p
    /// (p - pos < window). 0: every earlier position (plain causal attention).
    int64_t window;
} loom_attention_desc;

/// Scratch floats `loom_attention` needs for a query that sees `n_kv` positions.
size_t loom_attention_scratch_floats(const loom_attention_desc *d, int64_t n_kv);

/// Causal attention of one query token at position n_kv - 1 over KV positions [0, n_kv) (the
/// last `window` of them when the desc has a window), for query heads
/// [h_begin, h_end). q points at the token's query (head h at q + h * head_dim); out likewise.
/// Scores are q·k * scale, softmaxed in F32 with a double sum, then out = Σ p_t v_t in F32.
/// scratch holds at least loom_attention_scratch_floats(d, n_kv) floats.
/// Returns 0, or -1 for invalid arguments (bad type, n_head not a multiple of n_kv_head, …).
int loom_attention(const loom_attention_desc *d, const float *q, float *out, int64_t n_kv,
                   int64_t h_begin, int64_t h_end, float *scratch);

/// Head elements of one part of a query's values (loom_attention_values_part): the unit by which
/// threads that share a single query's attention divide its values.
#define LOOM_ATTENTION_VALUE_PART 32

/// Parts a query's values split into: head_dim / LOOM_ATTENTION_VALUE_PART (the last part also
/// takes the remainder), or 1 when head_dim is below twice the part; 0 for an invalid desc.
int64_t loom_attention_value_parts(const loom_attention_desc *d);

/// loom_attention of one query in three steps that threads can share when a batch holds too few
/// queries to keep them busy otherwise: these scores over any split of the positions,
/// loom_softmax on each head's row, then the values by parts. Writes the scores of KV groups
/// [kvh0, kvh1) against the positions with indices [p0, p1) among the m = n_kv - first seen
/// positions (all of them, or the window's): group kvh's head a's score at
/// scores[kvh * group_ld + a * m + index], so group_ld is at least (n_head / n_kv_head) * m when
/// there are several groups. The groups' slices of each cache block are read together. Every
/// score is the one loom_attention computes. Returns 0, or -1 for invalid arguments.
int loom_attention_scores_part(const loom_attention_desc *d, const float *q, int64_t n_kv, int64_t kvh0, int64_t kvh1,
                               int64_t p0, int64_t p1, float *scores, int64_t group_ld);

/// Parts [part0, part1) of the query's values, from the softmaxed scores p
/// (loom_attention_scores_part's layout): part i holds KV group i / parts' query heads' elements
/// of its (i % parts)-th slice of LOOM_ATTENTION_VALUE_PART (parts = loom_attention_value_parts),
/// at out + h * head_dim + element. Bit-identical to loom_attention's, whatever thread computes
/// which parts. Returns 0, or -1 for invalid arguments.
int loom_attention_values_part(const loom_attention_desc *d, const float *p, float *out, int64_t n_kv, int64_t part0,
                               int64_t part1, int64_t group_ld);

/// Query tokens of a prompt chunk one tile of loom_attention_tile holds (the tile serves that
/// many tokens times the query heads of one KV group); 0 for a desc the kernels cannot read.
int64_t loom_attention_tile_tokens(const loom_attention_desc *d);

/// True when loom_attention_tile runs for `d` on the active tier (AVX2 or better, head_dim a
/// multiple of 8); otherwise callers attend token by token with loom_attention.
int loom_attention_tiles_supported(const loom_attention_desc *d);

/// Scratch floats loom_attention_tile needs when its last query sees n_kv positions.
size_t loom_attention_tile_scratch_floats(const loom_attention_desc *d, int64_t n_kv);

/// Causal attention of chunk tokens [t0, t1) (at most loom_attention_tile_tokens) for the query
/// heads of KV head kvh: token t sits at position pos0 + t, with its query at q + t*q_stride and
/// its result at out + t*out_stride (head h at + h*head_dim), as loom_attention_prefill. Every
/// key and value row is read once for the whole tile, so a prompt chunk's attention runs at
/// matrix-product speed; results equal loom_attention's to rounding (sums run in another order)
/// and do not depend on the tile or thread a query lands in. Returns 0, or -1 when the
/// arguments are invalid or tiles are not supported.
int loom_attention_tile(const loom_attention_desc *d, const float *q, int64_t q_stride, float *out,
                        int64_t out_stride, int64_t pos0, int64_t t0, int64_t t1, int64_t kvh, float *scratch);

/// Batched (prefill) causal attention: token t (0-based in the batch) sits at position pos0 + t
/// and sees KV positions [0, pos0 + t]. q and out are [n_tokens][stride] (q_stride/out_stride in
/// floats). Processes tokens t_begin, t_begin + t_step, … < n_tokens (interleaving balances the
/// triangular cost across threads). scratch as for loom_attention with n_kv = pos0 + n_tokens.
int loom_attention_prefill(const loom_attention_desc *d, const float *q, int64_t q_stride,
                           float *out, int64_t out_stride, int64_t n_tokens, int64_t pos0,
                           int64_t t_begin, int64_t t_step, float *scratch);

#ifdef __cplusplus
}
#endif
#endif
