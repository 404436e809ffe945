// F32 <-> F16 rows. F16C rounds to nearest-even like loom_fp32_to_fp16 (imm 0 = RNE, and MXCSR
// is not consulted with an explicit rounding immediate), so every tier gives the same bits.
#include "loom_ops.h"
#include "loom_cpu.h"
#include "loom_half.h"
#include "simd_math.h"

#if LOOM_X86
static LOOM_AVX2 int64_t to16_avx2(uint16_t *dst, const float *src, int64_t n) {
    int64_t i = 0;
    for (; i + 8 <= n; i += 8)
        _mm_storeu_si128((__m128i *)(dst + i), _mm256_cvtps_ph(_mm256_loadu_ps(src + i), _MM_FROUND_TO_NEAREST_INT));
    return i;
}
static LOOM_AVX2 int64_t to32_avx2(float *dst, const uint16_t *src, int64_t n) {
    int64_t i = 0;
    for (; i + 8 <= n; i += 8) _mm256_storeu_ps(dst + i, _mm256_cvtph_ps(_mm_loadu_si128((const __m128i *)(src + i))));
    return i;
}
static LOOM_AVX512 int64_t to16_avx512(uint16_t *dst, const float *src, int64_t n) {
    int64_t i = 0;
    for (; i + 16 <= n; i += 16)
        _mm256_storeu_si256((__m256i *)(dst + i), _mm512_cvtps_ph(_mm512_loadu_ps(src + i), _MM_FROUND_TO_NEAREST_INT));
    return i;
}
static LOOM_AVX512 int64_t to32_avx512(float *dst, const uint16_t *src, int64_t n) {
    int64_t i = 0;
    for (; i + 16 <= n; i += 16)
        _mm512_storeu_ps(dst + i, _mm512_cvtph_ps(_mm256_loadu_si256((const __m256i *)(src + i))));
    return i;
}
#endif

void loom_fp32_to_fp16_row(uint16_t *dst, const float *src, int64_t n) {
    int64_t i = 0;
#if LOOM_X86
    switch (loom_isa_active()) {
    case LOOM_ISA_AVX512: i = to16_avx512(dst, src, n); break;
    case LOOM_ISA_AVX2: i = to16_avx2(dst, src, n); break;
    default: break;
    }
#endif
    for (; i < n; i++) dst[i] = loom_fp32_to_fp16(src[i]);
}

void loom_fp16_to_fp32_row(float *dst, const uint16_t *src, int64_t n) {
    int64_t i = 0;
#if LOOM_X86
    switch (loom_isa_active()) {
    case LOOM_ISA_AVX512: i = to32_avx512(dst, src, n); break;
    case LOOM_ISA_AVX2: i = to32_avx2(dst, src, n); break;
    default: break;
    }
#endif
    for (; i < n; i++) dst[i] = loom_fp16_to_fp32(src[i]);
}
