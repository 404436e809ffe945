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

/// The constant offset of Q4_0/Q5_0 values (q - 8, q - 16), 0 for the others.
LOOM_AVX2_INLINE_DECL int q_offset(int T) { return T == LOOM_TYPE_Q4_0 ? 8 : T == LOOM_TYPE_Q5_0 ? 16 : 0; }

LOOM_AVX2_INLINE_DECL int fam_q_offset(int T) { return q_offset(T); }

LOOM_AVX2_INLINE_DECL short ld16(const uint8_t *p) {
    short v;
    memcpy(&v, p, 2);
    return v;
}

/// Eight f16 fields `off` bytes into consecutive blocks, widened to f32 (zeros past cnt).
LOOM_AVX2_INLINE_DECL __m256 gather_f16(const uint8_t *g, size_t bb, size_t off, int cnt) {
    __m128i h;
    if (cnt == 8) {
        h = _mm_setr_epi16(ld16(g + off), ld16(g + bb + off), ld16(g + 2 * bb + off), ld16(g + 3 * bb + off),
                           ld16(g + 4 * bb + off), ld16(g + 5 * bb + off), ld16(g + 6 * bb + off), ld16(g + 7 * bb + off));
    } else {
        short v[8] = {0};
        for (int j = 0; j < cnt; j++) v[j] = ld16(g + j * bb + off);
        h = _mm_loadu_si128((const __m128i *)v);
    }
    return _mm256_cvtph_ps(h);
}

LOOM_AVX2_INLINE_DECL void fam_group(int T, const uint8_t *g, int cnt, int exact, __m256 *s, __m256 *b) {
    (void)exact;
    // Every legacy block starts with its f16 scale d; Q4_1/Q5_1 follow it with the f16 min.
    const size_t bb = fam_block_bytes(T);
    s[0] = gather_f16(g, bb, 0, cnt);
    if (T == LOOM_TYPE_Q4_1 || T == LOOM_TYPE_Q5_1) b[0] = gather_f16(g, bb, 2, cnt);
    else b[0] = _mm256_setzero_ps();
    s[1] = b[1] = _mm256_setzero_ps();
}

/// The fifth bits of 16 elements (bit j of `bits16` for element j) as int16 lanes 0x10 or 0.
LOOM_AVX2_INLINE_DECL __m256i fifth_bits(uint32_t bits16) {
    const __m256i sel = _mm256_setr_epi16(1, 2, 4, 8, 16, 32, 64, 128, 256, 512, 1024, 2048, 4096, 8192,
                                          16384, (short)0x8000);
    __m256i v = _mm256_set1_epi16((short)bits16);
    __m256i set = _mm256_cmpeq_epi16(_mm256_and_si256(v, sel), sel);
    return _mm256_and_si256(set, _mm256_set1_epi16(0x10));
}

LOOM_AVX2_INLINE_DECL void fam_dec(int T, const uint8_t *g, int c, int exact, __m256i *lo, __m256i *hi) {
    const uint8_t *blk = g + (size_t)c * fam_block_bytes(T);
    switch (T) {
    case LOOM_TYPE_Q8_0:
    case LOOM_TYPE_Q8_1: {
        const int8_t *qs = T == LOOM_TYPE_Q8_0 ? ((const loom_block_q8_0 *)blk)->qs : ((const loom_block_q8_1 *)blk)->qs;
        *lo = _mm256_cvtepi8_epi16(_mm_loadu_si128((const __m128i *)qs));
        *hi = _mm256_cvtepi8_epi16(_mm_loadu_si128((const __m128i *)(qs + 16)));
        return;
    }
    default: break;
    }
    // Nibble formats: widen the 16 packed bytes to int16 first; then the low nibbles (elements
    // 0-15) are one AND and the high nibbles (16-31) one shift.
    const uint8_t *qs = T == LOOM_TYPE_Q4_0 ? ((const loom_block_q4_0 *)blk)->qs
                      : T == LOOM_TYPE_Q4_1 ? ((const loom_block_q4_1 *)blk)->qs
                      : T == LOOM_TYPE_Q5_0 ? ((const loom_block_q5_0 *)blk)->qs
                                            : ((const loom_block_q5_1 *)blk)->qs;
    __m256i wv = _mm256_cvtepu8_epi16(_mm_loadu_si128((const __m128i *)qs));
    __m256i l = _mm256_and_si256(wv, _mm256_set1_epi16(0xF));
    __m256i h = _mm256_srli_epi16(wv, 4);
    if (T == LOOM_TYPE_Q5_0 || T == LOOM_TYPE_Q5_1) {
        const uint8_t *qhp = T == LOOM_TYPE_Q5_0 ? ((const loom_block_q5_0 *)blk)->qh : ((const loom_block_q5_1 *)blk)->qh;
        uint32_t qh;
        memcpy(&qh, qhp, 4);
        l = _mm256_or_si256(l, fifth_bits(qh & 0xFFFF));
        h = _mm256_or_si256(h, fifth_bits(qh >> 16));
    }
    if (exact && q_offset(T)) {
        const __m256i off = _mm256_set1_epi16((short)q_offset(T));
        l = _mm256_sub_epi16(l, off);
        h = _mm256_sub_epi16(h, off);
    }
    *lo = l;
    *hi = h;
}

#include "quant_avx2_template.h"

LOOM_AVX2_EXPORT(q4_0, LOOM_TYPE_Q4_0)
LOOM_AVX2_EXPORT(q4_1, LOOM_TYPE_Q4_1)
LOOM_AVX2_EXPORT(q5_0, LOOM_TYPE_Q5_0)
LOOM_AVX2_EXPORT(q5_1, LOOM_TYPE_Q5_1)
LOOM_AVX2_EXPORT(q8_0, LOOM_TYPE_Q8_0)
LOOM_AVX2_EXPORT(q8_1, LOOM_TYPE_Q8_1)
#endif
