// Legacy 32-element formats (Q4_0, Q4_1, Q5_0, Q5_1, Q8_0, Q8_1): AVX2+FMA+F16C tier.
// Each block is one chunk: nibbles (and fifth bits) are widened to int16 in registers and
// multiplied with A16 activations by quant_avx2_template.h.
#if defined(__x86_64__)
#include "quant_blocks.h"
#include <immintrin.h>

#define LOOM_AVX2_INLINE_DECL static inline __attribute__((always_inline, target("avx2,fma,f16c")))

LOOM_AVX2_INLINE_DECL int fam_qk(int T) { (void)T; return 32; }

LOOM_AVX2_INLINE_DECL size_t fam_block_bytes(int T) {
    switch (T) {
    case LOOM_TYPE_Q4_0: return sizeof(loom_block_q4_0);
    case LOOM_TYPE_Q4_1: return sizeof(loom_block_q4_1);
    case LOOM_TYPE_Q5_0: return sizeof(loom_block_q5_0);
    case LOOM_TYPE_Q5_1: return sizeof(loom_block_q5_1);
    case LOOM_TYPE_Q8_0: return sizeof(loom_block_q8_0);
    default: return sizeof(loom_block_q8_1);
    }
}

LOOM_AVX2_INLINE_DECL int fam_same_scale(int T) { (void)T; return 1; }

LOOM_AVX2_INLINE_DECL int fam_has_bias(int T) { return T == LOOM_TYPE_Q4_1 || T == LOOM_TYPE_Q5_1; }

LOOM_AVX2_INLINE_DECL void fam_prep(int T, const uint8_t *blk, float *s, float *b) {
    // Every legacy block starts with its f16 scale d; Q4_1/Q5_1 follow it with the f16 min.
    loom_fp16 d, m = 0;
    memcpy(&d, blk, 2);
    if (T == LOOM_TYPE_Q4_1 || T == LOOM_TYPE_Q5_1) memcpy(&m, blk + 2, 2);
    s[0] = s[1] = _cvtsh_ss(d);
    b[0] = b[1] = (T == LOOM_TYPE_Q4_1 || T == LOOM_TYPE_Q5_1) ? _cvtsh_ss(m) : 0.0f;
}

/// The fifth bits of 16 elements (bits of `bits16`, element j = bit j) as bytes 0x10 or 0.
LOOM_AVX2_INLINE_DECL __m128i fifth_bits(uint32_t bits16) {
    __m128i v = _mm_set1_epi16((short)bits16);
    __m128i spread = _mm_shuffle_epi8(v, _mm_setr_epi8(0, 0, 0, 0, 0, 0, 0, 0, 1, 1, 1, 1, 1, 1, 1, 1));
    __m128i sel = _mm_setr_epi8(1, 2, 4, 8, 16, 32, 64, -128, 1, 2, 4, 8, 16, 32, 64, -128);
    __m128i set = _mm_cmpeq_epi8(_mm_and_si128(spread, sel), sel);
    return _mm_and_si128(set, _mm_set1_epi8(0x10));
}

LOOM_AVX2_INLINE_DECL void fam_dec(int T, const uint8_t *blk, int c, __m256i *lo, __m256i *hi) {
    (void)c;
    const __m128i m4 = _mm_set1_epi8(0xF);
    switch (T) {
    case LOOM_TYPE_Q4_0:
    case LOOM_TYPE_Q4_1: {
        const uint8_t *qs = T == LOOM_TYPE_Q4_0 ? ((const loom_block_q4_0 *)blk)->qs : ((const loom_block_q4_1 *)blk)->qs;
        __m128i v = _mm_loadu_si128((const __m128i *)qs);
        __m128i l = _mm_and_si128(v, m4);
        __m128i h = _mm_and_si128(_mm_srli_epi16(v, 4), m4);
        if (T == LOOM_TYPE_Q4_0) {
            l = _mm_sub_epi8(l, _mm_set1_epi8(8));
            h = _mm_sub_epi8(h, _mm_set1_epi8(8));
        }
        *lo = _mm256_cvtepi8_epi16(l);
        *hi = _mm256_cvtepi8_epi16(h);
        break;
    }
    case LOOM_TYPE_Q5_0:
    case LOOM_TYPE_Q5_1: {
        const uint8_t *qs = T == LOOM_TYPE_Q5_0 ? ((const loom_block_q5_0 *)blk)->qs : ((const loom_block_q5_1 *)blk)->qs;
        const uint8_t *qhp = T == LOOM_TYPE_Q5_0 ? ((const loom_block_q5_0 *)blk)->qh : ((const loom_block_q5_1 *)blk)->qh;
        uint32_t qh;
        memcpy(&qh, qhp, 4);
        __m128i v = _mm_loadu_si128((const __m128i *)qs);
        __m128i l = _mm_or_si128(_mm_and_si128(v, m4), fifth_bits(qh & 0xFFFF));
        __m128i h = _mm_or_si128(_mm_and_si128(_mm_srli_epi16(v, 4), m4), fifth_bits(qh >> 16));
        if (T == LOOM_TYPE_Q5_0) {
            l = _mm_sub_epi8(l, _mm_set1_epi8(16));
            h = _mm_sub_epi8(h, _mm_set1_epi8(16));
        }
        *lo = _mm256_cvtepi8_epi16(l);
        *hi = _mm256_cvtepi8_epi16(h);
        break;
    }
    default: {
        const int8_t *qs = T == LOOM_TYPE_Q8_0 ? ((const loom_block_q8_0 *)blk)->qs : ((const loom_block_q8_1 *)blk)->qs;
        *lo = _mm256_cvtepi8_epi16(_mm_loadu_si128((const __m128i *)qs));
        *hi = _mm256_cvtepi8_epi16(_mm_loadu_si128((const __m128i *)(qs + 16)));
        break;
    }
    }
}

#include "quant_avx2_template.h"

LOOM_AVX2_EXPORT(q4_0, LOOM_TYPE_Q4_0)
LOOM_AVX2_EXPORT(q4_1, LOOM_TYPE_Q4_1)
LOOM_AVX2_EXPORT(q5_0, LOOM_TYPE_Q5_0)
LOOM_AVX2_EXPORT(q5_1, LOOM_TYPE_Q5_1)
LOOM_AVX2_EXPORT(q8_0, LOOM_TYPE_Q8_0)
LOOM_AVX2_EXPORT(q8_1, LOOM_TYPE_Q8_1)
#endif
