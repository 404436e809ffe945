// Float weight formats (F32, F16, BF16): AVX2+FMA+F16C tier. Weights are widened to f32 in
// registers (vcvtph2ps for F16, a 16-bit shift for BF16) and multiplied with f32 activations.
#if defined(__x86_64__)
#include "quant_blocks.h"
#include <immintrin.h>

#define LOOM_AVX2 __attribute__((target("avx2,fma,f16c")))
#define LOOM_AVX2_INLINE static inline __attribute__((always_inline, target("avx2,fma,f16c")))

enum { F32 = 0, F16 = 1, BF16 = 2 };

LOOM_AVX2_INLINE __m256 load8(const int T, const void *w, int64_t i) {
    switch (T) {
    case F32: return _mm256_loadu_ps((const float *)w + i);
    case F16: return _mm256_cvtph_ps(_mm_loadu_si128((const __m128i *)((const uint16_t *)w + i)));
    default: {
        __m256i h = _mm256_cvtepu16_epi32(_mm_loadu_si128((const __m128i *)((const uint16_t *)w + i)));
        return _mm256_castsi256_ps(_mm256_slli_epi32(h, 16));
    }
    }
}

LOOM_AVX2_INLINE float load1(const int T, const void *w, int64_t i) {
    switch (T) {
    case F32: return ((const float *)w)[i];
    case F16: return loom_fp16_to_fp32(((const uint16_t *)w)[i]);
    default: return loom_bf16_to_fp32(((const uint16_t *)w)[i]);
    }
}

LOOM_AVX2_INLINE float hsum(__m256 v) {
    __m128 s = _mm_add_ps(_mm256_castps256_ps128(v), _mm256_extractf128_ps(v, 1));
    s = _mm_add_ps(s, _mm_movehl_ps(s, s));
    s = _mm_add_ss(s, _mm_movehdup_ps(s));
    return _mm_cvtss_f32(s);
}

/// One row against NB columns; two accumulators per column hide the FMA latency.
LOOM_AVX2_INLINE void row_dot(const int T, const int NB, const void *row, int64_t n, const float *x,
                             int64_t ldx, float *out) {
    __m256 acc[4][2];
    for (int k = 0; k < NB; k++) acc[k][0] = acc[k][1] = _mm256_setzero_ps();
    int64_t i = 0;
    for (; i + 16 <= n; i += 16) {
        __m256 w0 = load8(T, row, i), w1 = load8(T, row, i + 8);
        for (int k = 0; k < NB; k++) {
            acc[k][0] = _mm256_fmadd_ps(w0, _mm256_loadu_ps(x + k * ldx + i), acc[k][0]);
            acc[k][1] = _mm256_fmadd_ps(w1, _mm256_loadu_ps(x + k * ldx + i + 8), acc[k][1]);
        }
    }
    for (; i + 8 <= n; i += 8) {
        __m256 w0 = load8(T, row, i);
        for (int k = 0; k < NB; k++) acc[k][0] = _mm256_fmadd_ps(w0, _mm256_loadu_ps(x + k * ldx + i), acc[k][0]);
    }
    for (int k = 0; k < NB; k++) {
        float s = hsum(_mm256_add_ps(acc[k][0], acc[k][1]));
        for (int64_t j = i; j < n; j++) s += load1(T, row, j) * x[k * ldx + j];
        out[k] = s;
    }
}

/// Each weight row is multiplied with every activation column, four at a time, before the next
/// row is read, so it streams from memory once and the later groups find it in L1. row_dot gives
/// each column the same operations whatever the group size, so results do not depend on nb.
LOOM_AVX2_INLINE void product(const int T, LOOM_PRODUCT_ARGS) {
    (void)xq; (void)xq_stride;
    for (int64_t r = r0; r < r1; r++) {
        const char *row = (const char *)w + (size_t)r * row_bytes;
        for (int64_t b0 = 0; b0 < nb; b0 += 4) {
            const int64_t g = nb - b0 < 4 ? nb - b0 : 4;
            const float *xg = x + b0 * ldx;
            float o[4];
            switch (g) {
            case 4: row_dot(T, 4, row, n_cols, xg, ldx, o); break;
            case 3: row_dot(T, 3, row, n_cols, xg, ldx, o); break;
            case 2: row_dot(T, 2, row, n_cols, xg, ldx, o); break;
            default: row_dot(T, 1, row, n_cols, xg, ldx, o); break;
            }
            for (int64_t k = 0; k < g; k++) {
                float *dst = y + (b0 + k) * ldy + r;
                *dst = accumulate ? *dst + o[k] : o[k];
            }
        }
    }
}

LOOM_AVX2_INLINE void dequantize(const int T, const void *src, float *dst, int64_t n) {
    int64_t i = 0;
    for (; i + 8 <= n; i += 8) _mm256_storeu_ps(dst + i, load8(T, src, i));
    for (; i < n; i++) dst[i] = load1(T, src, i);
}

#define EXPORT(t, T)                                                                               \
    LOOM_AVX2 void loom_dequantize_row_##t##_avx2(const void *src, float *dst, int64_t n) {        \
        dequantize(T, src, dst, n);                                                                \
    }                                                                                              \
    LOOM_AVX2 void loom_product_##t##_avx2(LOOM_PRODUCT_ARGS) {                                    \
        product(T, w, row_bytes, n_cols, x, ldx, xq, xq_stride, y, ldy, nb, r0, r1, accumulate);        \
    }

EXPORT(f32, F32)
EXPORT(f16, F16)
EXPORT(bf16, BF16)
#endif
