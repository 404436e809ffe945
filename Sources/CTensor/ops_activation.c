// Element-wise activations and arithmetic. SiLU and GELU share one form, x·σ(k·u): GELU's tanh
// approximation 0.5·x·(1 + tanh(u)) equals x·σ(2u), which needs only exp, so every tier uses the
// same vector exp and agrees with the scalar expf path to about an ulp.
#include "loom_ops.h"
#include "loom_cpu.h"
#include "simd_math.h"

#include <math.h>

#define GELU_C 0.7978845608028654f  // sqrt(2/π)
#define GELU_A 0.044715f

static inline float silu1(float x) { return x / (1.0f + expf(-x)); }
static inline float gelu1(float x) {
    float u = GELU_C * (x + GELU_A * x * x * x);
    return x / (1.0f + expf(-2.0f * u));
}

#if LOOM_X86
static LOOM_AVX2 __m256 silu8(__m256 x) {
    __m256 e = loom_exp256(_mm256_sub_ps(_mm256_setzero_ps(), x));
    return _mm256_div_ps(x, _mm256_add_ps(_mm256_set1_ps(1.0f), e));
}
static LOOM_AVX2 __m256 gelu8(__m256 x) {
    __m256 x3 = _mm256_mul_ps(_mm256_mul_ps(x, x), x);
    __m256 u = _mm256_mul_ps(_mm256_set1_ps(-2.0f * GELU_C), _mm256_fmadd_ps(_mm256_set1_ps(GELU_A), x3, x));
    return _mm256_div_ps(x, _mm256_add_ps(_mm256_set1_ps(1.0f), loom_exp256(u)));
}
static LOOM_AVX512 __m512 silu16(__m512 x) {
    __m512 e = loom_exp512(_mm512_sub_ps(_mm512_setzero_ps(), x));
    return _mm512_div_ps(x, _mm512_add_ps(_mm512_set1_ps(1.0f), e));
}
static LOOM_AVX512 __m512 gelu16(__m512 x) {
    __m512 x3 = _mm512_mul_ps(_mm512_mul_ps(x, x), x);
    __m512 u = _mm512_mul_ps(_mm512_set1_ps(-2.0f * GELU_C), _mm512_fmadd_ps(_mm512_set1_ps(GELU_A), x3, x));
    return _mm512_div_ps(x, _mm512_add_ps(_mm512_set1_ps(1.0f), loom_exp512(u)));
}

// Unary and gated loops per tier; `op` 0 = silu, 1 = gelu. Gated forms multiply by `up`.
static LOOM_AVX2 int64_t act_avx2(float *y, const float *x, const float *up, int64_t n, int op) {
    int64_t i = 0;
    for (; i + 8 <= n; i += 8) {
        __m256 v = _mm256_loadu_ps(x + i);
        v = op ? gelu8(v) : silu8(v);
        if (up) v = _mm256_mul_ps(v, _mm256_loadu_ps(up + i));
        _mm256_storeu_ps(y + i, v);
    }
    return i;
}
static LOOM_AVX512 int64_t act_avx512(float *y, const float *x, const float *up, int64_t n, int op) {
    int64_t i = 0;
    for (; i + 16 <= n; i += 16) {
        __m512 v = _mm512_loadu_ps(x + i);
        v = op ? gelu16(v) : silu16(v);
        if (up) v = _mm512_mul_ps(v, _mm512_loadu_ps(up + i));
        _mm512_storeu_ps(y + i, v);
    }
    return i;
}

// op: 0 add, 1 mul.
static LOOM_AVX2 int64_t bin_avx2(float *y, const float *a, const float *b, int64_t n, int op) {
    int64_t i = 0;
    for (; i + 8 <= n; i += 8) {
        __m256 va = _mm256_loadu_ps(a + i), vb = _mm256_loadu_ps(b + i);
        _mm256_storeu_ps(y + i, op ? _mm256_mul_ps(va, vb) : _mm256_add_ps(va, vb));
    }
    return i;
}
static LOOM_AVX512 int64_t bin_avx512(float *y, const float *a, const float *b, int64_t n, int op) {
    int64_t i = 0;
    for (; i + 16 <= n; i += 16) {
        __m512 va = _mm512_loadu_ps(a + i), vb = _mm512_loadu_ps(b + i);
        _mm512_storeu_ps(y + i, op ? _mm512_mul_ps(va, vb) : _mm512_add_ps(va, vb));
    }
    return i;
}
static LOOM_AVX2 int64_t scale_avx2(float *x, float s, int64_t n) {
    __m256 vs = _mm256_set1_ps(s);
    int64_t i = 0;
    for (; i + 8 <= n; i += 8) _mm256_storeu_ps(x + i, _mm256_mul_ps(_mm256_loadu_ps(x + i), vs));
    return i;
}
// cap·tanh(x/cap) = cap·(1 − 2/(1 + e^(2x/cap))): exp saturates to 0 or inf at the ends, which
// gives exactly ∓cap.
static LOOM_AVX2 int64_t softcap_avx2(float *y, const float *x, float cap, int64_t n) {
    __m256 vc = _mm256_set1_ps(cap), two = _mm256_set1_ps(2.0f), one = _mm256_set1_ps(1.0f);
    __m256 k = _mm256_set1_ps(2.0f / cap);
    int64_t i = 0;
    for (; i + 8 <= n; i += 8) {
        __m256 e = loom_exp256(_mm256_mul_ps(k, _mm256_loadu_ps(x + i)));
        __m256 t = _mm256_sub_ps(one, _mm256_div_ps(two, _mm256_add_ps(one, e)));
        _mm256_storeu_ps(y + i, _mm256_mul_ps(vc, t));
    }
    return i;
}
static LOOM_AVX512 int64_t scale_avx512(float *x, float s, int64_t n) {
    __m512 vs = _mm512_set1_ps(s);
    int64_t i = 0;
    for (; i + 16 <= n; i += 16) _mm512_storeu_ps(x + i, _mm512_mul_ps(_mm512_loadu_ps(x + i), vs));
    return i;
}
#endif

static void activation(float *y, const float *x, const float *up, int64_t n, int op) {
    int64_t i = 0;
#if LOOM_X86
    switch (loom_isa_active()) {
    case LOOM_ISA_AVX512: i = act_avx512(y, x, up, n, op); break;
    case LOOM_ISA_AVX2: i = act_avx2(y, x, up, n, op); break;
    default: break;
    }
#endif
    for (; i < n; i++) {
        float v = op ? gelu1(x[i]) : silu1(x[i]);
        y[i] = up ? v * up[i] : v;
    }
}

static void binary(float *y, const float *a, const float *b, int64_t n, int op) {
    int64_t i = 0;
#if LOOM_X86
    switch (loom_isa_active()) {
    case LOOM_ISA_AVX512: i = bin_avx512(y, a, b, n, op); break;
    case LOOM_ISA_AVX2: i = bin_avx2(y, a, b, n, op); break;
    default: break;
    }
#endif
    for (; i < n; i++) y[i] = op ? a[i] * b[i] : a[i] + b[i];
}

void loom_silu(float *y, const float *x, int64_t n) { activation(y, x, NULL, n, 0); }
void loom_gelu(float *y, const float *x, int64_t n) { activation(y, x, NULL, n, 1); }
void loom_swiglu(float *y, const float *gate, const float *up, int64_t n) { activation(y, gate, up, n, 0); }
void loom_geglu(float *y, const float *gate, const float *up, int64_t n) { activation(y, gate, up, n, 1); }
void loom_add(float *y, const float *a, const float *b, int64_t n) { binary(y, a, b, n, 0); }
void loom_mul(float *y, const float *a, const float *b, int64_t n) { binary(y, a, b, n, 1); }

void loom_gelu_erf(float *y, const float *x, int64_t n) {
    // Rare (BERT-style models); the libm erf is exact enough and not worth a vector version.
    for (int64_t i = 0; i < n; i++) y[i] = 0.5f * x[i] * (1.0f + erff(x[i] * 0.70710678118654752f));
}

void loom_softcap(float *y, const float *x, float cap, int64_t n) {
    int64_t i = 0;
#if LOOM_X86
    if (loom_isa_active() >= LOOM_ISA_AVX2) i = softcap_avx2(y, x, cap, n);
#endif
    for (; i < n; i++) y[i] = cap * (1.0f - 2.0f / (1.0f + expf(2.0f * x[i] / cap)));
}

void loom_scale(float *x, float s, int64_t n) {
    int64_t i = 0;
#if LOOM_X86
    switch (loom_isa_active()) {
    case LOOM_ISA_AVX512: i = scale_avx512(x, s, n); break;
    case LOOM_ISA_AVX2: i = scale_avx2(x, s, n); break;
    default: break;
    }
#endif
    for (; i < n; i++) x[i] *= s;
}
