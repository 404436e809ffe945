// loom_quant.h — tensor element types and the products Loom computes against them.
//
// Type ids are ggml's `ggml_type` ids, so a GGUF tensor's type field maps 1:1.
// Weights are row-major in their file format: a matrix of `n_rows` rows, each row `n_cols`
// elements long along ggml's ne[0], stored as loom_row_bytes(type, n_cols) bytes.
// Activations are F32 at the API; products with quantized weights round them to int16 per 32
// elements internally (see "Pre-quantized activations" below), ~250x finer than llama.cpp's
// int8. Kernels never allocate (the default entry points use ~24 KB of stack); callers own
// every buffer. Kernels are single-threaded over [r_begin, r_end) and thread-safe.
#ifndef LOOM_QUANT_H
#define LOOM_QUANT_H

#include <stddef.h>
#include <stdint.h>
#include <stdbool.h>
#include "loom_cpu.h"

#ifdef __cplusplus
extern "C" {
#endif

/// Element types, numbered as ggml numbers them.
typedef enum loom_type {
    LOOM_TYPE_F32  = 0,
    LOOM_TYPE_F16  = 1,
    LOOM_TYPE_Q4_0 = 2,
    LOOM_TYPE_Q4_1 = 3,
    LOOM_TYPE_Q5_0 = 6,
    LOOM_TYPE_Q5_1 = 7,
    LOOM_TYPE_Q8_0 = 8,
    LOOM_TYPE_Q8_1 = 9,
    LOOM_TYPE_Q2_K = 10,
    LOOM_TYPE_Q3_K = 11,
    LOOM_TYPE_Q4_K = 12,
    LOOM_TYPE_Q5_K = 13,
    LOOM_TYPE_Q6_K = 14,
    LOOM_TYPE_Q8_K = 15,
    LOOM_TYPE_BF16 = 30,
    /// Loom's own layouts, never found in a file: rows interleaved by eight (loom_repack_x8),
    /// so one vector lane accumulates one output row. Numbered 256 + the format's id.
    LOOM_TYPE_Q4_0_X8 = 256 + 2,
    LOOM_TYPE_Q4_1_X8 = 256 + 3,
    LOOM_TYPE_Q5_0_X8 = 256 + 6,
    LOOM_TYPE_Q5_1_X8 = 256 + 7,
    LOOM_TYPE_Q8_0_X8 = 256 + 8,
    LOOM_TYPE_Q4_K_X8 = 256 + 12,
    LOOM_TYPE_Q2_K_X8 = 256 + 10,
    LOOM_TYPE_Q3_K_X8 = 256 + 11,
    LOOM_TYPE_Q5_K_X8 = 256 + 13,
    LOOM_TYPE_Q6_K_X8 = 256 + 14,
} loom_type;

/// True when Loom can read a file's tensor of this type id (its own interleaved layouts, which
/// no file holds, are not).
bool loom_type_supported(int type);
/// ggml's name for the type ("Q4_K", "F32", …), or NULL for ids Loom does not know.
const char *loom_type_name(int type);
/// Elements per block (1 for F32/F16/BF16, 32 for Q4_0…Q8_1, 256 for K-quants).
int64_t loom_type_block_elems(int type);
/// Bytes per block.
size_t loom_type_block_bytes(int type);
/// Bytes of one row of `n` elements (n must be a multiple of the block size).
size_t loom_row_bytes(int type, int64_t n);

/// Dequantize `n` elements (a whole number of blocks) from `src` into `dst`.
/// Invalid calls (unknown type, n not whole blocks) fill dst with NaN rather than guess; the
/// products below do the same to their outputs.
void loom_dequantize_row(int type, const void *src, float *dst, int64_t n);

/// y[r] = dot(row r of W, x) for r in [r_begin, r_end).
/// W has rows of `n_cols` elements, `row_bytes` apart; x has n_cols floats; y is indexed by r.
/// Single-threaded over the given row range; the caller splits rows across threads.
void loom_matvec(int type, const void *w, size_t row_bytes, int64_t n_cols,
                 const float *x, float *y, int64_t r_begin, int64_t r_end);

/// Y[b*ldy + r] = dot(row r of W, X[b*ldx ...]) for b in [0, n_batch), r in [r_begin, r_end).
/// The batched form of loom_matvec, used for prompt batches below the BLAS threshold.
void loom_matmul(int type, const void *w, size_t row_bytes, int64_t n_cols,
                 const float *x, int64_t ldx, float *y, int64_t ldy, int64_t n_batch,
                 int64_t r_begin, int64_t r_end);


// ---- Pre-quantized activations ------------------------------------------------------------
// Quantized weights are multiplied with activations quantized to int16 per 32 elements (A16:
// one f32 scale, 32 int16, exact f32 sums), never to int8 as ggml does: see
// quant_dispatch.c for the accuracy and speed measurements behind that choice. loom_matvec and
// loom_matmul quantize x themselves (on the stack, in column chunks); a caller that runs one
// product on several threads can quantize x once with loom_quantize_activation and hand every
// thread the same buffer through loom_matvec_q / loom_matmul_q.

/// True for the float weight types (F32, F16, BF16), whose products read `x` and never `xq`.
bool loom_type_is_float(int type);

/// Bytes of the quantized form of `n` activations (n a multiple of 32).
size_t loom_activation_bytes(int64_t n);

/// Quantizes `n` activations (a multiple of 32) into `dst` (loom_activation_bytes(n) bytes,
/// 4-byte aligned).
void loom_quantize_activation(const float *x, int64_t n, void *dst);

/// loom_matvec with x already quantized into `xq` by loom_quantize_activation(x, n_cols, xq).
/// Float weight types read `x` instead (xq may then be NULL); quantized types ignore `x`.
void loom_matvec_q(int type, const void *w, size_t row_bytes, int64_t n_cols,
                   const float *x, const void *xq, float *y, int64_t r_begin, int64_t r_end);

/// loom_matvec_q adding to y instead of storing: y[r] += W_r · x (a residual connection, with
/// the rounding of computing the product and then one f32 addition).
void loom_matvec_q_accumulate(int type, const void *w, size_t row_bytes, int64_t n_cols,
                              const float *x, const void *xq, float *y, int64_t r_begin, int64_t r_end);

/// loom_matmul with every column already quantized: column b's A16 row starts at
/// xq + b*xq_stride bytes (xq_stride >= loom_activation_bytes(n_cols), a multiple of 4).
/// Float weight types read `x`/`ldx` instead; quantized types ignore them.
void loom_matmul_q(int type, const void *w, size_t row_bytes, int64_t n_cols,
                   const float *x, int64_t ldx, const void *xq, size_t xq_stride,
                   float *y, int64_t ldy, int64_t n_batch, int64_t r_begin, int64_t r_end);

/// loom_matmul_q adding to y instead of storing: Y[b*ldy + r] += W_r · X_b.
void loom_matmul_q_accumulate(int type, const void *w, size_t row_bytes, int64_t n_cols,
                              const float *x, int64_t ldx, const void *xq, size_t xq_stride,
                              float *y, int64_t ldy, int64_t n_batch, int64_t r_begin, int64_t r_end);

// ---- Rows interleaved by eight ----------------------------------------------------------------
// A decode step multiplies every weight once per activation row. With rows stored one after
// another, each 32-weight block of each row ends in its own horizontal sum and scale FMA, and
// those dominate small batches. Interleaving eight rows block by block puts one row in each
// vector lane: an int16 column pair of the activation is broadcast and multiplied into all eight
// rows at once (vpmaddwd, or vpdpwssd where AVX-512 VNNI fuses the add), and the scales apply
// to eight rows per instruction. Products are computed in the same order at every tier, so
// scalar, AVX2 and AVX-512 results are bit-identical, and a row's result never depends on the
// activation rows beside it. The layout keeps the format's bytes per row, so a matrix repacked
// in place of its rows has the same size and row r's group starts at byte (r / 8) * 8 * row_bytes.

/// True for Loom's interleaved layouts.
bool loom_type_is_interleaved(int type);

/// True when loom_matmul multiplies `type` faster than dequantizing it for sgemm at every batch
/// size, so prompt batches should stay on the integer products: the interleaved layouts on the
/// AVX-512 VNNI tier (on this project's Zen 5 EPYC, SmolLM2 Q4_1 prompts of 64 tokens ran about
/// 1.7x and of 512 tokens 1.1-1.3x faster than through sgemm). On AVX2 the integer products win
/// only for short batches (about 1.4x at 32 rows, even at 256, behind at 512 on Zen 3), which the
/// scheduler keeps in its fused products (loom_prompt_path_min_rows), so sgemm keeps the rest.
bool loom_matmul_beats_sgemm(int type);

/// The interleaved type a type can be repacked into, or -1.
int loom_repack_x8_type(int type);

/// Repacks `n_rows` rows (a multiple of 8) of `n_cols` columns of `type` from `src` (rows
/// `row_bytes` apart) into `dst` (n_rows * loom_row_bytes(type, n_cols) bytes, not overlapping
/// src). Returns the interleaved type id, or -1 (nothing written) when the type has no
/// interleaved form or the shape does not fit it.
int loom_repack_x8(int type, const void *src, size_t row_bytes, int64_t n_rows, int64_t n_cols, void *dst);

/// Dequantizes rows [r0, r0 + n) of a matrix of any type, including the interleaved ones, into
/// `dst` (n rows of n_cols floats). Invalid shapes fill dst with NaN as loom_dequantize_row does.
void loom_dequantize_rows(int type, const void *w, size_t row_bytes, int64_t n_cols, int64_t r0, int64_t n,
                          float *dst);

// ---- Tier-explicit forms ----------------------------------------------------------------
// The same operations at a given kernel tier (clamped to loom_isa_best()), independent of the
// process-wide loom_isa_active(): tests and `loom bench kernels` compare tiers with them.

void loom_dequantize_row_isa(loom_isa isa, int type, const void *src, float *dst, int64_t n);
void loom_quantize_activation_isa(loom_isa isa, const float *x, int64_t n, void *dst);
void loom_matmul_isa(loom_isa isa, int type, const void *w, size_t row_bytes, int64_t n_cols,
                     const float *x, int64_t ldx, float *y, int64_t ldy, int64_t n_batch,
                     int64_t r_begin, int64_t r_end);
void loom_matmul_q_isa(loom_isa isa, int type, const void *w, size_t row_bytes, int64_t n_cols,
                       const float *x, int64_t ldx, const void *xq, size_t xq_stride,
                       float *y, int64_t ldy, int64_t n_batch, int64_t r_begin, int64_t r_end);

#ifdef __cplusplus
}
#endif
#endif
