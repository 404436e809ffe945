// In-place softmax. The max is subtracted first so exp never overflows; the normaliser is summed
// in double so long rows (vocabularies of 150k, contexts of 32k) keep full float precision.
#include "loom_ops.h"
#include "loom_cpu.h"
#include "simd_math.h"

#include <math.h>

static float max_scalar(const float *x, int64_t n) {
    float m = -INFINITY;
    for (int64_t i = 0; i < n; i++) m = x[i] > m ? x[i] : m;
    return m;
}

static double exp_sum_scalar(float *x, int64_t n, float m) {
    double s = 0;
    for (int64_t i = 0; i < n; i++) {
        float e = expf(x[i] - m);
        x[i] = e;
        s += e;
    }
    return s;
}

static void scale_scalar(float *x, int64_t n, float s) {
    for (int64_t i = 0; i < n; i++) x[i] *= s;
}

#if LOOM_X86
static LOOM_AVX2 float max_avx2(const float *x, int64_t n) {
    __m256 m = _mm256_set1_ps(-INFINITY);
    int64_t i = 0;
    for (; i + 8 <= n; i += 8) m = _mm256_max_ps(_mm256_loadu_ps(x + i), m);
    float r = loom_hmax256(m);
    for (; i < n; i++) r = x[i] > r ? x[i] : r;
    return r;
}

static LOOM_AVX2 double exp_sum_avx2(float *x, int64_t n, float m) {
    __m256 vm = _mm256_set1_ps(m);
    __m256d s0 = _mm256_setzero_pd(), s1 = _mm256_setzero_pd();
    int64_t i = 0;
    for (; i + 8 <= n; i += 8) {
        __m256 e = loom_exp256(_mm256_sub_ps(_mm256_loadu_ps(x + i), vm));
        _mm256_storeu_ps(x + i, e);
        s0 = _mm256_add_pd(s0, _mm256_cvtps_pd(_mm256_castps256_ps128(e)));
        s1 = _mm256_add_pd(s1, _mm256_cvtps_pd(_mm256_extractf128_ps(e, 1)));
    }
    double s = loom_hsum256d(_mm256_add_pd(s0, s1));
    return s + exp_sum_scalar(x + i, n - i, m);
}

static LOOM_AVX2 void scale_avx2(float *x, int64_t n, float s) {
    __m256 vs = _mm256_set1_ps(s);
    int64_t i = 0;
    for (; i + 8 <= n; i += 8) _mm256_storeu_ps(x + i, _mm256_mul_ps(_mm256_loadu_ps(x + i), vs));
    scale_scalar(x + i, n - i, s);
}

static LOOM_AVX512 float max_avx512(const float *x, int64_t n) {
    __m512 m = _mm512_set1_ps(-INFINITY);
    int64_t i = 0;
    for (; i + 16 <= n; i += 16) m = _mm512_max_ps(_mm512_loadu_ps(x + i), m);
    float r = _mm512_reduce_max_ps(m);
    for (; i < n; i++) r = x[i] > r ? x[i] : r;
    return r;
}

static LOOM_AVX512 double exp_sum_avx512(float *x, int64_t n, float m) {
    __m512 vm = _mm512_set1_ps(m);
    __m512d s0 = _mm512_setzero_pd(), s1 = _mm512_setzero_pd();
    int64_t i = 0;
    for (; i + 16 <= n; i += 16) {
        __m512 e = loom_exp512(_mm512_sub_ps(_mm512_loadu_ps(x + i), vm));
        _mm512_storeu_ps(x + i, e);
        s0 = _mm512_add_pd(s0, _mm512_cvtps_pd(_mm512_castps512_ps256(e)));
        s1 = _mm512_add_pd(s1, _mm512_cvtps_pd(_mm256_castpd_ps(_mm512_extractf64x4_pd(_mm512_castps_pd(e), 1))));
    }
    double s = _mm512_reduce_add_pd(_mm512_add_pd(s0, s1));
    return s + exp_sum_scalar(x + i, n - i, m);
}

static LOOM_AVX512 void scale_avx512(float *x, int64_t n, float s) {
    __m512 vs = _mm512_set1_ps(s);
    int64_t i = 0;
    for (; i + 16 <= n; i += 16) _mm512_storeu_ps(x + i, _mm512_mul_ps(_mm512_loadu_ps(x + i), vs));
    scale_scalar(x + i, n - i, s);
}
#endif

#if LOOM_X86
static LOOM_AVX2 int64_t exp_avx2(float *x, int64_t n) {
    int64_t i = 0;
    for (; i + 8 <= n; i += 8) _mm256_storeu_ps(x + i, loom_exp256(_mm256_loadu_ps(x + i)));
    return i;
}
static LOOM_AVX512 int64_t exp_avx512(float *x, int64_t n) {
    int64_t i = 0;
    for (; i + 16 <= n; i += 16) _mm512_storeu_ps(x + i, loom_exp512(_mm512_loadu_ps(x + i)));
    return i;
}
#endif

void loom_exp_inplace(float *x, int64_t n) {
    int64_t i = 0;
#if LOOM_X86
    switch (loom_isa_active()) {
    case LOOM_ISA_AVX512: i = exp_avx512(x, n); break;
    case LOOM_ISA_AVX2: i = exp_avx2(x, n); break;
    default: break;
    }
#endif
    for (; i < n; i++) x[i] = loom_exp_exact(x[i]);
}

void loom_softmax(float *x, int64_t n) {
    if (n <= 0) return;
    loom_isa isa = loom_isa_active();
    (void)isa;
    float m;
#if LOOM_X86
    if (isa == LOOM_ISA_AVX512) m = max_avx512(x, n);
    else if (isa == LOOM_ISA_AVX2) m = max_avx2(x, n);
    else
#endif
        m = max_scalar(x, n);
    if (!(m > -INFINITY)) {
        // No finite entry (all -inf, or NaN input): no distribution to speak of.
        for (int64_t i = 0; i < n; i++) x[i] = 0.0f;
        return;
    }
    double s;
#if LOOM_X86
    if (isa == LOOM_ISA_AVX512) s = exp_sum_avx512(x, n, m);
    else if (isa == LOOM_ISA_AVX2) s = exp_sum_avx2(x, n, m);
    else
#endif
        s = exp_sum_scalar(x, n, m);
    float inv = (float)(1.0 / s);
#if LOOM_X86
    if (isa == LOOM_ISA_AVX512) scale_avx512(x, n, inv);
    else if (isa == LOOM_ISA_AVX2) scale_avx2(x, n, inv);
    else
#endif
        scale_scalar(x, n, inv);
}
