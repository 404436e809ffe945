// loom_parallel.h — whole operations of a forward pass run on a loom_pool.
//
// Each call is one pool dispatch: threads take contiguous row ranges aligned to
// LOOM_PAR_ROW_ALIGN rows (so quantized-row kernels never split a SIMD row group and threads
// never share an output cache line), or for attention, heads or tokens. The fused products
// hand out their ranges in claims from a shared counter, so a thread the machine runs slower
// takes fewer of them. pool may be NULL
// (runs on the calling thread). Like the kernels, none of these allocate: buffers that depend
// on the thread count are sized by the *_scratch_* functions and owned by the caller.
#ifndef LOOM_PARALLEL_H
#define LOOM_PARALLEL_H

#include <stddef.h>
#include <stdint.h>

#include "loom_ops.h"
#include "loom_pool.h"

#ifdef __cplusplus
extern "C" {
#endif

/// Row granularity of the split across threads.
#define LOOM_PAR_ROW_ALIGN 16

/// Thread ith's share [*begin, *end) of [0, n), in units of `align` (the last unit may be short).
void loom_split_range(int64_t n, int ith, int nth, int64_t align, int64_t *begin, int64_t *end);

/// y[r] = W_r · x for r in [0, n_rows) (loom_matvec split across the pool).
void loom_par_matvec(loom_pool *pool, int type, const void *w, size_t row_bytes, int64_t n_cols, const float *x,
                     float *y, int64_t n_rows);

/// Batch size from which loom_par_matmul multiplies through dequantized tiles and sgemm instead
/// of loom_matmul: 16 with OpenBLAS, 24 with Loom's own sgemm (measured crossovers, see parallel.c);
/// a positive LOOM_BLAS_MIN_BATCH overrides it.
int64_t loom_blas_min_batch(void);

/// Rows of one sequence's prompt chunk from which a batched step evaluates the chunk on its own
/// (loom_par_matmul, tiled attention) rather than as rows of the step's fused products
/// (loom_par_matmul_fused): at least loom_blas_min_batch(), and 256 (see parallel.c).
int64_t loom_prompt_path_min_rows(void);

/// Scratch floats loom_par_matmul needs for the sgemm path with this pool and row length.
/// Non-decreasing in n_cols: scratch sized for the longest rows serves every shorter matrix.
size_t loom_par_matmul_scratch_floats(const loom_pool *pool, int64_t n_cols);

/// Y[b*ldy + r] = W_r · X[b*ldx ...] for b < n_batch, r < n_rows. With n_batch >=
/// loom_blas_min_batch() and `scratch` (loom_par_matmul_scratch_floats floats) it dequantizes
/// weight tiles to F32 and calls loom_sgemm on each thread, unless loom_matmul_beats_sgemm(type);
/// otherwise it runs loom_matmul.
void loom_par_matmul(loom_pool *pool, int type, const void *w, size_t row_bytes, int64_t n_cols, int64_t n_rows,
                     const float *x, int64_t ldx, float *y, int64_t ldy, int64_t n_batch, float *scratch);

/// Scratch floats loom_par_attention needs when the last query sees n_kv positions.
size_t loom_par_attention_scratch_floats(const loom_pool *pool, const loom_attention_desc *d, int64_t n_kv);

/// Causal attention for n_tokens queries at positions pos0 … pos0+n_tokens-1 (layout as
/// loom_attention_prefill). One token: heads are split; a chunk the products take through BLAS
/// (n_tokens >= loom_blas_min_batch()): tiles of tokens (loom_attention_tile) where supported;
/// otherwise tokens interleaved, each with loom_attention's result.
/// Returns 0 or -1 for invalid arguments.
int loom_par_attention(loom_pool *pool, const loom_attention_desc *d, const float *q, int64_t q_stride, float *out,
                       int64_t out_stride, int64_t n_tokens, int64_t pos0, float *scratch);

/// One sequence of a batched attention step: its queries are rows [row, row + n_tokens) of q and
/// out, at positions pos0 … pos0 + n_tokens - 1, and see its own positions [0, pos0 + t] through
/// block_table (the desc's paged layout; NULL: the desc's block_table).
typedef struct loom_attention_segment {
    int64_t row;
    int64_t n_tokens;
    int64_t pos0;
    const int32_t *block_table;
} loom_attention_segment;

/// Causal attention of every segment's queries over its own paged cache, in one pool dispatch.
/// Segments before first_tiled (decode tokens, verified runs) are split by (token, KV head), so
/// each query's result is the one loom_attention gives it alone, whatever else shares the batch.
/// Segments from first_tiled on are prompt chunks: their queries attend in tiles
/// (loom_attention_tile), equal to loom_attention's results to rounding and still independent of
/// the rest of the batch and of the thread count (where tiles are unsupported they attend as the
/// others). max_kv bounds pos0 + n_tokens of every segment; scratch:
/// loom_par_attention_scratch_floats(pool, d, max_kv) floats. Returns 0, or -1 for invalid
/// arguments.
int loom_par_attention_batch(loom_pool *pool, const loom_attention_desc *d, const loom_attention_segment *segs,
                             int n_segs, int first_tiled, const float *q, int64_t q_stride, float *out,
                             int64_t out_stride, int64_t max_kv, float *scratch);

/// True when loom_par_attention_batch spreads each query of this batch over the threads rather
/// than giving each (token, KV head) unit to one thread: every segment untiled, fewer units than
/// share evenly among the pool's threads (one sequence decoding on a model with few KV heads),
/// and a query that sees enough positions for the two extra dispatches this costs to pay.
/// Results are the same bits either way.
int loom_par_attention_batch_is_thin(const loom_pool *pool, const loom_attention_desc *d,
                                     const loom_attention_segment *segs, int n_segs, int first_tiled);

/// RMSNorm of n_rows rows of n floats (row r at x + r*stride, result at y + r*stride).
void loom_par_rmsnorm(loom_pool *pool, float *y, const float *x, const float *w, int64_t n, int64_t n_rows,
                      int64_t stride, float eps);

/// y = silu(gate) * up over n floats, split across the pool.
void loom_par_swiglu(loom_pool *pool, float *y, const float *gate, const float *up, int64_t n);

/// y = gelu(gate) * up (tanh GELU, GeGLU) over n floats, split across the pool.
void loom_par_geglu(loom_pool *pool, float *y, const float *gate, const float *up, int64_t n);

// MARK: - Fused products of the decode step
// One token's matrix-vector products are small (SmolLM2-135M: 576 columns), so a pool dispatch
// per matrix costs about as much in barriers as the product itself. These run several
// matrices that read the same input in one dispatch, quantize the input once per thread rather
// than once per matrix, and fold the bias, residual and SwiGLU steps into the pass that
// produces their operands. Results equal the unfused ops bit for bit.

/// One weight matrix of a fused product: for r < n_rows, y[r] = W_r · x, or with `accumulate`
/// y[r] += W_r · x (a residual connection); then, when `bias` is not NULL, y[r] += bias[r].
/// Batched products do the same for every input row b into y + b*ldy.
typedef struct loom_matvec_part {
    /// Weight type (loom_type).
    int type;
    /// Row 0 of the weights.
    const void *w;
    /// Bytes from one row to the next.
    size_t row_bytes;
    /// Rows (output elements).
    int64_t n_rows;
    /// Output, n_rows floats.
    float *y;
    /// Floats from one output row to the next when a batched product (loom_par_matmul_fused,
    /// loom_par_matmul_swiglu) writes input row b's result at y + b*ldy; ignored for one input.
    int64_t ldy;
    /// Added after the product (n_rows floats), or NULL.
    const float *bias;
    /// Nonzero: add the product to y instead of storing it.
    int accumulate;
} loom_matvec_part;

/// Scratch bytes loom_par_matvec_fused / loom_par_matvec_swiglu need for inputs of n_cols
/// floats on this pool (one quantized copy of x per thread). Non-decreasing in n_cols.
size_t loom_par_matvec_scratch_bytes(const loom_pool *pool, int64_t n_cols);

/// Every part's product with the same x (n_cols floats), in one pool dispatch: the parts' rows
/// are split across threads as one range. scratch: loom_par_matvec_scratch_bytes(pool, n_cols)
/// bytes, 4-byte aligned. Part outputs must not overlap x or each other.
void loom_par_matvec_fused(loom_pool *pool, const loom_matvec_part *parts, int n_parts, int64_t n_cols,
                           const float *x, void *scratch);

/// h = silu(gate · x) * (up · x) in one dispatch: each thread computes the same rows of both
/// products (into gate->y and up->y) and then its slice of h (h may alias gate->y or up->y).
/// Returns 0, or -1 when the parts' row counts differ.
int loom_par_matvec_swiglu(loom_pool *pool, const loom_matvec_part *gate, const loom_matvec_part *up,
                           int64_t n_cols, const float *x, float *h, void *scratch);

// MARK: - Batched fused products (continuous batching)
// One decode step of several sequences multiplies each weight matrix by one activation row per
// sequence. These are the fused products above for n_batch input rows (row b at x + b*ldx),
// reading every weight row once for all of them. They are batch-invariant: row b of every
// output is, bit for bit, what the one-row call (loom_par_matvec_fused / _swiglu) gives for
// input row b at the same kernel tier, whatever n_batch, the other rows and the thread count —
// each row keeps its own accumulators, summed in the one-row order, and each input row is
// quantized to A16 exactly as the one-row call quantizes it.

/// Scratch bytes loom_par_matmul_fused / loom_par_matmul_swiglu need for n_batch inputs of
/// n_cols floats on this pool (one quantized copy of each input row, shared by the threads, and
/// at least one per thread). Non-decreasing in n_cols and in n_batch.
size_t loom_par_matmul_fused_scratch_bytes(const loom_pool *pool, int64_t n_cols, int64_t n_batch);

/// loom_par_matvec_fused for n_batch input rows: for every part, b < n_batch and r < n_rows,
/// y[b*ldy + r] (+)= W_r · x[b*ldx ...], then + bias[r]. One pool dispatch; the running threads
/// quantize the input rows into `scratch` (loom_par_matmul_fused_scratch_bytes(pool, n_cols,
/// n_batch) bytes, 4-byte aligned), taking them one at a time, and then take the parts' rows in
/// claims of a few LOOM_PAR_ROW_ALIGN units each. Outputs must not overlap x or each other.
void loom_par_matmul_fused(loom_pool *pool, const loom_matvec_part *parts, int n_parts, int64_t n_cols,
                           const float *x, int64_t ldx, int64_t n_batch, void *scratch);

/// loom_par_matvec_swiglu for n_batch input rows: h[b*ldh + r] = silu(gate_b · x_b)[r] *
/// (up_b · x_b)[r], with the products in gate->y + b*gate->ldy and up->y + b*up->ldy (h may
/// alias either when ldh equals its ldy). Returns 0, or -1 when the parts' row counts differ.
int loom_par_matmul_swiglu(loom_pool *pool, const loom_matvec_part *gate, const loom_matvec_part *up,
                           int64_t n_cols, const float *x, int64_t ldx, int64_t n_batch, float *h, int64_t ldh,
                           void *scratch);

#ifdef __cplusplus
}
#endif
#endif
