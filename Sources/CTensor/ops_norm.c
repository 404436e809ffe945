// RMSNorm and LayerNorm. The statistics (Σx², Σx) are accumulated in double: hidden sizes reach
// 8192, and a float sum there drifts by ~1e-4 relative, more than the engine's budget against
// float64 references. The scaling pass is F32.
#include "loom_ops.h"
#include "loom_cpu.h"
#include "simd_math.h"

#include <math.h>

static double sumsq_scalar(const float *x, int64_t n) {
    double s = 0;
    for (int64_t i = 0; i < n; i++) s += (double)x[i] * x[i];
    return s;
}

static double sum_scalar(const float *x, int64_t n) {
    double s = 0;
    for (int64_t i = 0; i < n; i++) s += x[i];
    return s;
}

static void scale_scalar(float *y, const float *x, const float *w, const float *b, float mean, float inv,
                         int64_t n) {
    for (int64_t i = 0; i < n; i++) {
        float v = (x[i] - mean) * inv;
        if (w) v *= w[i];
        if (b) v += b[i];
        y[i] = v;
    }
}

#if LOOM_X86
static LOOM_AVX2 double sumsq_avx2(const float *x, int64_t n) {
    __m256d a0 = _mm256_setzero_pd(), a1 = _mm256_setzero_pd();
    int64_t i = 0;
    for (; i + 8 <= n; i += 8) {
        __m256 v = _mm256_loadu_ps(x + i);
        __m256d lo = _mm256_cvtps_pd(_mm256_castps256_ps128(v));
        __m256d hi = _mm256_cvtps_pd(_mm256_extractf128_ps(v, 1));
        a0 = _mm256_fmadd_pd(lo, lo, a0);
        a1 = _mm256_fmadd_pd(hi, hi, a1);
    }
    double s = loom_hsum256d(_mm256_add_pd(a0, a1));
    for (; i < n; i++) s += (double)x[i] * x[i];
    return s;
}

static LOOM_AVX2 double sum_avx2(const float *x, int64_t n) {
    __m256d a0 = _mm256_setzero_pd(), a1 = _mm256_setzero_pd();
    int64_t i = 0;
    for (; i + 8 <= n; i += 8) {
        __m256 v = _mm256_loadu_ps(x + i);
        a0 = _mm256_add_pd(a0, _mm256_cvtps_pd(_mm256_castps256_ps128(v)));
        a1 = _mm256_add_pd(a1, _mm256_cvtps_pd(_mm256_extractf128_ps(v, 1)));
    }
    double s = loom_hsum256d(_mm256_add_pd(a0, a1));
    for (; i < n; i++) s += x[i];
    return s;
}

static LOOM_AVX2 void scale_avx2(float *y, const float *x, const float *w, const float *b, float mean,
                                 float inv, int64_t n) {
    __m256 vm = _mm256_set1_ps(mean), vi = _mm256_set1_ps(inv);
    int64_t i = 0;
    for (; i + 8 <= n; i += 8) {
        __m256 v = _mm256_mul_ps(_mm256_sub_ps(_mm256_loadu_ps(x + i), vm), vi);
        if (w) v = _mm256_mul_ps(v, _mm256_loadu_ps(w + i));
        if (b) v = _mm256_add_ps(v, _mm256_loadu_ps(b + i));
        _mm256_storeu_ps(y + i, v);
    }
    scale_scalar(y + i, x + i, w ? w + i : NULL, b ? b + i : NULL, mean, inv, n - i);
}

static LOOM_AVX512 double sumsq_avx512(const float *x, int64_t n) {
    __m512d a0 = _mm512_setzero_pd(), a1 = _mm512_setzero_pd();
    int64_t i = 0;
    for (; i + 16 <= n; i += 16) {
        __m512 v = _mm512_loadu_ps(x + i);
        __m512d lo = _mm512_cvtps_pd(_mm512_castps512_ps256(v));
        __m512d hi = _mm512_cvtps_pd(_mm256_castpd_ps(_mm512_extractf64x4_pd(_mm512_castps_pd(v), 1)));
        a0 = _mm512_fmadd_pd(lo, lo, a0);
        a1 = _mm512_fmadd_pd(hi, hi, a1);
    }
    double s = _mm512_reduce_add_pd(_mm512_add_pd(a0, a1));
    for (; i < n; i++) s += (double)x[i] * x[i];
    return s;
}

static LOOM_AVX512 double sum_avx512(const float *x, int64_t n) {
    __m512d a0 = _mm512_setzero_pd(), a1 = _mm512_setzero_pd();
    int64_t i = 0;
    for (; i + 16 <= n; i += 16) {
        __m512 v = _mm512_loadu_ps(x + i);
        a0 = _mm512_add_pd(a0, _mm512_cvtps_pd(_mm512_castps512_ps256(v)));
        a1 = _mm512_add_pd(a1, _mm512_cvtps_pd(_mm256_castpd_ps(_mm512_extractf64x4_pd(_mm512_castps_pd(v), 1))));
    }
    double s = _mm512_reduce_add_pd(_mm512_add_pd(a0, a1));
    for (; i < n; i++) s += x[i];
    return s;
}

static LOOM_AVX512 void scale_avx512(float *y, const float *x, const float *w, const float *b, float mean,
                                     float inv, int64_t n) {
    __m512 vm = _mm512_set1_ps(mean), vi = _mm512_set1_ps(inv);
    int64_t i = 0;
    for (; i + 16 <= n; i += 16) {
        __m512 v = _mm512_mul_ps(_mm512_sub_ps(_mm512_loadu_ps(x + i), vm), vi);
        if (w) v = _mm512_mul_ps(v, _mm512_loadu_ps(w + i));
        if (b) v = _mm512_add_ps(v, _mm512_loadu_ps(b + i));
        _mm512_storeu_ps(y + i, v);
    }
    scale_scalar(y + i, x + i, w ? w + i : NULL, b ? b + i : NULL, mean, inv, n - i);
}
#endif

static double sumsq(const float *x, int64_t n) {
#if LOOM_X86
    switch (loom_isa_active()) {
    case LOOM_ISA_AVX512: return sumsq_avx512(x, n);
    case LOOM_ISA_AVX2: return sumsq_avx2(x, n);
    default: break;
    }
#endif
    return sumsq_scalar(x, n);
}

static double sum(const float *x, int64_t n) {
#if LOOM_X86
    switch (loom_isa_active()) {
    case LOOM_ISA_AVX512: return sum_avx512(x, n);
    case LOOM_ISA_AVX2: return sum_avx2(x, n);
    default: break;
    }
#endif
    return sum_scalar(x, n);
}

static void apply(float *y, const float *x, const float *w, const float *b, float mean, float inv, int64_t n) {
#if LOOM_X86
    switch (loom_isa_active()) {
    case LOOM_ISA_AVX512: scale_avx512(y, x, w, b, mean, inv, n); return;
    case LOOM_ISA_AVX2: scale_avx2(y, x, w, b, mean, inv, n); return;
    default: break;
    }
#endif
    scale_scalar(y, x, w, b, mean, inv, n);
}

void loom_rmsnorm(float *y, const float *x, const float *w, int64_t n, float eps) {
    if (n <= 0) return;
    double ms = sumsq(x, n) / (double)n;
    float inv = (float)(1.0 / sqrt(ms + (double)eps));
    apply(y, x, w, NULL, 0.0f, inv, n);
}

void loom_layernorm(float *y, const float *x, const float *w, const float *b, int64_t n, float eps) {
    if (n <= 0) return;
    double mean = sum(x, n) / (double)n;
    // Two-pass variance around the double mean: E[(x-μ)²] keeps precision when |μ| >> σ.
    double var = 0;
    for (int64_t i = 0; i < n; i++) {
        double d = (double)x[i] - mean;
        var += d * d;
    }
    var /= (double)n;
    float inv = (float)(1.0 / sqrt(var + (double)eps));
    apply(y, x, w, b, (float)mean, inv, n);
}
