// Activation quantization to A16 rows: AVX2 tier. Same scale, same products x*id and the
// same round-to-nearest-even as the reference (vcvtps2dq under the default MXCSR), so the
// int16 values match loom_quantize_a16_ref exactly.
#if defined(__x86_64__)
#include "quant_blocks.h"
#include <immintrin.h>
#include <math.h>

#define LOOM_AVX2 __attribute__((target("avx2,fma,f16c")))
#define LOOM_AVX2_INLINE static inline __attribute__((always_inline, target("avx2,fma,f16c")))

LOOM_AVX2_INLINE float hsum(__m256 v) {
    __m128 s = _mm_add_ps(_mm256_castps256_ps128(v), _mm256_extractf128_ps(v, 1));
    s = _mm_add_ps(s, _mm_movehl_ps(s, s));
    s = _mm_add_ss(s, _mm_movehdup_ps(s));
    return _mm_cvtss_f32(s);
}

LOOM_AVX2_INLINE int32_t hsum_i32(__m256i v) {
    __m128i s = _mm_add_epi32(_mm256_castsi256_si128(v), _mm256_extracti128_si256(v, 1));
    s = _mm_add_epi32(s, _mm_shuffle_epi32(s, 0x4E));
    s = _mm_add_epi32(s, _mm_shuffle_epi32(s, 0xB1));
    return _mm_cvtsi128_si32(s);
}

LOOM_AVX2_INLINE float hmax(__m256 v) {
    __m128 s = _mm_max_ps(_mm256_castps256_ps128(v), _mm256_extractf128_ps(v, 1));
    s = _mm_max_ps(s, _mm_movehl_ps(s, s));
    s = _mm_max_ss(s, _mm_movehdup_ps(s));
    return _mm_cvtss_f32(s);
}

LOOM_AVX2 void loom_quantize_a16_avx2(const float *x, void *dst, int64_t n) {
    loom_a16_mut a = loom_a16_view_mut(dst, n);
    const __m256 abs_mask = _mm256_castsi256_ps(_mm256_set1_epi32(0x7FFFFFFF));
    for (int64_t i = 0; i < n / 32; i++) {
        const float *xb = x + 32 * i;
        __m256 v0 = _mm256_loadu_ps(xb), v1 = _mm256_loadu_ps(xb + 8);
        __m256 v2 = _mm256_loadu_ps(xb + 16), v3 = _mm256_loadu_ps(xb + 24);
        __m256 m = _mm256_max_ps(_mm256_max_ps(_mm256_and_ps(v0, abs_mask), _mm256_and_ps(v1, abs_mask)),
                                 _mm256_max_ps(_mm256_and_ps(v2, abs_mask), _mm256_and_ps(v3, abs_mask)));
        float amax = hmax(m);
        float id = amax > 0.0f ? LOOM_A16_MAX / amax : 0.0f;
        a.d[i] = amax / LOOM_A16_MAX;
        a.sum16[2 * i] = hsum(_mm256_add_ps(v0, v1));
        a.sum16[2 * i + 1] = hsum(_mm256_add_ps(v2, v3));
        a.sum32[i] = a.sum16[2 * i] + a.sum16[2 * i + 1];
        if (!(fabsf(a.sum32[i]) <= 3.4028235e38f)) a.d[i] = __builtin_nanf("");  // as the reference
        __m256 vid = _mm256_set1_ps(id);
        __m256i i0 = _mm256_cvtps_epi32(_mm256_mul_ps(v0, vid));
        __m256i i1 = _mm256_cvtps_epi32(_mm256_mul_ps(v1, vid));
        __m256i i2 = _mm256_cvtps_epi32(_mm256_mul_ps(v2, vid));
        __m256i i3 = _mm256_cvtps_epi32(_mm256_mul_ps(v3, vid));
        // packs works within 128-bit lanes; the permute restores element order.
        __m256i p01 = _mm256_permute4x64_epi64(_mm256_packs_epi32(i0, i1), 0xD8);
        __m256i p23 = _mm256_permute4x64_epi64(_mm256_packs_epi32(i2, i3), 0xD8);
        _mm256_storeu_si256((__m256i *)(a.q + 32 * i), p01);
        _mm256_storeu_si256((__m256i *)(a.q + 32 * i + 16), p23);
        // Integer sums of each half (exact in f32).
        __m256i s01 = _mm256_add_epi32(i0, i1), s23 = _mm256_add_epi32(i2, i3);
        a.qsum16[2 * i] = (float)hsum_i32(s01);
        a.qsum16[2 * i + 1] = (float)hsum_i32(s23);
        a.qsum32[i] = a.qsum16[2 * i] + a.qsum16[2 * i + 1];
    }
}
#endif
