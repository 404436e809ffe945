// quant_avx2_template.h — the AVX2 loops shared by every quantized format.
//
// Work goes in groups of 8 chunks of 32 elements: one K-quant super-block, or 8 legacy blocks.
// A format family (quant_legacy_avx2.c, quant_k_avx2.c) defines, before including this file:
//   fam_qk(T)          elements per block           fam_block_bytes(T)  bytes per block
//   fam_same_scale(T)  both 16-halves of a chunk always share one scale
//   fam_has_bias(T)    weights carry an additive min term (weight = s*q + b)
//   fam_q_offset(T)    a constant subtracted from every q (Q4_0: 8, Q5_0: 16, Q6_K: 32);
//                      products apply it per group through A16's integer q sums, so fam_dec
//                      leaves it out unless `exact`
//   fam_group(T, g, cnt, exact, s, b)  the group's scales and mins as vectors: same-scale formats put
//                                chunk c's in lane c of s[0]/b[0]; the others put half h of
//                                chunk c in lane 2c+h of s[0..1]/b[0..1]. cnt < 8 only for a
//                                legacy row's last group.
//   fam_dec(T, g, c, exact, lo, hi)    chunk c of the group as two vectors of 16 int16 q values
// `exact` is 1 for dequantization (q with its offset, rounding as ggml does), 0 for products.
// The offset term uses the integer Σq of the *quantized* activations, so Σ(q-8)·xq is still
// computed exactly up to f32 rounding. (Using the exact f32 Σx there instead was measured: it
// mixes rounded and unrounded x and doubles the product error.)
// each a switch on a compile-time type constant T, so after inlining every format gets its own
// straight-line loop. A group costs a few vector ops for all its scales (times the A16 group
// scales, one vector load) and one vector FMA for all its min terms (times the exact A16 sums);
// a chunk costs its decode, two vpmaddwd, a convert and one FMA with a broadcast scale.
// Dequantization rounds as the reference does (multiply, then add).
#ifndef LOOM_QUANT_AVX2_TEMPLATE_H
#define LOOM_QUANT_AVX2_TEMPLATE_H

#include <immintrin.h>
#include <string.h>
#include "quant_blocks.h"

// The AVX-512 tier compiles these loops too, with its own target and LOOM_TEMPLATE_WIDE: the
// split-scale formats' chunks then take one 512-bit step (wide_chunk).
#ifndef LOOM_TEMPLATE_TARGET
#define LOOM_TEMPLATE_TARGET "avx2,fma,f16c"
#endif
#define LOOM_AVX2 __attribute__((target(LOOM_TEMPLATE_TARGET)))

// Software prefetch distance for weight streams. The hardware prefetcher alone left a
// single-thread Q4_K/Q4_1/Q8_0 matvec at 51-64% of the streaming read rate on the Zen 3 dev
// machine; 4 KiB ahead raised it to 63-82% (1 KiB: ~60%, 2 KiB: ~50-84%, noisy shared host).
#define LOOM_PREFETCH_AHEAD 4096

#define LOOM_AVX2_INLINE static inline __attribute__((always_inline, target(LOOM_TEMPLATE_TARGET)))

LOOM_AVX2_INLINE float avx2_hsum(__m256 v) {
    __m128 s = _mm_add_ps(_mm256_castps256_ps128(v), _mm256_extractf128_ps(v, 1));
    s = _mm_add_ps(s, _mm_movehl_ps(s, s));
    s = _mm_add_ss(s, _mm_movehdup_ps(s));
    return _mm_cvtss_f32(s);
}

LOOM_AVX2_INLINE __m256i avx2_lane_mask(int cnt) {
    return _mm256_cmpgt_epi32(_mm256_set1_epi32(cnt), _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7));
}

/// Chunk c of a group against NB activation rows, into accumulator set p (two sets keep two
/// independent FMA chains in flight).
LOOM_AVX2_INLINE void avx2_chunk(const int T, const int NB, const uint8_t *g, int c, int64_t ci,
                                const loom_a16 *a, float cs[4][16], const int p, __m256 acc[4][2]) {
    __m256i lo, hi;
    fam_dec(T, g, c, 0, &lo, &hi);
    for (int k = 0; k < NB; k++) {
        const int16_t *aq = a[k].q + 32 * ci;
        __m256i pl = _mm256_madd_epi16(lo, _mm256_loadu_si256((const __m256i *)aq));
        __m256i ph = _mm256_madd_epi16(hi, _mm256_loadu_si256((const __m256i *)(aq + 16)));
        if (fam_same_scale(T)) {
            __m256 v = _mm256_cvtepi32_ps(_mm256_add_epi32(pl, ph));
            acc[k][p] = _mm256_fmadd_ps(v, _mm256_broadcast_ss(&cs[k][c]), acc[k][p]);
        } else {
            acc[k][0] = _mm256_fmadd_ps(_mm256_cvtepi32_ps(pl), _mm256_broadcast_ss(&cs[k][2 * c]), acc[k][0]);
            acc[k][1] = _mm256_fmadd_ps(_mm256_cvtepi32_ps(ph), _mm256_broadcast_ss(&cs[k][2 * c + 1]), acc[k][1]);
        }
    }
}

#ifdef LOOM_TEMPLATE_WIDE
/// Chunk c of a split-scale group (Q2_K, Q3_K, Q6_K) in one 512-bit step: its 32 values (the
/// family's fam_dec_bytes, widened at once) against each row's 32 activations in one vpmaddwd,
/// whose lanes 0-7 are half 0's pair sums and lanes 8-15 half 1's, so one convert and one FMA
/// serve both halves. cs16[k] holds row k's 16 half scales of the group (lane 2c + h); a permute
/// spreads chunk c's two over the halves' lanes. Against two 256-bit steps this halves the
/// multiplies, converts and FMAs of a chunk.
LOOM_AVX2_INLINE void wide_chunk(const int T, const int NB, const uint8_t *g, int c, int64_t ci, const loom_a16 *a,
                                 const __m512 cs16[4], const int p, __m512 acc[4][2]) {
    const __m512i w = _mm512_cvtepi8_epi16(fam_dec_bytes(T, g, c, 0));
    const __m512i pick = _mm512_mask_set1_epi32(_mm512_set1_epi32(2 * c), (__mmask16)0xFF00, 2 * c + 1);
    for (int k = 0; k < NB; k++) {
        const __m512i pairs = _mm512_madd_epi16(w, _mm512_loadu_si512((const void *)(a[k].q + 32 * ci)));
        acc[k][p] = _mm512_fmadd_ps(_mm512_cvtepi32_ps(pairs), _mm512_permutexvar_ps(pick, cs16[k]), acc[k][p]);
    }
}
#endif

/// One weight row against NB A16 rows: out[k] = Σ_chunks d_x*(s·Σ q*x_q) + b·Σx. Each row k
/// has its own accumulators and gets the same operations in the same order whatever NB is, so
/// a row's result never depends on the rows multiplied beside it. `prefetch` 0 skips the
/// software prefetch (the row is already in L1 when it is multiplied by further rows).
LOOM_AVX2_INLINE void avx2_row(const int T, const int NB, const uint8_t *row, int64_t n_cols,
                              const loom_a16 *a, float *out, int prefetch) {
    const int64_t nchunks = n_cols / 32;
    const size_t group_bytes = fam_qk(T) == 32 ? 8 * fam_block_bytes(T) : fam_block_bytes(T);
    __m256 acc[4][2], bacc[4];
    for (int k = 0; k < NB; k++) acc[k][0] = acc[k][1] = bacc[k] = _mm256_setzero_ps();
#ifdef LOOM_TEMPLATE_WIDE
    const int wide = !fam_same_scale(T);
    __m512 wacc[4][2], cs16[4];
    for (int k = 0; k < NB; k++) wacc[k][0] = wacc[k][1] = _mm512_setzero_ps();
#endif
    for (int64_t g = 0; 8 * g < nchunks; g++) {
        // Only a legacy row can end in a partial group (K-quant rows are whole super-blocks).
        const int cnt = fam_qk(T) == 256 || nchunks - 8 * g >= 8 ? 8 : (int)(nchunks - 8 * g);
        const uint8_t *gp = row + (size_t)g * group_bytes;
        // Every cache line of the group LOOM_PREFETCH_AHEAD bytes on (rows are contiguous, so
        // this runs into the next row; prefetches never fault past the end).
        if (prefetch)
            for (size_t off = 0; off < group_bytes; off += 64)
                _mm_prefetch((const char *)gp + LOOM_PREFETCH_AHEAD + off, _MM_HINT_T0);
        __m256 s[2], b[2];
        fam_group(T, gp, cnt, 0, s, b);
        float cs[4][16] __attribute__((aligned(32)));
        const __m256i mask = avx2_lane_mask(cnt);
        for (int k = 0; k < NB; k++) {
            __m256 xd = cnt == 8 ? _mm256_loadu_ps(a[k].d + 8 * g) : _mm256_maskload_ps(a[k].d + 8 * g, mask);
            // The constant offset: scale * (-offset) * Σq of each chunk (half), once per group.
            const __m256 neg_off = _mm256_set1_ps(-(float)fam_q_offset(T));
            if (fam_same_scale(T)) {
                __m256 c8 = _mm256_mul_ps(s[0], xd);
                _mm256_store_ps(cs[k], c8);
                if (fam_has_bias(T)) {
                    __m256 xs = cnt == 8 ? _mm256_loadu_ps(a[k].sum32 + 8 * g) : _mm256_maskload_ps(a[k].sum32 + 8 * g, mask);
                    bacc[k] = _mm256_fmadd_ps(b[0], xs, bacc[k]);
                }
                if (fam_q_offset(T)) {
                    __m256 qs = cnt == 8 ? _mm256_loadu_ps(a[k].qsum32 + 8 * g) : _mm256_maskload_ps(a[k].qsum32 + 8 * g, mask);
                    bacc[k] = _mm256_fmadd_ps(c8, _mm256_mul_ps(qs, neg_off), bacc[k]);
                }
            } else {
                // Split-scale formats are K-quants: their groups are always whole.
                __m256 xd0 = _mm256_permutevar8x32_ps(xd, _mm256_setr_epi32(0, 0, 1, 1, 2, 2, 3, 3));
                __m256 xd1 = _mm256_permutevar8x32_ps(xd, _mm256_setr_epi32(4, 4, 5, 5, 6, 6, 7, 7));
                __m256 c0 = _mm256_mul_ps(s[0], xd0), c1 = _mm256_mul_ps(s[1], xd1);
                _mm256_store_ps(cs[k], c0);
                _mm256_store_ps(cs[k] + 8, c1);
#ifdef LOOM_TEMPLATE_WIDE
                cs16[k] = _mm512_castpd_ps(_mm512_insertf64x4(_mm512_castpd256_pd512(_mm256_castps_pd(c0)),
                                                              _mm256_castps_pd(c1), 1));
#endif
                if (fam_has_bias(T)) {
                    bacc[k] = _mm256_fmadd_ps(b[0], _mm256_loadu_ps(a[k].sum16 + 16 * g), bacc[k]);
                    bacc[k] = _mm256_fmadd_ps(b[1], _mm256_loadu_ps(a[k].sum16 + 16 * g + 8), bacc[k]);
                }
                if (fam_q_offset(T)) {
                    bacc[k] = _mm256_fmadd_ps(c0, _mm256_mul_ps(_mm256_loadu_ps(a[k].qsum16 + 16 * g), neg_off), bacc[k]);
                    bacc[k] = _mm256_fmadd_ps(c1, _mm256_mul_ps(_mm256_loadu_ps(a[k].qsum16 + 16 * g + 8), neg_off), bacc[k]);
                }
            }
        }
        const int64_t ci = 8 * g;
#ifdef LOOM_TEMPLATE_WIDE
        if (wide) {
            // Split-scale formats are K-quants: their groups are always whole.
#pragma unroll
            for (int c = 0; c < 8; c += 2) {
                wide_chunk(T, NB, gp, c, ci + c, a, cs16, 0, wacc);
                wide_chunk(T, NB, gp, c + 1, ci + c + 1, a, cs16, 1, wacc);
            }
            continue;
        }
#endif
        if (cnt == 8) {
#pragma unroll
            for (int c = 0; c < 8; c += 2) {
                avx2_chunk(T, NB, gp, c, ci + c, a, cs, 0, acc);
                avx2_chunk(T, NB, gp, c + 1, ci + c + 1, a, cs, 1, acc);
            }
        } else {
            for (int c = 0; c < cnt; c++) avx2_chunk(T, NB, gp, c, ci + c, a, cs, 0, acc);
        }
    }
#ifdef LOOM_TEMPLATE_WIDE
    // Lanes 0-7 of the wide sums are the 256-bit path's half-0 accumulator, 8-15 its half-1 one.
    if (wide)
        for (int k = 0; k < NB; k++) {
            const __m512 t = _mm512_add_ps(wacc[k][0], wacc[k][1]);
            acc[k][0] = _mm512_castps512_ps256(t);
            acc[k][1] = _mm256_castpd_ps(_mm512_extractf64x4_pd(_mm512_castps_pd(t), 1));
        }
#endif
    for (int k = 0; k < NB; k++)
        out[k] = avx2_hsum(_mm256_add_ps(_mm256_add_ps(acc[k][0], acc[k][1]), bacc[k]));
}

/// Most activation rows one pass over the weights serves; larger batches take one pass per 32.
#define LOOM_AVX2_BATCH 32

/// Each weight row is multiplied with every activation row, four at a time, before the next
/// weight row is read: the row (a few hundred bytes to a few KiB) stays in L1 after the first
/// four, so the weights stream from memory once however many rows there are.
LOOM_AVX2_INLINE void avx2_product(const int T, LOOM_PRODUCT_ARGS) {
    (void)x; (void)ldx;
    for (int64_t b0 = 0; b0 < nb; b0 += LOOM_AVX2_BATCH) {
        const int n = nb - b0 < LOOM_AVX2_BATCH ? (int)(nb - b0) : LOOM_AVX2_BATCH;
        loom_a16 a[LOOM_AVX2_BATCH];
        for (int k = 0; k < n; k++) a[k] = loom_a16_view((const char *)xq + (size_t)(b0 + k) * xq_stride, n_cols);
        for (int64_t r = r0; r < r1; r++) {
            const uint8_t *row = (const uint8_t *)w + (size_t)r * row_bytes;
            for (int k0 = 0; k0 < n; k0 += 4) {
                float o[4];
                // The common one-row product gets a call with every argument a constant.
                if (n == 1) avx2_row(T, 1, row, n_cols, a, o, 1);
                else switch (n - k0 < 4 ? n - k0 : 4) {
                case 4: avx2_row(T, 4, row, n_cols, a + k0, o, k0 == 0); break;
                case 3: avx2_row(T, 3, row, n_cols, a + k0, o, k0 == 0); break;
                case 2: avx2_row(T, 2, row, n_cols, a + k0, o, k0 == 0); break;
                default: avx2_row(T, 1, row, n_cols, a + k0, o, k0 == 0); break;
                }
                for (int k = 0; k < 4 && k0 + k < n; k++) {
                    float *dst = y + (b0 + k0 + k) * ldy + r;
                    *dst = accumulate ? *dst + o[k] : o[k];
                }
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
    const int64_t nchunks = n / 32;
    const size_t group_bytes = fam_qk(T) == 32 ? 8 * fam_block_bytes(T) : fam_block_bytes(T);
    for (int64_t g = 0; 8 * g < nchunks; g++) {
        const int cnt = nchunks - 8 * g < 8 ? (int)(nchunks - 8 * g) : 8;
        const uint8_t *gp = (const uint8_t *)src + (size_t)g * group_bytes;
        __m256 s[2], b[2];
        fam_group(T, gp, cnt, 1, s, b);
        float sv[16], bv[16];
        _mm256_storeu_ps(sv, s[0]);
        _mm256_storeu_ps(sv + 8, s[1]);
        _mm256_storeu_ps(bv, b[0]);
        _mm256_storeu_ps(bv + 8, b[1]);
        for (int c = 0; c < cnt; c++) {
            __m256i lo, hi;
            fam_dec(T, gp, c, 1, &lo, &hi);
            float *o = dst + (8 * g + c) * 32;
            int i0 = fam_same_scale(T) ? c : 2 * c, i1 = fam_same_scale(T) ? c : 2 * c + 1;
            avx2_store_half(lo, sv[i0], bv[i0], o);
            avx2_store_half(hi, sv[i1], bv[i1], o + 16);
        }
    }
}

/// loom_product_<t>_<tier>: the product of type T with these loops.
#define LOOM_TEMPLATE_PRODUCT(t, T, tier)                                                          \
    LOOM_AVX2 void loom_product_##t##_##tier(LOOM_PRODUCT_ARGS) {                                  \
        avx2_product(T, w, row_bytes, n_cols, x, ldx, xq, xq_stride, y, ldy, nb, r0, r1, accumulate); \
    }

#define LOOM_AVX2_EXPORT(t, T)                                                                     \
    LOOM_AVX2 void loom_dequantize_row_##t##_avx2(const void *src, float *dst, int64_t n) {        \
        avx2_dequantize(T, src, dst, n);                                                           \
    }                                                                                              \
    LOOM_TEMPLATE_PRODUCT(t, T, avx2)

#endif
