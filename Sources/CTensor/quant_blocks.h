// quant_blocks.h — ggml's block formats as C structs, the activation block Loom multiplies
// them with, and the per-tier kernel declarations behind loom_quant.h's dispatch.
//
// Layouts follow ggml/src/ggml-common.h field for field (a GGUF tensor is an array of these
// structs). `ggml_half` fields are loom_fp16 bit patterns. In each formula q is the stored
// integer, x the reconstructed weight.
#ifndef LOOM_QUANT_BLOCKS_H
#define LOOM_QUANT_BLOCKS_H

#include <stddef.h>
#include <stdint.h>
#include "loom_half.h"
#include "loom_quant.h"

#define LOOM_QK4_0 32
#define LOOM_QK4_1 32
#define LOOM_QK5_0 32
#define LOOM_QK5_1 32
#define LOOM_QK8_0 32
#define LOOM_QK8_1 32
#define LOOM_QK_K 256
#define LOOM_K_SCALE_SIZE 12

// ---- F32 / F16 / BF16: one element per "block" -------------------------------------------

/// F32 — 32 bits/weight. x = the value.
typedef float loom_block_f32;
_Static_assert(sizeof(loom_block_f32) == 4, "F32 block size");

/// F16 — 16 bits/weight, IEEE binary16. x = loom_fp16_to_fp32(bits).
typedef loom_fp16 loom_block_f16;
_Static_assert(sizeof(loom_block_f16) == 2, "F16 block size");

/// BF16 — 16 bits/weight, the upper half of an f32. x = f32 with bits << 16.
typedef loom_bf16 loom_block_bf16;
_Static_assert(sizeof(loom_block_bf16) == 2, "BF16 block size");

// ---- Legacy 32-element blocks -------------------------------------------------------------

/// Q4_0 — 4.5 bits/weight. x[j] = d*((qs[j]&15) - 8), x[j+16] = d*((qs[j]>>4) - 8), j < 16.
typedef struct {
    loom_fp16 d;
    uint8_t qs[LOOM_QK4_0 / 2];
} loom_block_q4_0;
_Static_assert(sizeof(loom_block_q4_0) == 2 + LOOM_QK4_0 / 2, "Q4_0 block size");

/// Q4_1 — 5 bits/weight. x[j] = d*(qs[j]&15) + m, x[j+16] = d*(qs[j]>>4) + m.
typedef struct {
    loom_fp16 d;
    loom_fp16 m;
    uint8_t qs[LOOM_QK4_1 / 2];
} loom_block_q4_1;
_Static_assert(sizeof(loom_block_q4_1) == 4 + LOOM_QK4_1 / 2, "Q4_1 block size");

/// Q5_0 — 5.5 bits/weight. Element j's fifth bit is bit j of the little-endian u32 qh;
/// x = d*((nibble | hb<<4) - 16), nibbles split into halves as in Q4_0.
typedef struct {
    loom_fp16 d;
    uint8_t qh[4];
    uint8_t qs[LOOM_QK5_0 / 2];
} loom_block_q5_0;
_Static_assert(sizeof(loom_block_q5_0) == 2 + 4 + LOOM_QK5_0 / 2, "Q5_0 block size");

/// Q5_1 — 6 bits/weight. As Q5_0 without the -16 offset: x = d*(nibble | hb<<4) + m.
typedef struct {
    loom_fp16 d;
    loom_fp16 m;
    uint8_t qh[4];
    uint8_t qs[LOOM_QK5_1 / 2];
} loom_block_q5_1;
_Static_assert(sizeof(loom_block_q5_1) == 4 + 4 + LOOM_QK5_1 / 2, "Q5_1 block size");

/// Q8_0 — 8.5 bits/weight. x[j] = d*qs[j].
typedef struct {
    loom_fp16 d;
    int8_t qs[LOOM_QK8_0];
} loom_block_q8_0;
_Static_assert(sizeof(loom_block_q8_0) == 2 + LOOM_QK8_0, "Q8_0 block size");

/// Q8_1 — 9 bits/weight. x[j] = d*qs[j]; s = d*Σqs (ggml's activation format for Q4_1/Q5_1).
typedef struct {
    loom_fp16 d;
    loom_fp16 s;
    int8_t qs[LOOM_QK8_1];
} loom_block_q8_1;
_Static_assert(sizeof(loom_block_q8_1) == 4 + LOOM_QK8_1, "Q8_1 block size");

// ---- K-quants: 256-element super-blocks ----------------------------------------------------

/// Q2_K — 2.625 bits/weight. 16 sub-blocks of 16; scales[i] = sc | m<<4 (4 bits each).
/// Sub-block i = 8n + 2j + h (n: 128-half, j: bit pair, h: 16-half) reads bits 2j..2j+1 of
/// qs[32n + 16h + l]; x = d*sc*q - dmin*m.
typedef struct {
    uint8_t scales[LOOM_QK_K / 16];
    uint8_t qs[LOOM_QK_K / 4];
    loom_fp16 d;
    loom_fp16 dmin;
} loom_block_q2_K;
_Static_assert(sizeof(loom_block_q2_K) == LOOM_QK_K / 16 + LOOM_QK_K / 4 + 4, "Q2_K block size");

/// Q3_K — 3.4375 bits/weight. 16 sub-blocks of 16 with 6-bit scales (stored +32). Chunk
/// c = 4n + j of 32 elements takes bits 2j..2j+1 of qs[32n + l] and bit c of hmask[l];
/// x = d*(sc-32)*(q2 - (hbit ? 0 : 4)).
typedef struct {
    uint8_t hmask[LOOM_QK_K / 8];
    uint8_t qs[LOOM_QK_K / 4];
    uint8_t scales[12];
    loom_fp16 d;
} loom_block_q3_K;
_Static_assert(sizeof(loom_block_q3_K) == LOOM_QK_K / 8 + LOOM_QK_K / 4 + 12 + 2, "Q3_K block size");

/// Q4_K — 4.5 bits/weight. 8 sub-blocks of 32, 6-bit scale and min each (packed, see
/// loom_k_scale_min). Sub-block c is the low (c even) or high nibble of qs[32*(c/2) + l];
/// x = d*sc*q - dmin*m.
typedef struct {
    loom_fp16 d;
    loom_fp16 dmin;
    uint8_t scales[LOOM_K_SCALE_SIZE];
    uint8_t qs[LOOM_QK_K / 2];
} loom_block_q4_K;
_Static_assert(sizeof(loom_block_q4_K) == 4 + LOOM_K_SCALE_SIZE + LOOM_QK_K / 2, "Q4_K block size");

/// Q5_K — 5.5 bits/weight. Q4_K plus a fifth bit: bit c of qh[l] for element l of sub-block c.
typedef struct {
    loom_fp16 d;
    loom_fp16 dmin;
    uint8_t scales[LOOM_K_SCALE_SIZE];
    uint8_t qh[LOOM_QK_K / 8];
    uint8_t qs[LOOM_QK_K / 2];
} loom_block_q5_K;
_Static_assert(sizeof(loom_block_q5_K) == 4 + LOOM_K_SCALE_SIZE + LOOM_QK_K / 8 + LOOM_QK_K / 2, "Q5_K block size");

/// Q6_K — 6.5625 bits/weight. 16 sub-blocks of 16 with int8 scales; d comes last. Chunk
/// c = 4n + k of 32: low (k<2) or high nibble of ql[64n + 32(k&1) + l], bits 2k..2k+1 of
/// qh[32n + l] on top; x = d*scales[i]*(q - 32).
typedef struct {
    uint8_t ql[LOOM_QK_K / 2];
    uint8_t qh[LOOM_QK_K / 4];
    int8_t scales[LOOM_QK_K / 16];
    loom_fp16 d;
} loom_block_q6_K;
_Static_assert(sizeof(loom_block_q6_K) == LOOM_QK_K / 2 + LOOM_QK_K / 4 + LOOM_QK_K / 16 + 2, "Q6_K block size");

/// Q8_K — 9.125 bits/weight. x = d*qs (f32 d); bsums[i] = Σ qs over 16-element group i.
/// ggml's activation format for K-quant products; rarely a stored weight type.
typedef struct {
    float d;
    int8_t qs[LOOM_QK_K];
    int16_t bsums[LOOM_QK_K / 16];
} loom_block_q8_K;
_Static_assert(sizeof(loom_block_q8_K) == 4 + LOOM_QK_K + LOOM_QK_K / 16 * 2, "Q8_K block size");

/// Q4_K/Q5_K packed 6-bit scale and min of sub-block j (0…7): bytes 0–3 hold scales 0–3 and
/// the top two bits of scales 4–7; bytes 4–7 the same for mins; bytes 8–11 the low nibbles of
/// scale (low half) and min (high half) 4–7.
static inline void loom_k_scale_min(int j, const uint8_t *q, uint8_t *sc, uint8_t *m) {
    if (j < 4) {
        *sc = q[j] & 63;
        *m = q[j + 4] & 63;
    } else {
        *sc = (uint8_t)((q[j + 4] & 0xF) | ((q[j - 4] >> 6) << 4));
        *m = (uint8_t)((q[j + 4] >> 4) | ((q[j] >> 6) << 4));
    }
}

/// Q3_K 6-bit scale i (0…15), still offset by 32: low nibble from byte i%8 (shifted by 4 for
/// i >= 8), top two bits from byte 8 + i%4 at bit 2*(i/4).
static inline int loom_q3k_scale(int i, const uint8_t *s) {
    int lo = (s[i & 7] >> (4 * (i >> 3))) & 0xF;
    int hi = (s[8 + (i & 3)] >> (2 * (i >> 2))) & 3;
    return lo | (hi << 4);
}

// ---- Rows interleaved by eight (loom_repack_x8) ---------------------------------------------
// An interleaved block holds one block of each of eight consecutive rows, same 32 columns, and
// is exactly eight of the format's blocks long. Scales (and mins) are lane-ordered: row i in
// lane i. The values are stored for one operation each: 16 vectors of 16 int16, vector j
// holding column pair j of every row, (row 0 col 2j, row 0 col 2j+1, row 1 col 2j, …, row 7
// col 2j+1) — the operand of vpmaddwd against a broadcast int16 activation pair. The helpers
// below say where element (row, col) of a block is stored; the values are the format's stored
// integers (Q4_0's nibble, not nibble - 8), the kernels apply the offset.

/// Q4_0x8: nibbles as loom_x8_nibble_at places them.
typedef struct {
    loom_fp16 d[8];
    uint8_t qs[128];
} loom_block_q4_0x8;
_Static_assert(sizeof(loom_block_q4_0x8) == 8 * sizeof(loom_block_q4_0), "Q4_0x8 block size");

/// Q4_1x8: nibbles as loom_x8_nibble_at places them, with lane-ordered mins.
typedef struct {
    loom_fp16 d[8];
    loom_fp16 m[8];
    uint8_t qs[128];
} loom_block_q4_1x8;
_Static_assert(sizeof(loom_block_q4_1x8) == 8 * sizeof(loom_block_q4_1), "Q4_1x8 block size");

/// Q5_0x8: low nibbles as in Q4_0x8; the fifth bit of element e of vector j is bit e of qh[j].
typedef struct {
    loom_fp16 d[8];
    uint16_t qh[16];
    uint8_t qs[128];
} loom_block_q5_0x8;
_Static_assert(sizeof(loom_block_q5_0x8) == 8 * sizeof(loom_block_q5_0), "Q5_0x8 block size");

/// Q5_1x8: Q5_0x8 with lane-ordered mins.
typedef struct {
    loom_fp16 d[8];
    loom_fp16 m[8];
    uint16_t qh[16];
    uint8_t qs[128];
} loom_block_q5_1x8;
_Static_assert(sizeof(loom_block_q5_1x8) == 8 * sizeof(loom_block_q5_1), "Q5_1x8 block size");

/// Q8_0x8: vector j is the 16 bytes at qs + 16j, widened with sign.
typedef struct {
    loom_fp16 d[8];
    int8_t qs[256];
} loom_block_q8_0x8;
_Static_assert(sizeof(loom_block_q8_0x8) == 8 * sizeof(loom_block_q8_0), "Q8_0x8 block size");

/// Q4_Kx8: eight Q4_K super-blocks. The scales stay packed per row (loom_k_scale_min reads
/// them); chunk c's values (its 32 columns, as a legacy block's) are qs[c], laid out as in Q4_0x8.
typedef struct {
    loom_fp16 d[8];
    loom_fp16 dmin[8];
    uint8_t scales[8][LOOM_K_SCALE_SIZE];
    uint8_t qs[8][128];
} loom_block_q4_Kx8;
_Static_assert(sizeof(loom_block_q4_Kx8) == 8 * sizeof(loom_block_q4_K), "Q4_Kx8 block size");

/// Q5_Kx8: Q4_Kx8 with chunk c's fifth bits in qh[c], laid out as in Q5_0x8.
typedef struct {
    loom_fp16 d[8];
    loom_fp16 dmin[8];
    uint8_t scales[8][LOOM_K_SCALE_SIZE];
    uint16_t qh[8][16];
    uint8_t qs[8][128];
} loom_block_q5_Kx8;
_Static_assert(sizeof(loom_block_q5_Kx8) == 8 * sizeof(loom_block_q5_K), "Q5_Kx8 block size");

/// Q2_Kx8: eight Q2_K super-blocks. scales[j][row] is row `row`'s sc | m << 4 of its 16-column
/// sub-block j (chunk c holds sub-blocks 2c and 2c + 1). Chunk c's 2-bit values are qs[c],
/// byte 16s + i of step s holding those of nibble byte 32s + i of a Q4_0x8 step in bits 0-3
/// and of byte 32s + 16 + i in bits 4-7 (each byte's low-nibble value first): the layout of
/// Q6_Kx8's top bit pairs.
typedef struct {
    loom_fp16 d[8];
    loom_fp16 dmin[8];
    uint8_t scales[16][8];
    uint8_t qs[8][64];
} loom_block_q2_Kx8;
_Static_assert(sizeof(loom_block_q2_Kx8) == 8 * sizeof(loom_block_q2_K), "Q2_Kx8 block size");

/// Q3_Kx8: eight Q3_K super-blocks. The scales stay packed per row (loom_q3k_scale reads them);
/// chunk c's low two bits are qs[c], laid out as in Q2_Kx8, and its third bits qh[c], where
/// byte 8s + j of step s holds those of nibble bytes j + 8k (k = 0-3) at bits 2k (the low
/// nibble's position) and 2k + 1: one 64-bit broadcast and a shift per quarter give a step's
/// 32 bytes of them.
typedef struct {
    loom_fp16 d[8];
    uint8_t scales[8][12];
    uint8_t qh[8][32];
    uint8_t qs[8][64];
} loom_block_q3_Kx8;
_Static_assert(sizeof(loom_block_q3_Kx8) == 8 * sizeof(loom_block_q3_K), "Q3_Kx8 block size");

/// Q6_Kx8: eight Q6_K super-blocks. scales[j][row] is row `row`'s scale of its 16-column
/// sub-block j (chunk c holds sub-blocks 2c and 2c + 1). Chunk c's low four bits are qs[c],
/// laid out as in Q4_0x8; its top two bits are qh[c], where byte 16s + i of step s holds those
/// of nibble byte 32s + i in bits 0-3 and of nibble byte 32s + 16 + i in bits 4-7 (each nibble
/// byte's low nibble first): bytes a 256-bit step widens with one shift per 128-bit half.
typedef struct {
    loom_fp16 d[8];
    int8_t scales[16][8];
    uint8_t qh[8][64];
    uint8_t qs[8][128];
} loom_block_q6_Kx8;
_Static_assert(sizeof(loom_block_q6_Kx8) == 8 * sizeof(loom_block_q6_K), "Q6_Kx8 block size");

/// Element e of vector j: row e / 2, column 2j + e % 2.
static inline int loom_x8_element(int row, int col) { return 2 * row + col % 2; }

/// Where a 4-bit value of (row, col) lives in a 128-byte nibble array: the byte, and whether
/// it is the high nibble. Byte i of 32-byte segment s widens (unpacklo/unpackhi against zero,
/// low nibbles first, then high) into vector j = 4s + 2*(high) + (i % 16) / 8, element
/// 8*(i / 16) + i % 8.
static inline int loom_x8_nibble_at(int row, int col, int *high) {
    int j = col / 2, e = loom_x8_element(row, col);
    int s = j / 4, t = j % 4;
    *high = t >= 2;
    return 32 * s + 16 * (e / 8) + 8 * (t % 2) + e % 8;
}

// ---- The activation row ------------------------------------------------------------------

/// A16 — Loom's quantized activation row: every 32 activations become int16 with one f32
/// scale, q = round(x / d), d = max|x| / 32767 (a step of 3e-5 of the group maximum, 258x
/// finer than ggml's int8 Q8_0/Q8_K), and the exact f32 sums of x per 32 and per 16 elements
/// are kept, so the min terms of Q4_1/Q5_1/Q2_K/Q4_K/Q5_K carry no activation rounding at all.
/// The integer sums of q per 32 and per 16 (exact in f32: at most 32*32767) let formats with a
/// constant offset (Q4_0's q-8, Q5_0's q-16, Q6_K's q-32) apply it once per group instead of
/// once per element, with no change in the result beyond f32 rounding.
/// A row of n (a multiple of 32) is stored as arrays, so kernels can load 8 group scales or
/// sums with one vector load:
///   f32 d[n/32] | f32 sum32[n/32] | f32 sum16[n/16] | f32 qsum32[n/32] | f32 qsum16[n/16] | i16 q[n]
typedef struct {
    const float *d;
    const float *sum32;
    const float *sum16;
    const float *qsum32;
    const float *qsum16;
    const int16_t *q;
} loom_a16;

typedef struct {
    float *d;
    float *sum32;
    float *sum16;
    float *qsum32;
    float *qsum16;
    int16_t *q;
} loom_a16_mut;

#define LOOM_A16_MAX 32767.0f

/// Bytes of an A16 row of n activations: 2.875 bytes per activation.
static inline size_t loom_a16_bytes(int64_t n) { return (size_t)(n / 32) * 12 + (size_t)(n / 16) * 8 + (size_t)n * 2; }

static inline loom_a16 loom_a16_view(const void *base, int64_t n) {
    loom_a16 v;
    v.d = (const float *)base;
    v.sum32 = v.d + n / 32;
    v.sum16 = v.sum32 + n / 32;
    v.qsum32 = v.sum16 + n / 16;
    v.qsum16 = v.qsum32 + n / 32;
    v.q = (const int16_t *)(v.qsum16 + n / 16);
    return v;
}

static inline loom_a16_mut loom_a16_view_mut(void *base, int64_t n) {
    loom_a16_mut v;
    v.d = (float *)base;
    v.sum32 = v.d + n / 32;
    v.sum16 = v.sum32 + n / 32;
    v.qsum32 = v.sum16 + n / 16;
    v.qsum16 = v.qsum32 + n / 32;
    v.q = (int16_t *)(v.qsum16 + n / 16);
    return v;
}

// ---- Kernel tiers and the traits table ---------------------------------------------------

/// The shared signature of every product kernel (F32 and quantized weights alike):
/// for b < nb, r in [r0, r1): Y[b*ldy + r] (+)= Σ over the row's n_cols columns of W[r] * X[b].
/// Float weight types read `x` (ldx floats apart); quantized types read `xq` (A16 rows of
/// n_cols activations, xq_stride bytes apart). `w` points at the first column this call covers; `accumulate` adds to
/// y instead of storing (used when a long row is processed in column chunks).
typedef void (*loom_product_fn)(const void *w, size_t row_bytes, int64_t n_cols,
                                const float *x, int64_t ldx, const void *xq, size_t xq_stride,
                                float *y, int64_t ldy, int64_t nb, int64_t r0, int64_t r1, int accumulate);

typedef void (*loom_dequant_fn)(const void *src, float *dst, int64_t n);
typedef void (*loom_quant_act_fn)(const float *x, void *dst, int64_t n);

/// One row of the dispatch table: how to decode and multiply one weight type at one tier.
typedef struct {
    loom_dequant_fn dequantize;
    loom_product_fn product;
    /// True for F32/F16/BF16: products read float activations, never A16 blocks.
    int float_activations;
} loom_quant_traits;

#define LOOM_PRODUCT_ARGS const void *w, size_t row_bytes, int64_t n_cols, const float *x, int64_t ldx, \
    const void *xq, size_t xq_stride, float *y, int64_t ldy, int64_t nb, int64_t r0, int64_t r1, int accumulate

#define LOOM_DECLARE_TYPE_KERNELS(t, tier) \
    void loom_dequantize_row_##t##_##tier(const void *src, float *dst, int64_t n); \
    void loom_product_##t##_##tier(LOOM_PRODUCT_ARGS);

#define LOOM_DECLARE_X8_PRODUCTS(tier) \
    void loom_product_q4_0x8_##tier(LOOM_PRODUCT_ARGS); void loom_product_q4_1x8_##tier(LOOM_PRODUCT_ARGS); \
    void loom_product_q5_0x8_##tier(LOOM_PRODUCT_ARGS); void loom_product_q5_1x8_##tier(LOOM_PRODUCT_ARGS); \
    void loom_product_q8_0x8_##tier(LOOM_PRODUCT_ARGS); void loom_product_q4_Kx8_##tier(LOOM_PRODUCT_ARGS); \
    void loom_product_q5_Kx8_##tier(LOOM_PRODUCT_ARGS); void loom_product_q6_Kx8_##tier(LOOM_PRODUCT_ARGS); \
    void loom_product_q2_Kx8_##tier(LOOM_PRODUCT_ARGS); void loom_product_q3_Kx8_##tier(LOOM_PRODUCT_ARGS);

#define LOOM_DECLARE_TIER(tier) \
    LOOM_DECLARE_TYPE_KERNELS(f32, tier) LOOM_DECLARE_TYPE_KERNELS(f16, tier) LOOM_DECLARE_TYPE_KERNELS(bf16, tier) \
    LOOM_DECLARE_TYPE_KERNELS(q4_0, tier) LOOM_DECLARE_TYPE_KERNELS(q4_1, tier) LOOM_DECLARE_TYPE_KERNELS(q5_0, tier) \
    LOOM_DECLARE_TYPE_KERNELS(q5_1, tier) LOOM_DECLARE_TYPE_KERNELS(q8_0, tier) LOOM_DECLARE_TYPE_KERNELS(q8_1, tier) \
    LOOM_DECLARE_TYPE_KERNELS(q2_K, tier) LOOM_DECLARE_TYPE_KERNELS(q3_K, tier) LOOM_DECLARE_TYPE_KERNELS(q4_K, tier) \
    LOOM_DECLARE_TYPE_KERNELS(q5_K, tier) LOOM_DECLARE_TYPE_KERNELS(q6_K, tier) LOOM_DECLARE_TYPE_KERNELS(q8_K, tier) \
    void loom_quantize_a16_##tier(const float *x, void *dst, int64_t n); \
    LOOM_DECLARE_X8_PRODUCTS(tier)

// `ref` is the scalar reference tier: portable C, compiled everywhere.
LOOM_DECLARE_TIER(ref)
#if defined(__x86_64__)
LOOM_DECLARE_TIER(avx2)
// The AVX-512 tier has its own kernels only where they beat AVX2: the interleaved products,
// whose vpdpwssd (AVX-512 VNNI) and 32 vector registers serve eight activation rows per pass.
LOOM_DECLARE_X8_PRODUCTS(avx512)
// And the row-major split-scale K-quants, whose 16-element halves a 512-bit step serves together.
void loom_product_q2_K_avx512(LOOM_PRODUCT_ARGS);
void loom_product_q3_K_avx512(LOOM_PRODUCT_ARGS);
void loom_product_q6_K_avx512(LOOM_PRODUCT_ARGS);
/// Whole groups [g0, g0 + ng) of an interleaved matrix as F32 rows, n_cols apart (AVX2; the
/// scalar loop in quant_x8_scalar.c computes the same bits).
void loom_dequantize_x8_groups_avx2(int type, const void *w, size_t row_bytes, int64_t n_cols, int64_t g0,
                                    int64_t ng, float *dst);
#endif

#endif
