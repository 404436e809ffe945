// quant_avx2_template.h — the AVX2 loops shared by every quantized format.
//
// A format family (quant_legacy_avx2.c, quant_k_avx2.c) defines, before including this file:
//   fam_qk(T)          elements per block           fam_block_bytes(T)  bytes per block
//   fam_same_scale(T)  both 16-halves of a chunk always share one scale
//   fam_has_bias(T)    weights carry an additive min term
//   fam_prep(T, blk, s, b)       per block: s[2c+h], b[2c+h] for chunk c, half h (weight = s*q + b)
//   fam_dec(T, blk, c, lo, hi)   chunk c as two vectors of 16 int16 q values
// each a switch on a compile-time type constant T, so after inlining every format gets its own
// straight-line loop. Products multiply int16 weights with A16 activations in vpmaddwd, one
// f32 FMA per chunk; dequantization rounds as the reference does (multiply, then add).
#ifndef LOOM_QUANT_AVX2_TEMPLATE_H
#define LOOM_QUANT_AVX2_TEMPLATE_H

#include <immintrin.h>
#include <string.h>
#include "quant_blocks.h"

#define LOOM_AVX2 __attribute__((target("avx2,fma,f16c")))
#define LOOM_AVX2_INLINE static inline __attribute__((always_inline, target("avx2,fma,f16c")))

LOOM_AVX2_INLINE float avx2_hsum(__m256 v) {
    __m128 s = _mm_add_ps(_mm256_castps256_ps128(v), _mm256_extractf128_ps(v, 1));
    s = _mm_add_ps(s, _mm_movehl_ps(s, s));
    s = _mm_add_ss(s, _mm_movehdup_ps(s));
    return _mm_cvtss_f32(s);
}

LOOM_AVX2_INLINE float avx2_fp16(loom_fp16 h) { return _cvtsh_ss(h); }

/// Chunk c of one block against NB activation columns, into accumulator set p (two sets keep
/// two independent FMA chains in flight).
LOOM_AVX2_INLINE void avx2_chunk(const int T, const int NB, const uint8_t *blk, int c, const float *s,
                                const float *b, const loom_block_a16 *xq, int64_t ldxq, int64_t ci,
                                const int p, __m256 acc[4][2], float bacc[4][2]) {
    __m256i lo, hi;
    fam_dec(T, blk, c, &lo, &hi);
    for (int k = 0; k < NB; k++) {
        const loom_block_a16 *a = xq + k * ldxq + ci;
        __m256i pl = _mm256_madd_epi16(lo, _mm256_loadu_si256((const __m256i *)a->q));
        __m256i ph = _mm256_madd_epi16(hi, _mm256_loadu_si256((const __m256i *)(a->q + 16)));
        if (fam_same_scale(T)) {
            __m256 v = _mm256_cvtepi32_ps(_mm256_add_epi32(pl, ph));
            acc[k][p] = _mm256_fmadd_ps(v, _mm256_set1_ps(s[2 * c] * a->d), acc[k][p]);
        } else {
            acc[k][0] = _mm256_fmadd_ps(_mm256_cvtepi32_ps(pl), _mm256_set1_ps(s[2 * c] * a->d), acc[k][0]);
            acc[k][1] = _mm256_fmadd_ps(_mm256_cvtepi32_ps(ph), _mm256_set1_ps(s[2 * c + 1] * a->d), acc[k][1]);
        }
        if (fam_has_bias(T)) bacc[k][p] += b[2 * c] * a->sum[0] + b[2 * c + 1] * a->sum[1];
    }
}

/// One row against NB batch columns: out[k] = Σ_chunks dx*(s·Σq*xq) + b*Σx.
LOOM_AVX2_INLINE void avx2_row(const int T, const int NB, const uint8_t *row, int64_t nblk,
                              const loom_block_a16 *xq, int64_t ldxq, float *out) {
    const int chunks = fam_qk(T) / 32;
    const size_t bb = fam_block_bytes(T);
    __m256 acc[4][2];
    float bacc[4][2];
    for (int k = 0; k < NB; k++) {
        acc[k][0] = acc[k][1] = _mm256_setzero_ps();
        bacc[k][0] = bacc[k][1] = 0.0f;
    }
    float s[16], b[16];
    if (chunks == 1) {
        int64_t i = 0;
        for (; i + 1 < nblk; i += 2) {
            const uint8_t *blk = row + (size_t)i * bb;
            fam_prep(T, blk, s, b);
            avx2_chunk(T, NB, blk, 0, s, b, xq, ldxq, i, 0, acc, bacc);
            fam_prep(T, blk + bb, s, b);
            avx2_chunk(T, NB, blk + bb, 0, s, b, xq, ldxq, i + 1, 1, acc, bacc);
        }
        if (i < nblk) {
            fam_prep(T, row + (size_t)i * bb, s, b);
            avx2_chunk(T, NB, row + (size_t)i * bb, 0, s, b, xq, ldxq, i, 0, acc, bacc);
        }
    } else {
        for (int64_t i = 0; i < nblk; i++) {
            const uint8_t *blk = row + (size_t)i * bb;
            fam_prep(T, blk, s, b);
            const int64_t ci = i * chunks;
#pragma unroll
            for (int c = 0; c < chunks; c += 2) {
                avx2_chunk(T, NB, blk, c, s, b, xq, ldxq, ci + c, 0, acc, bacc);
                avx2_chunk(T, NB, blk, c + 1, s, b, xq, ldxq, ci + c + 1, 1, acc, bacc);
            }
        }
    }
    for (int k = 0; k < NB; k++)
        out[k] = avx2_hsum(_mm256_add_ps(acc[k][0], acc[k][1])) + (bacc[k][0] + bacc[k][1]);
}

LOOM_AVX2_INLINE void avx2_product(const int T, LOOM_PRODUCT_ARGS) {
    (void)x; (void)ldx;
    const int64_t nblk = n_cols / fam_qk(T);
    for (int64_t b0 = 0; b0 < nb; b0 += 4) {
        const int64_t g = nb - b0 < 4 ? nb - b0 : 4;
        const loom_block_a16 *xg = xq + b0 * ldxq;
        for (int64_t r = r0; r < r1; r++) {
            const uint8_t *row = (const uint8_t *)w + (size_t)r * row_bytes;
            float o[4];
            switch (g) {
            case 4: avx2_row(T, 4, row, nblk, xg, ldxq, o); break;
            case 3: avx2_row(T, 3, row, nblk, xg, ldxq, o); break;
            case 2: avx2_row(T, 2, row, nblk, xg, ldxq, o); break;
            default: avx2_row(T, 1, row, nblk, xg, ldxq, o); break;
            }
            for (int64_t k = 0; k < g; k++) {
                float *dst = y + (b0 + k) * ldy + r;
                *dst = accumulate ? *dst + o[k] : o[k];
            }
        }
    }
}

LOOM_AVX2_INLINE void avx2_store_half(__m256i q16, float s, float b, float *o) {
    __m256 vs = _mm256_set1_ps(s), vb = _mm256_set1_ps(b);
    __m256 f0 = _mm256_cvtepi32_ps(_mm256_cvtepi16_epi32(_mm256_castsi256_si128(q16)));
    __m256 f1 = _mm256_cvtepi32_ps(_mm256_cvtepi16_epi32(_mm256_extracti128_si256(q16, 1)));
    _mm256_storeu_ps(o, _mm256_add_ps(_mm256_mul_ps(f0, vs), vb));
    _mm256_storeu_ps(o + 8, _mm256_add_ps(_mm256_mul_ps(f1, vs), vb));
}

LOOM_AVX2_INLINE void avx2_dequantize(const int T, const void *src, float *dst, int64_t n) {
    const int chunks = fam_qk(T) / 32;
    const int64_t nblk = n / fam_qk(T);
    for (int64_t i = 0; i < nblk; i++) {
        const uint8_t *blk = (const uint8_t *)src + (size_t)i * fam_block_bytes(T);
        float s[16], b[16];
        fam_prep(T, blk, s, b);
        for (int c = 0; c < chunks; c++) {
            __m256i lo, hi;
            fam_dec(T, blk, c, &lo, &hi);
            float *o = dst + i * fam_qk(T) + 32 * c;
            avx2_store_half(lo, s[2 * c], b[2 * c], o);
            avx2_store_half(hi, s[2 * c + 1], b[2 * c + 1], o + 16);
        }
    }
}

#define LOOM_AVX2_EXPORT(t, T)                                                                     \
    LOOM_AVX2 void loom_dequantize_row_##t##_avx2(const void *src, float *dst, int64_t n) {        \
        avx2_dequantize(T, src, dst, n);                                                           \
    }                                                                                              \
    LOOM_AVX2 void loom_product_##t##_avx2(LOOM_PRODUCT_ARGS) {                                    \
        avx2_product(T, w, row_bytes, n_cols, x, ldx, xq, ldxq, y, ldy, nb, r0, r1, accumulate);   \
    }

#endif
