// kv_quant.c — writing keys and values into a KV cache row of its element type.
//
// Q8_0 rows are ggml's blocks (quant_blocks.h): per 32 values an F16 scale d = max|x| / 127 and
// 32 int8 q = round(x / d). The quantizer divides by the unrounded d (as ggml's reference does),
// so the worst element error is d/2 plus the F16 rounding of d times 127. The AVX2 quantizer
// produces the same bytes as the scalar one: max|x| is exact in any order, x * (1/d) is one
// IEEE multiply in both, and rounding is done half away from zero (C's roundf) in both rather
// than with the vector unit's default nearest-even, so a cache written by either tier is the
// same cache.
#include "loom_ops.h"
#include "loom_cpu.h"
#include "loom_half.h"
#include "quant_blocks.h"
#include "simd_math.h"

#include <math.h>
#include <string.h>

int64_t loom_kv_row_bytes(int32_t kv_type, int64_t n) {
    if (n < 0) return 0;
    switch (kv_type) {
    case LOOM_TYPE_F32: return 4 * n;
    case LOOM_TYPE_F16: return 2 * n;
    case LOOM_TYPE_Q8_0: return n % LOOM_QK8_0 == 0 ? n / LOOM_QK8_0 * (int64_t)sizeof(loom_block_q8_0) : 0;
    default: return 0;
    }
}

static void quantize_q8_0_scalar(loom_block_q8_0 *y, const float *x, int64_t nb) {
    for (int64_t b = 0; b < nb; b++) {
        const float *xb = x + b * LOOM_QK8_0;
        float amax = 0;
        for (int i = 0; i < LOOM_QK8_0; i++) amax = fmaxf(amax, fabsf(xb[i]));
        const float d = amax / 127.0f, id = d != 0.0f ? 1.0f / d : 0.0f;
        y[b].d = loom_fp32_to_fp16(d);
        for (int i = 0; i < LOOM_QK8_0; i++) y[b].qs[i] = (int8_t)roundf(xb[i] * id);
    }
}

#if LOOM_X86
// round(v) half away from zero: trunc(v), plus sign(v) where the dropped fraction is >= 0.5
// (v - trunc(v) is exact for |v| < 2^24, which |x / d| <= 127 always is).
static LOOM_AVX2 inline __m256i round_away(__m256 v) {
    const __m256 sign = _mm256_set1_ps(-0.0f);
    __m256 t = _mm256_round_ps(v, _MM_FROUND_TO_ZERO | _MM_FROUND_NO_EXC);
    __m256 frac = _mm256_andnot_ps(sign, _mm256_sub_ps(v, t));
    __m256 step = _mm256_or_ps(_mm256_and_ps(v, sign), _mm256_set1_ps(1.0f));
    __m256 half = _mm256_cmp_ps(frac, _mm256_set1_ps(0.5f), _CMP_GE_OQ);
    return _mm256_cvtps_epi32(_mm256_add_ps(t, _mm256_and_ps(half, step)));
}

static LOOM_AVX2 void quantize_q8_0_avx2(loom_block_q8_0 *y, const float *x, int64_t nb) {
    const __m256 sign = _mm256_set1_ps(-0.0f);
    for (int64_t b = 0; b < nb; b++) {
        const float *xb = x + b * LOOM_QK8_0;
        __m256 v0 = _mm256_loadu_ps(xb), v1 = _mm256_loadu_ps(xb + 8);
        __m256 v2 = _mm256_loadu_ps(xb + 16), v3 = _mm256_loadu_ps(xb + 24);
        __m256 m = _mm256_max_ps(_mm256_max_ps(_mm256_andnot_ps(sign, v0), _mm256_andnot_ps(sign, v1)),
                                 _mm256_max_ps(_mm256_andnot_ps(sign, v2), _mm256_andnot_ps(sign, v3)));
        __m128 m4 = _mm_max_ps(_mm256_castps256_ps128(m), _mm256_extractf128_ps(m, 1));
        m4 = _mm_max_ps(m4, _mm_movehl_ps(m4, m4));
        m4 = _mm_max_ss(m4, _mm_movehdup_ps(m4));
        const float amax = _mm_cvtss_f32(m4);
        const float d = amax / 127.0f, id = d != 0.0f ? 1.0f / d : 0.0f;
        y[b].d = loom_fp32_to_fp16(d);
        const __m256 vid = _mm256_set1_ps(id);
        __m256i q0 = round_away(_mm256_mul_ps(v0, vid)), q1 = round_away(_mm256_mul_ps(v1, vid));
        __m256i q2 = round_away(_mm256_mul_ps(v2, vid)), q3 = round_away(_mm256_mul_ps(v3, vid));
        // The packs work per 128-bit lane; the permute puts the 32-bit groups back in order.
        __m256i q01 = _mm256_packs_epi32(q0, q1), q23 = _mm256_packs_epi32(q2, q3);
        __m256i q = _mm256_packs_epi16(q01, q23);
        q = _mm256_permutevar8x32_epi32(q, _mm256_setr_epi32(0, 4, 1, 5, 2, 6, 3, 7));
        _mm256_storeu_si256((__m256i *)y[b].qs, q);
    }
}
#endif

void loom_kv_quantize_q8_0_isa(int isa, void *dst, const float *src, int64_t n) {
    const int64_t nb = n / LOOM_QK8_0;
#if LOOM_X86
    if (isa >= LOOM_ISA_AVX2 && loom_isa_best() >= LOOM_ISA_AVX2) {
        quantize_q8_0_avx2(dst, src, nb);
        return;
    }
#else
    (void)isa;
#endif
    quantize_q8_0_scalar(dst, src, nb);
}

int loom_kv_store_row(int32_t kv_type, void *dst, const float *src, int64_t n) {
    if (loom_kv_row_bytes(kv_type, n) == 0 && n != 0) return -1;
    switch (kv_type) {
    case LOOM_TYPE_F32: memcpy(dst, src, (size_t)n * sizeof(float)); break;
    case LOOM_TYPE_F16: loom_fp32_to_fp16_row(dst, src, n); break;
    case LOOM_TYPE_Q8_0: loom_kv_quantize_q8_0_isa(loom_isa_active(), dst, src, n); break;
    default: return -1;
    }
    return 0;
}
