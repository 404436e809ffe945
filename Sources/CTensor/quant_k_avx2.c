// K-quant formats (Q2_K, Q3_K, Q4_K, Q5_K, Q6_K, Q8_K): AVX2+FMA+F16C tier.
// Scales and mins are unpacked once per super-block (fam_prep); each 32-element chunk is then
// a 256-bit load of its packed bits, a shift and mask or two, and a widening to int16.
#if defined(__x86_64__)
#include "quant_blocks.h"
#include <immintrin.h>

#define LOOM_AVX2_INLINE_DECL static inline __attribute__((always_inline, target("avx2,fma,f16c")))

LOOM_AVX2_INLINE_DECL int fam_qk(int T) { (void)T; return LOOM_QK_K; }

LOOM_AVX2_INLINE_DECL size_t fam_block_bytes(int T) {
    switch (T) {
    case LOOM_TYPE_Q2_K: return sizeof(loom_block_q2_K);
    case LOOM_TYPE_Q3_K: return sizeof(loom_block_q3_K);
    case LOOM_TYPE_Q4_K: return sizeof(loom_block_q4_K);
    case LOOM_TYPE_Q5_K: return sizeof(loom_block_q5_K);
    case LOOM_TYPE_Q6_K: return sizeof(loom_block_q6_K);
    default: return sizeof(loom_block_q8_K);
    }
}

// Q2_K, Q3_K and Q6_K scale each 16-element half separately.
LOOM_AVX2_INLINE_DECL int fam_same_scale(int T) {
    return T == LOOM_TYPE_Q4_K || T == LOOM_TYPE_Q5_K || T == LOOM_TYPE_Q8_K;
}

LOOM_AVX2_INLINE_DECL int fam_has_bias(int T) {
    return T == LOOM_TYPE_Q2_K || T == LOOM_TYPE_Q4_K || T == LOOM_TYPE_Q5_K;
}

LOOM_AVX2_INLINE_DECL void fam_prep(int T, const uint8_t *blk, float *s, float *b) {
    switch (T) {
    case LOOM_TYPE_Q2_K: {
        const loom_block_q2_K *x = (const loom_block_q2_K *)blk;
        float d = _cvtsh_ss(x->d), dmin = _cvtsh_ss(x->dmin);
        for (int i = 0; i < 16; i++) {
            s[i] = d * (float)(x->scales[i] & 0xF);
            b[i] = -(dmin * (float)(x->scales[i] >> 4));
        }
        break;
    }
    case LOOM_TYPE_Q3_K: {
        const loom_block_q3_K *x = (const loom_block_q3_K *)blk;
        float d = _cvtsh_ss(x->d);
        for (int i = 0; i < 16; i++) {
            s[i] = d * (float)(loom_q3k_scale(i, x->scales) - 32);
            b[i] = 0.0f;
        }
        break;
    }
    case LOOM_TYPE_Q4_K:
    case LOOM_TYPE_Q5_K: {
        // Q4_K and Q5_K share their first 16 bytes: d, dmin, scales[12].
        const loom_block_q4_K *x = (const loom_block_q4_K *)blk;
        float d = _cvtsh_ss(x->d), dmin = _cvtsh_ss(x->dmin);
        for (int j = 0; j < 8; j++) {
            uint8_t sc, m;
            loom_k_scale_min(j, x->scales, &sc, &m);
            s[2 * j] = s[2 * j + 1] = d * (float)sc;
            b[2 * j] = b[2 * j + 1] = -(dmin * (float)m);
        }
        break;
    }
    case LOOM_TYPE_Q6_K: {
        const loom_block_q6_K *x = (const loom_block_q6_K *)blk;
        float d = _cvtsh_ss(x->d);
        for (int i = 0; i < 16; i++) {
            s[i] = d * (float)x->scales[i];
            b[i] = 0.0f;
        }
        break;
    }
    default: {
        const loom_block_q8_K *x = (const loom_block_q8_K *)blk;
        for (int i = 0; i < 16; i++) {
            s[i] = x->d;
            b[i] = 0.0f;
        }
        break;
    }
    }
}

LOOM_AVX2_INLINE_DECL __m256i bits_of(__m256i v, int n, uint8_t mask) {
    return _mm256_and_si256(_mm256_srl_epi16(v, _mm_cvtsi32_si128(n)), _mm256_set1_epi8((char)mask));
}

/// Bytes 0xFF where bit c of the byte is set, 0 elsewhere.
LOOM_AVX2_INLINE_DECL __m256i bit_set(__m256i v, int c) {
    __m256i sel = _mm256_set1_epi8((char)(1 << c));
    return _mm256_cmpeq_epi8(_mm256_and_si256(v, sel), sel);
}

LOOM_AVX2_INLINE_DECL void widen_signed(__m256i q8, __m256i *lo, __m256i *hi) {
    *lo = _mm256_cvtepi8_epi16(_mm256_castsi256_si128(q8));
    *hi = _mm256_cvtepi8_epi16(_mm256_extracti128_si256(q8, 1));
}

LOOM_AVX2_INLINE_DECL void fam_dec(int T, const uint8_t *blk, int c, __m256i *lo, __m256i *hi) {
    switch (T) {
    case LOOM_TYPE_Q2_K: {
        const loom_block_q2_K *x = (const loom_block_q2_K *)blk;
        __m256i v = _mm256_loadu_si256((const __m256i *)(x->qs + 32 * (c >> 2)));
        widen_signed(bits_of(v, 2 * (c & 3), 3), lo, hi);
        break;
    }
    case LOOM_TYPE_Q3_K: {
        const loom_block_q3_K *x = (const loom_block_q3_K *)blk;
        __m256i v = _mm256_loadu_si256((const __m256i *)(x->qs + 32 * (c >> 2)));
        __m256i q = bits_of(v, 2 * (c & 3), 3);
        __m256i hm = _mm256_loadu_si256((const __m256i *)x->hmask);
        // A clear high bit means "subtract 4".
        __m256i minus4 = _mm256_andnot_si256(bit_set(hm, c), _mm256_set1_epi8(4));
        widen_signed(_mm256_sub_epi8(q, minus4), lo, hi);
        break;
    }
    case LOOM_TYPE_Q4_K: {
        const loom_block_q4_K *x = (const loom_block_q4_K *)blk;
        __m256i v = _mm256_loadu_si256((const __m256i *)(x->qs + 32 * (c >> 1)));
        widen_signed(bits_of(v, 4 * (c & 1), 0xF), lo, hi);
        break;
    }
    case LOOM_TYPE_Q5_K: {
        const loom_block_q5_K *x = (const loom_block_q5_K *)blk;
        __m256i v = _mm256_loadu_si256((const __m256i *)(x->qs + 32 * (c >> 1)));
        __m256i hb = _mm256_and_si256(bit_set(_mm256_loadu_si256((const __m256i *)x->qh), c), _mm256_set1_epi8(0x10));
        widen_signed(_mm256_or_si256(bits_of(v, 4 * (c & 1), 0xF), hb), lo, hi);
        break;
    }
    case LOOM_TYPE_Q6_K: {
        const loom_block_q6_K *x = (const loom_block_q6_K *)blk;
        int n = c >> 2, k = c & 3;
        __m256i l = _mm256_loadu_si256((const __m256i *)(x->ql + 64 * n + 32 * (k & 1)));
        __m256i h = _mm256_loadu_si256((const __m256i *)(x->qh + 32 * n));
        __m256i q = _mm256_or_si256(bits_of(l, 4 * (k >> 1), 0xF), _mm256_slli_epi16(bits_of(h, 2 * k, 3), 4));
        widen_signed(_mm256_sub_epi8(q, _mm256_set1_epi8(32)), lo, hi);
        break;
    }
    default: {
        const loom_block_q8_K *x = (const loom_block_q8_K *)blk;
        widen_signed(_mm256_loadu_si256((const __m256i *)(x->qs + 32 * c)), lo, hi);
        break;
    }
    }
}

#include "quant_avx2_template.h"

LOOM_AVX2_EXPORT(q2_K, LOOM_TYPE_Q2_K)
LOOM_AVX2_EXPORT(q3_K, LOOM_TYPE_Q3_K)
LOOM_AVX2_EXPORT(q4_K, LOOM_TYPE_Q4_K)
LOOM_AVX2_EXPORT(q5_K, LOOM_TYPE_Q5_K)
LOOM_AVX2_EXPORT(q6_K, LOOM_TYPE_Q6_K)
LOOM_AVX2_EXPORT(q8_K, LOOM_TYPE_Q8_K)
#endif
