// quant_k_avx2_family.h — the K-quant formats (Q2_K, Q3_K, Q4_K, Q5_K, Q6_K, Q8_K) as a family of
// quant_avx2_template.h: scales and mins are unpacked once per super-block (fam_group); each
// 32-element chunk is then a 256-bit load of its packed bits, a shift and mask or two, and a
// widening to int16 (fam_dec). The AVX2 tier (quant_k_avx2.c) and the AVX-512 tier's split-scale
// products (quant_k_avx512.c) both build on it.
#ifndef LOOM_QUANT_K_AVX2_FAMILY_H
#define LOOM_QUANT_K_AVX2_FAMILY_H
#include "quant_blocks.h"
#include <immintrin.h>
#include <string.h>

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

// Q6_K stores q + 32. (Q3_K's -4 depends on each element's high bit, so it stays in fam_dec.)
LOOM_AVX2_INLINE_DECL int fam_q_offset(int T) { return T == LOOM_TYPE_Q6_K ? 32 : 0; }

/// Eight bytes widened to f32 lanes.
LOOM_AVX2_INLINE_DECL __m256 bytes_u8_ps(uint64_t v) {
    return _mm256_cvtepi32_ps(_mm256_cvtepu8_epi32(_mm_cvtsi64_si128((long long)v)));
}

LOOM_AVX2_INLINE_DECL __m256 bytes_s8_ps(uint64_t v) {
    return _mm256_cvtepi32_ps(_mm256_cvtepi8_epi32(_mm_cvtsi64_si128((long long)v)));
}

LOOM_AVX2_INLINE_DECL void fam_group(int T, const uint8_t *blk, int cnt, int exact, __m256 *s, __m256 *b) {
    (void)cnt; (void)exact;
    s[1] = b[1] = b[0] = _mm256_setzero_ps();
    switch (T) {
    case LOOM_TYPE_Q2_K: {
        // scales[i] = sc | m << 4 for half-chunk i.
        const loom_block_q2_K *x = (const loom_block_q2_K *)blk;
        __m256 d = _mm256_set1_ps(_cvtsh_ss(x->d)), dmin = _mm256_set1_ps(-_cvtsh_ss(x->dmin));
        for (int h = 0; h < 2; h++) {
            __m256i v = _mm256_cvtepu8_epi32(_mm_loadl_epi64((const __m128i *)(x->scales + 8 * h)));
            __m256 sc = _mm256_cvtepi32_ps(_mm256_and_si256(v, _mm256_set1_epi32(0xF)));
            __m256 m = _mm256_cvtepi32_ps(_mm256_srli_epi32(v, 4));
            s[h] = _mm256_mul_ps(d, sc);
            b[h] = _mm256_mul_ps(dmin, m);
        }
        break;
    }
    case LOOM_TYPE_Q3_K: {
        // Sixteen 6-bit scales: low nibbles in bytes 0-7 (scales 8-15 in the high nibbles),
        // top bit pairs in bytes 8-11 (scale i at bits 2*(i/4) of byte 8 + i%4).
        const loom_block_q3_K *x = (const loom_block_q3_K *)blk;
        uint32_t a0, a1, hb;
        memcpy(&a0, x->scales, 4);
        memcpy(&a1, x->scales + 4, 4);
        memcpy(&hb, x->scales + 8, 4);
        const uint32_t m4 = 0x0F0F0F0Fu, m2 = 0x03030303u;
        uint64_t s03_47 = (uint64_t)((a0 & m4) | ((hb & m2) << 4)) | (uint64_t)((a1 & m4) | (((hb >> 2) & m2) << 4)) << 32;
        uint64_t s8_15 = (uint64_t)(((a0 >> 4) & m4) | (((hb >> 4) & m2) << 4)) | (uint64_t)(((a1 >> 4) & m4) | (((hb >> 6) & m2) << 4)) << 32;
        __m256 d = _mm256_set1_ps(_cvtsh_ss(x->d)), off = _mm256_set1_ps(32.0f);
        s[0] = _mm256_mul_ps(d, _mm256_sub_ps(bytes_u8_ps(s03_47), off));
        s[1] = _mm256_mul_ps(d, _mm256_sub_ps(bytes_u8_ps(s8_15), off));
        break;
    }
    case LOOM_TYPE_Q4_K:
    case LOOM_TYPE_Q5_K: {
        // Q4_K and Q5_K share their first 16 bytes: d, dmin, scales[12] (see loom_k_scale_min).
        const loom_block_q4_K *x = (const loom_block_q4_K *)blk;
        uint32_t u0, u1, u2;
        memcpy(&u0, x->scales, 4);
        memcpy(&u1, x->scales + 4, 4);
        memcpy(&u2, x->scales + 8, 4);
        const uint32_t m6 = 0x3F3F3F3Fu, m4 = 0x0F0F0F0Fu, m2 = 0x03030303u;
        uint64_t sc = (uint64_t)(u0 & m6) | (uint64_t)((u2 & m4) | (((u0 >> 6) & m2) << 4)) << 32;
        uint64_t mn = (uint64_t)(u1 & m6) | (uint64_t)(((u2 >> 4) & m4) | (((u1 >> 6) & m2) << 4)) << 32;
        s[0] = _mm256_mul_ps(_mm256_set1_ps(_cvtsh_ss(x->d)), bytes_u8_ps(sc));
        b[0] = _mm256_mul_ps(_mm256_set1_ps(-_cvtsh_ss(x->dmin)), bytes_u8_ps(mn));
        break;
    }
    case LOOM_TYPE_Q6_K: {
        const loom_block_q6_K *x = (const loom_block_q6_K *)blk;
        uint64_t s0, s1;
        memcpy(&s0, x->scales, 8);
        memcpy(&s1, x->scales + 8, 8);
        __m256 d = _mm256_set1_ps(_cvtsh_ss(x->d));
        s[0] = _mm256_mul_ps(d, bytes_s8_ps(s0));
        s[1] = _mm256_mul_ps(d, bytes_s8_ps(s1));
        break;
    }
    default:
        s[0] = _mm256_set1_ps(((const loom_block_q8_K *)blk)->d);
        break;
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

/// Chunk c of a split-scale format (Q2_K, Q3_K, Q6_K) as 32 signed bytes: each fits one, so the
/// 256-bit loops widen them in two halves and the 512-bit ones in a single step.
LOOM_AVX2_INLINE_DECL __m256i fam_dec_bytes(int T, const uint8_t *blk, int c, int exact) {
    switch (T) {
    case LOOM_TYPE_Q2_K: {
        const loom_block_q2_K *x = (const loom_block_q2_K *)blk;
        (void)exact;
        return bits_of(_mm256_loadu_si256((const __m256i *)(x->qs + 32 * (c >> 2))), 2 * (c & 3), 3);
    }
    case LOOM_TYPE_Q3_K: {
        const loom_block_q3_K *x = (const loom_block_q3_K *)blk;
        __m256i q = bits_of(_mm256_loadu_si256((const __m256i *)(x->qs + 32 * (c >> 2))), 2 * (c & 3), 3);
        __m256i hm = _mm256_loadu_si256((const __m256i *)x->hmask);
        // A clear high bit means "subtract 4".
        __m256i minus4 = _mm256_andnot_si256(bit_set(hm, c), _mm256_set1_epi8(4));
        return _mm256_sub_epi8(q, minus4);
    }
    default: {
        const loom_block_q6_K *x = (const loom_block_q6_K *)blk;
        int n = c >> 2, k = c & 3;
        __m256i l = _mm256_loadu_si256((const __m256i *)(x->ql + 64 * n + 32 * (k & 1)));
        __m256i h = _mm256_loadu_si256((const __m256i *)(x->qh + 32 * n));
        __m256i q = _mm256_or_si256(bits_of(l, 4 * (k >> 1), 0xF), _mm256_slli_epi16(bits_of(h, 2 * k, 3), 4));
        return exact ? _mm256_sub_epi8(q, _mm256_set1_epi8(32)) : q;
    }
    }
}

LOOM_AVX2_INLINE_DECL void fam_dec(int T, const uint8_t *blk, int c, int exact, __m256i *lo, __m256i *hi) {
    switch (T) {
    case LOOM_TYPE_Q2_K:
    case LOOM_TYPE_Q3_K:
    case LOOM_TYPE_Q6_K:
        widen_signed(fam_dec_bytes(T, blk, c, exact), lo, hi);
        break;
    case LOOM_TYPE_Q4_K:
    case LOOM_TYPE_Q5_K: {
        // Widen the 32 packed bytes to int16 (chunks 2j and 2j+1 share them); the low nibble
        // is then one AND, the high nibble one shift.
        const uint8_t *qs = T == LOOM_TYPE_Q4_K ? ((const loom_block_q4_K *)blk)->qs : ((const loom_block_q5_K *)blk)->qs;
        __m256i w0 = _mm256_cvtepu8_epi16(_mm_loadu_si128((const __m128i *)(qs + 32 * (c >> 1))));
        __m256i w1 = _mm256_cvtepu8_epi16(_mm_loadu_si128((const __m128i *)(qs + 32 * (c >> 1) + 16)));
        if (c & 1) {
            w0 = _mm256_srli_epi16(w0, 4);
            w1 = _mm256_srli_epi16(w1, 4);
        } else {
            w0 = _mm256_and_si256(w0, _mm256_set1_epi16(0xF));
            w1 = _mm256_and_si256(w1, _mm256_set1_epi16(0xF));
        }
        if (T == LOOM_TYPE_Q5_K) {
            // Bit c of qh[l] is element l's fifth bit: isolate it and move it to bit 4.
            const loom_block_q5_K *x = (const loom_block_q5_K *)blk;
            __m256i h0 = _mm256_cvtepu8_epi16(_mm_loadu_si128((const __m128i *)x->qh));
            __m256i h1 = _mm256_cvtepu8_epi16(_mm_loadu_si128((const __m128i *)(x->qh + 16)));
            const __m256i bit = _mm256_set1_epi16((short)(1 << c));
            h0 = _mm256_and_si256(h0, bit);
            h1 = _mm256_and_si256(h1, bit);
            if (c <= 4) {
                h0 = _mm256_sll_epi16(h0, _mm_cvtsi32_si128(4 - c));
                h1 = _mm256_sll_epi16(h1, _mm_cvtsi32_si128(4 - c));
            } else {
                h0 = _mm256_srl_epi16(h0, _mm_cvtsi32_si128(c - 4));
                h1 = _mm256_srl_epi16(h1, _mm_cvtsi32_si128(c - 4));
            }
            w0 = _mm256_or_si256(w0, h0);
            w1 = _mm256_or_si256(w1, h1);
        }
        *lo = w0;
        *hi = w1;
        break;
    }
    default: {
        const loom_block_q8_K *x = (const loom_block_q8_K *)blk;
        widen_signed(_mm256_loadu_si256((const __m256i *)(x->qs + 32 * c)), lo, hi);
        break;
    }
    }
}

#endif
