// loom_parallel.h — whole operations of a forward pass run on a loom_pool.
//
// Each call is one pool dispatch: threads take contiguous row ranges aligned to
// LOOM_PAR_ROW_ALIGN rows (so quantized-row kernels never split a SIMD row group and threads
// never share an output cache line), or for attention, heads or tokens. pool may be NULL
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

/// Scratch floats loom_par_matmul needs for the sgemm path with this pool and row length.
/// Non-decreasing in n_cols: scratch sized for the longest rows serves every shorter matrix.
size_t loom_par_matmul_scratch_floats(const loom_pool *pool, int64_t n_cols);

/// Y[b*ldy + r] = W_r · X[b*ldx ...] for b < n_batch, r < n_rows. With n_batch >=
/// loom_blas_min_batch() and `scratch` (loom_par_matmul_scratch_floats floats) it dequantizes
/// weight tiles to F32 and calls loom_sgemm on each thread; otherwise it runs loom_matmul.
void loom_par_matmul(loom_pool *pool, int type, const void *w, size_t row_bytes, int64_t n_cols, int64_t n_rows,
                     const float *x, int64_t ldx, float *y, int64_t ldy, int64_t n_batch, float *scratch);

/// Scratch floats loom_par_attention needs when the last query sees n_kv positions.
size_t loom_par_attention_scratch_floats(const loom_pool *pool, const loom_attention_desc *d, int64_t n_kv);

/// Causal attention for n_tokens queries at positions pos0 … pos0+n_tokens-1 (layout as
/// loom_attention_prefill). One token: heads are split; several: tokens are interleaved.
/// Returns 0 or -1 for invalid arguments.
int loom_par_attention(loom_pool *pool, const loom_attention_desc *d, const float *q, int64_t q_stride, float *out,
                       int64_t out_stride, int64_t n_tokens, int64_t pos0, float *scratch);

/// RMSNorm of n_rows rows of n floats (row r at x + r*stride, result at y + r*stride).
void loom_par_rmsnorm(loom_pool *pool, float *y, const float *x, const float *w, int64_t n, int64_t n_rows,
                      int64_t stride, float eps);

/// y = silu(gate) * up over n floats, split across the pool.
void loom_par_swiglu(loom_pool *pool, float *y, const float *gate, const float *up, int64_t n);

#ifdef __cplusplus
}
#endif
#endif
