// Masked argmax: greedy decoding under a grammar runs this over the whole vocabulary every token.
// Two passes per tier: the maximum over allowed lanes (masked-out lanes read as -inf, NaN loses
// every max), then the first allowed lane equal to it, which gives ties to the lowest id. Mask
// words that are zero are skipped outright, so tight grammars cost almost nothing.
#include "loom_sampling.h"
#include "loom_cpu.h"
#include "simd_math.h"

#include <math.h>

static int64_t argmax_scalar(const float *x, int64_t n, const uint64_t *mask) {
    int64_t best = -1;
    float bv = -INFINITY;
    for (int64_t i = 0; i < n; i++) {
        if (mask && !((mask[i >> 6] >> (i & 63)) & 1)) continue;
        if (x[i] > bv) { bv = x[i]; best = i; }
    }
    return best;
}

#if LOOM_X86
static LOOM_AVX2 __m256 lanes_of(uint32_t bits8) {
    const __m256i sel = _mm256_setr_epi32(1, 2, 4, 8, 16, 32, 64, 128);
    __m256i b = _mm256_and_si256(_mm256_set1_epi32((int)bits8), sel);
    return _mm256_castsi256_ps(_mm256_cmpeq_epi32(b, sel));
}

static LOOM_AVX2 int64_t argmax_avx2(const float *x, int64_t n, const uint64_t *mask) {
    const __m256 ninf = _mm256_set1_ps(-INFINITY);
    __m256 m = ninf;
    int64_t full = n & ~(int64_t)63;
    for (int64_t w = 0; w < full; w += 64) {
        uint64_t bits = mask ? mask[w >> 6] : ~0ull;
        if (!bits) continue;
        for (int g = 0; g < 8; g++) {
            uint32_t b8 = (uint32_t)(bits >> (8 * g)) & 0xFF;
            if (!b8) continue;
            __m256 v = _mm256_blendv_ps(ninf, _mm256_loadu_ps(x + w + 8 * g), lanes_of(b8));
            m = _mm256_max_ps(v, m);
        }
    }
    float best = loom_hmax256(m);
    for (int64_t i = full; i < n; i++) {
        if (mask && !((mask[i >> 6] >> (i & 63)) & 1)) continue;
        if (x[i] > best) best = x[i];
    }
    if (!(best > -INFINITY)) return -1;
    __m256 vb = _mm256_set1_ps(best);
    for (int64_t w = 0; w < full; w += 64) {
        uint64_t bits = mask ? mask[w >> 6] : ~0ull;
        if (!bits) continue;
        for (int g = 0; g < 8; g++) {
            uint32_t b8 = (uint32_t)(bits >> (8 * g)) & 0xFF;
            if (!b8) continue;
            uint32_t eq = (uint32_t)_mm256_movemask_ps(_mm256_cmp_ps(_mm256_loadu_ps(x + w + 8 * g), vb, _CMP_EQ_OQ)) & b8;
            if (eq) return w + 8 * g + __builtin_ctz(eq);
        }
    }
    for (int64_t i = full; i < n; i++) {
        if (mask && !((mask[i >> 6] >> (i & 63)) & 1)) continue;
        if (x[i] == best) return i;
    }
    return -1;
}

static LOOM_AVX512 int64_t argmax_avx512(const float *x, int64_t n, const uint64_t *mask) {
    __m512 m = _mm512_set1_ps(-INFINITY);
    int64_t full = n & ~(int64_t)63;
    for (int64_t w = 0; w < full; w += 64) {
        uint64_t bits = mask ? mask[w >> 6] : ~0ull;
        if (!bits) continue;
        for (int g = 0; g < 4; g++) {
            __mmask16 k = (__mmask16)(bits >> (16 * g));
            m = _mm512_mask_max_ps(m, k, _mm512_maskz_loadu_ps(k, x + w + 16 * g), m);
        }
    }
    float best = _mm512_reduce_max_ps(m);
    for (int64_t i = full; i < n; i++) {
        if (mask && !((mask[i >> 6] >> (i & 63)) & 1)) continue;
        if (x[i] > best) best = x[i];
    }
    if (!(best > -INFINITY)) return -1;
    __m512 vb = _mm512_set1_ps(best);
    for (int64_t w = 0; w < full; w += 64) {
        uint64_t bits = mask ? mask[w >> 6] : ~0ull;
        if (!bits) continue;
        for (int g = 0; g < 4; g++) {
            __mmask16 k = (__mmask16)(bits >> (16 * g));
            __mmask16 eq = _mm512_mask_cmp_ps_mask(k, _mm512_maskz_loadu_ps(k, x + w + 16 * g), vb, _CMP_EQ_OQ);
            if (eq) return w + 16 * g + __builtin_ctz((unsigned)eq);
        }
    }
    for (int64_t i = full; i < n; i++) {
        if (mask && !((mask[i >> 6] >> (i & 63)) & 1)) continue;
        if (x[i] == best) return i;
    }
    return -1;
}
#endif

int64_t loom_argmax_masked(const float *x, int64_t n, const uint64_t *mask) {
    if (!x || n <= 0) return -1;
#if LOOM_X86
    switch (loom_isa_active()) {
    case LOOM_ISA_AVX512: return argmax_avx512(x, n, mask);
    case LOOM_ISA_AVX2: return argmax_avx2(x, n, mask);
    default: break;
    }
#endif
    return argmax_scalar(x, n, mask);
}
