// quant_x8_template.h — the products over rows interleaved by eight, for one SIMD tier.
//
// The including file defines, before including this header:
//   X8_INLINE          `static inline` with the tier's target attribute and always_inline
//   X8_ROWS            activation rows served per pass over a group (their integer
//                      accumulators fit in the registers beside the widened weights)
//   X8_WIDE            on tiers with 512-bit vectors and VNNI: the 512-bit group loops
// Per chunk of 32 columns and activation row: 16 products of a column pair of the eight rows
// with the row's activation pair, summed into an int32 accumulator (one row per lane), then
// one convert and one FMA for all eight rows (scale s·d_x), and one more for the formats with
// an additive term (b·Σx; the K-quants' -dmin·m). Q6_K's 16-column halves have scales of their
// own, so its chunks convert and FMA each half's sum in turn. The order is the scalar reference's
// (quant_x8_scalar.c), so every tier returns the same bits. Every function takes the
// interleaved type id T as a compile-time constant, so each format gets its own straight-line
// loop.
#include <immintrin.h>
#include <string.h>
#include "quant_x8_layout.h"
#include "simd_math.h"

// Bytes ahead of the block being read: enough for the prefetch to land before a 2-thread matvec
// reaches it on a machine whose memory answers slower than it streams (on an AVX-512 EPYC
// reading 70 GB/s with 2 threads, 4 KiB ahead decoded SmolLM2 2-9% faster than 2 KiB; 8 KiB
// was no better).
#define X8_PREFETCH_AHEAD 4096

#ifdef X8_WIDE
/// Thirty-two int16 nibbles with their fifth bits and the format's offset. On the AVX-512 tiers
/// the fifth bits are a lane mask as they stand, and one masked add applies them: 16 where a bit
/// is set (Q5_1, Q5_K), or for Q5_0, whose values are q - 16, minus 16 where it is clear, which
/// is the fifth bit and the offset at once.
X8_INLINE __m512i x8_fifth32(const int T, __m512i v, uint32_t bits) {
    const __m512i sixteen = _mm512_set1_epi16(16);
    return x8_offset(T) ? _mm512_mask_sub_epi16(v, (__mmask32)~bits, v, sixteen) : _mm512_mask_add_epi16(v, (__mmask32)bits, v, sixteen);
}
#endif

/// The fifth bits of 32 nibble bytes as bytes of 0 or 16, `bits` being the two 16-bit words of
/// the vectors those bytes widen into: unpacklo takes bytes 0-7 and 16-23 (the first word's
/// bits 0-7 and 8-15), unpackhi bytes 8-15 and 24-31 (the second word's). One shuffle puts each
/// byte's source byte of `bits` in place, so a step's fifth bits cost two of these, not four
/// 16-lane broadcasts and compares.
X8_INLINE __m256i x8_fifth_bytes(const uint8_t *bits) {
    const __m256i source = _mm256_setr_epi8(0, 0, 0, 0, 0, 0, 0, 0, 2, 2, 2, 2, 2, 2, 2, 2,
                                            1, 1, 1, 1, 1, 1, 1, 1, 3, 3, 3, 3, 3, 3, 3, 3);
    const __m256i bit = _mm256_set1_epi64x((long long)0x8040201008040201ULL);
    int32_t word;
    memcpy(&word, bits, sizeof word);
    const __m256i spread = _mm256_and_si256(_mm256_shuffle_epi8(_mm256_set1_epi32(word), source), bit);
    return _mm256_and_si256(_mm256_cmpeq_epi8(spread, bit), _mm256_set1_epi8(16));
}

/// Step s's top bit pairs (Q6_K) beside its 32 nibble bytes: byte i holds nibble byte i's pairs
/// in bits 0-3, the low nibble's first (loom_block_q6_Kx8 keeps two bytes' in one; the upper
/// 128-bit half takes the high four bits, shifted down).
X8_INLINE __m256i x8_top_bytes(const uint8_t *qh, int s) {
    const __m128i h = _mm_loadu_si128((const __m128i *)(qh + 16 * s));
    return _mm256_inserti128_si256(_mm256_castsi128_si256(h), _mm_srli_epi16(h, 4), 1);
}

/// Step s's third bits (Q3_K) beside its 32 nibble bytes: byte i holds nibble byte i's in bits
/// 0-1, the low nibble's position first. Its eight bytes, one per 64-bit quarter, each quarter
/// shifted to its pair (loom_block_q3_Kx8).
X8_INLINE __m256i x8_third_bytes(const uint8_t *qh, int s) {
    int64_t eight;
    memcpy(&eight, qh + 8 * s, sizeof eight);
    return _mm256_srlv_epi64(_mm256_set1_epi64x(eight), _mm256_setr_epi64x(0, 2, 4, 6));
}

/// High bits put on a step's low and high values, both bytes: lo |= (t << lo_shift) & mask, hi |=
/// (t << hi_shift) & mask, the shifts 16-bit (each byte's own bits survive the mask).
X8_INLINE void x8_put_high(__m256i *lo, __m256i *hi, __m256i t, int lo_shift, int hi_shift, char mask) {
    const __m256i m = _mm256_set1_epi8(mask);
    *lo = _mm256_or_si256(*lo, _mm256_and_si256(_mm256_slli_epi16(t, lo_shift), m));
    *hi = _mm256_or_si256(*hi, _mm256_and_si256(_mm256_slli_epi16(t, hi_shift), m));
}

/// Step s's 32 nibble bytes split into low and high nibbles, each a byte, with the top bit
/// pairs of the 6-bit format put on as bits 4-5; for the 2- and 3-bit formats, the bit pairs of
/// the same positions. The shifts are 16-bit, so bits cross into the neighbouring byte, and the
/// masks keep only each byte's own.
X8_INLINE void x8_nibble_bytes(const int T, const uint8_t *qs, const uint8_t *qh, int s, __m256i *lo, __m256i *hi) {
    if (x8_bits(T) <= 3) {
        const __m256i pairs = x8_top_bytes(qs, s), three = _mm256_set1_epi8(3);
        *lo = _mm256_and_si256(pairs, three);
        *hi = _mm256_and_si256(_mm256_srli_epi16(pairs, 2), three);
        if (x8_bits(T) == 3) x8_put_high(lo, hi, x8_third_bytes(qh, s), 2, 1, 4);
        return;
    }
    const __m256i low4 = _mm256_set1_epi8(0x0F);
    const __m256i raw = _mm256_loadu_si256((const __m256i *)(qs + 32 * s));
    *lo = _mm256_and_si256(raw, low4);
    *hi = _mm256_and_si256(_mm256_srli_epi16(raw, 4), low4);
    if (x8_bits(T) == 6) x8_put_high(lo, hi, x8_top_bytes(qh, s), 4, 2, 0x30);
}

/// Vectors 4s..4s+3 of a chunk (column pairs 8s..8s+7): each row's values, offset applied
/// unless `fold` (x8_fold).
X8_INLINE void x8_decode(const int T, const uint8_t *qs, const uint8_t *qh_bytes, int s, __m256i v[4], const int fold) {
    if (x8_bits(T) == 8) {
        for (int t = 0; t < 4; t++) v[t] = _mm256_cvtepi8_epi16(_mm_loadu_si128((const __m128i *)(qs + 16 * (4 * s + t))));
        return;
    }
    const __m256i zero = _mm256_setzero_si256();
    __m256i lo, hi;
    x8_nibble_bytes(T, qs, qh_bytes, s, &lo, &hi);
    if (x8_fifth(T)) {
        lo = _mm256_or_si256(lo, x8_fifth_bytes(qh_bytes + 8 * s));
        hi = _mm256_or_si256(hi, x8_fifth_bytes(qh_bytes + 8 * s + 4));
    }
    v[0] = _mm256_unpacklo_epi8(lo, zero);
    v[1] = _mm256_unpackhi_epi8(lo, zero);
    v[2] = _mm256_unpacklo_epi8(hi, zero);
    v[3] = _mm256_unpackhi_epi8(hi, zero);
    if (x8_offset(T) && !fold)
        for (int t = 0; t < 4; t++) v[t] = _mm256_sub_epi16(v[t], _mm256_set1_epi16((short)x8_offset(T)));
}

/// Eight rows of sixteen bytes (r[lane]) as sixteen chunk-major rows of eight: sm[i][lane].
X8_INLINE void x8_transpose_8x16(const __m128i r[8], uint8_t sm[16][8]) {
    __m128i u[8], v[8];
    for (int i = 0; i < 4; i++) {
        u[2 * i] = _mm_unpacklo_epi8(r[2 * i], r[2 * i + 1]);
        u[2 * i + 1] = _mm_unpackhi_epi8(r[2 * i], r[2 * i + 1]);
    }
    for (int h = 0; h < 2; h++) {
        v[4 * h + 0] = _mm_unpacklo_epi16(u[4 * h + 0], u[4 * h + 2]);
        v[4 * h + 1] = _mm_unpackhi_epi16(u[4 * h + 0], u[4 * h + 2]);
        v[4 * h + 2] = _mm_unpacklo_epi16(u[4 * h + 1], u[4 * h + 3]);
        v[4 * h + 3] = _mm_unpackhi_epi16(u[4 * h + 1], u[4 * h + 3]);
    }
    for (int j = 0; j < 4; j++) {
        _mm_storeu_si128((__m128i *)sm[4 * j], _mm_unpacklo_epi32(v[j], v[4 + j]));
        _mm_storeu_si128((__m128i *)sm[4 * j + 2], _mm_unpackhi_epi32(v[j], v[4 + j]));
    }
}

/// A K-quant super-block's 6-bit scales and mins for its eight rows, chunk-major as bytes:
/// sm[c][lane] is row `lane`'s scale of chunk c, sm[8 + c][lane] its min (loom_k_scale_min's
/// values). Each row's twelve packed bytes are unpacked by two shuffles and masks into its
/// sixteen values, and one 8×16 byte transpose puts them in chunk order: about a hundred vector
/// instructions a super-block against several hundred scalar ones value by value, which cost a
/// quarter of a one-row Q4_K product's time in cache on this project's Zen 3 EPYC.
X8_INLINE void x8_k_scales(const uint8_t *blk, uint8_t sm[16][8]) {
    // Row bytes b0..b11: scales 0-3 are b0-3 & 63, mins 0-3 b4-7 & 63; scale 4+j is
    // (b8+j & 15) | (b_j >> 6) << 4, min 4+j is (b8+j >> 4) | (b4+j >> 6) << 4.
    const __m128i pick = _mm_setr_epi8(0, 1, 2, 3, 8, 9, 10, 11, 4, 5, 6, 7, 8, 9, 10, 11);
    const __m128i tops = _mm_setr_epi8(-1, -1, -1, -1, 0, 1, 2, 3, -1, -1, -1, -1, 4, 5, 6, 7);
    const __m128i low = _mm_setr_epi8(63, 63, 63, 63, 15, 15, 15, 15, 63, 63, 63, 63, 0, 0, 0, 0);
    const __m128i high = _mm_setr_epi8(0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 15, 15, 15, 15);
    const __m128i top2 = _mm_set1_epi8(0x30);
    __m128i r[8];
    for (int lane = 0; lane < 8; lane++) {
        // Sixteen bytes from the row's twelve: the last row's four extra bytes are the block's
        // next field, read and not used.
        const __m128i b = _mm_loadu_si128((const __m128i *)(blk + offsetof(loom_block_q4_Kx8, scales) + LOOM_K_SCALE_SIZE * lane));
        const __m128i a = _mm_shuffle_epi8(b, pick);
        const __m128i t = _mm_and_si128(_mm_srli_epi16(_mm_shuffle_epi8(b, tops), 2), top2);
        r[lane] = _mm_or_si128(_mm_or_si128(_mm_and_si128(a, low), _mm_and_si128(_mm_srli_epi16(a, 4), high)), t);
    }
    x8_transpose_8x16(r, sm);
}

/// Q3_K's sixteen 6-bit scales of each of the eight rows, chunk-major as bytes (sm[j][lane]: row
/// `lane`'s scale of sub-block j, stored + 32): per row, four 32-bit words of masks and shifts,
/// as loom_q3k_scale reads them, then x8_k_scales' transpose.
X8_INLINE void x8_q3k_scales(const uint8_t *blk, uint8_t sm[16][8]) {
    const uint32_t m4 = 0x0F0F0F0Fu, m2 = 0x03030303u;
    __m128i r[8];
    for (int lane = 0; lane < 8; lane++) {
        const uint8_t *p = ((const loom_block_q3_Kx8 *)blk)->scales[lane];
        uint32_t a0, a1, hb;
        memcpy(&a0, p, 4);
        memcpy(&a1, p + 4, 4);
        memcpy(&hb, p + 8, 4);
        // Scales 0-3, 4-7, 8-11, 12-15: low nibbles of bytes 0-3, 4-7, then their high nibbles;
        // top pairs from bits 0-1, 2-3, 4-5, 6-7 of bytes 8-11.
        r[lane] = _mm_setr_epi32((int)((a0 & m4) | (hb & m2) << 4), (int)((a1 & m4) | ((hb >> 2) & m2) << 4),
                                 (int)(((a0 >> 4) & m4) | ((hb >> 4) & m2) << 4),
                                 (int)(((a1 >> 4) & m4) | ((hb >> 6) & m2) << 4));
    }
    x8_transpose_8x16(r, sm);
}

/// Eight bytes as eight float lanes.
X8_INLINE __m256 x8_bytes_ps(const uint8_t *p) {
    return _mm256_cvtepi32_ps(_mm256_cvtepu8_epi32(_mm_loadl_epi64((const __m128i *)p)));
}

/// A group's per-chunk row scales: the K-quants' super-block scales, read when a super-block
/// starts (c % 8 == 0) and kept for its eight chunks.
typedef struct {
    uint8_t sm[16][8] __attribute__((aligned(16)));
    __m256 d, dmin;
} x8_k_state;

/// Eight signed bytes as eight float lanes.
X8_INLINE __m256 x8_sbytes_ps(const int8_t *p) {
    return _mm256_cvtepi32_ps(_mm256_cvtepi8_epi32(_mm_loadl_epi64((const __m128i *)p)));
}

/// Chunk c's per-row scales s[h] and additive terms b[h] of its 16-column halves (weight =
/// s*q + b; one of each for both halves but in the split-scale K-quants), as the row-major
/// decoders compute them.
X8_INLINE void x8_chunk_scales(const int T, const uint8_t *group, int64_t c, x8_k_state *k, __m256 s[2], __m256 b[2]) {
    const __m256 minus = _mm256_set1_ps(-0.0f);
    const uint8_t *blk = x8_chunk_block(T, group, c);
    const int i = x8_chunk_in_block(T, c);
    b[0] = b[1] = _mm256_setzero_ps();
    switch (T) {
    case LOOM_TYPE_Q2_K_X8: {
        // sc | m << 4 per sub-block: s = d·sc, b = -(dmin·m).
        const loom_block_q2_Kx8 *x = (const loom_block_q2_Kx8 *)blk;
        const __m256 d = _mm256_cvtph_ps(_mm_loadu_si128((const __m128i *)x->d));
        const __m256 dmin = _mm256_cvtph_ps(_mm_loadu_si128((const __m128i *)x->dmin));
        for (int h = 0; h < 2; h++) {
            const __m256i v = _mm256_cvtepu8_epi32(_mm_loadl_epi64((const __m128i *)x->scales[2 * i + h]));
            s[h] = _mm256_mul_ps(d, _mm256_cvtepi32_ps(_mm256_and_si256(v, _mm256_set1_epi32(0xF))));
            b[h] = _mm256_xor_ps(_mm256_mul_ps(dmin, _mm256_cvtepi32_ps(_mm256_srli_epi32(v, 4))), minus);
        }
        return;
    }
    case LOOM_TYPE_Q3_K_X8: {
        if (i == 0) {
            x8_q3k_scales(blk, k->sm);
            k->d = _mm256_cvtph_ps(_mm_loadu_si128((const __m128i *)blk));
        }
        const __m256 off = _mm256_set1_ps(32.0f);
        for (int h = 0; h < 2; h++) s[h] = _mm256_mul_ps(k->d, _mm256_sub_ps(x8_bytes_ps(k->sm[2 * i + h]), off));
        return;
    }
    case LOOM_TYPE_Q6_K_X8: {
        const loom_block_q6_Kx8 *x = (const loom_block_q6_Kx8 *)blk;
        const __m256 d = _mm256_cvtph_ps(_mm_loadu_si128((const __m128i *)x->d));
        for (int h = 0; h < 2; h++) s[h] = _mm256_mul_ps(d, x8_sbytes_ps(x->scales[2 * i + h]));
        return;
    }
    case LOOM_TYPE_Q4_K_X8:
    case LOOM_TYPE_Q5_K_X8:
        if (i == 0) {
            x8_k_scales(blk, k->sm);
            k->d = _mm256_cvtph_ps(_mm_loadu_si128((const __m128i *)blk));
            k->dmin = _mm256_cvtph_ps(_mm_loadu_si128((const __m128i *)(blk + offsetof(loom_block_q4_Kx8, dmin))));
        }
        s[0] = _mm256_mul_ps(k->d, x8_bytes_ps(k->sm[i]));
        // -(dmin*m), as the row-major decoder: the negation is exact.
        b[0] = _mm256_xor_ps(_mm256_mul_ps(k->dmin, x8_bytes_ps(k->sm[8 + i])), minus);
        break;
    default:
        s[0] = _mm256_cvtph_ps(_mm_loadu_si128((const __m128i *)blk));
        if (x8_has_min(T)) b[0] = _mm256_cvtph_ps(_mm_loadu_si128((const __m128i *)(blk + x8_m_offset(T))));
        break;
    }
    s[1] = s[0];
    b[1] = b[0];
}

/// Chunk c of a group as both group loops start it: returns its values (and in *qh its high
/// bits), with its per-row scales and term; when `ahead` is not 0, the bytes `ahead` past the
/// chunk's share of its block are prefetched (a block's chunks together ask for every line of
/// it, wherever in the block their fields lie).
X8_INLINE const uint8_t *x8_chunk_begin(const int T, const uint8_t *group, int64_t c, size_t ahead, x8_k_state *k,
                                        __m256 s[2], __m256 b[2], const uint8_t **qh) {
    const uint8_t *qs = x8_chunk_qs(T, group, c);
    if (ahead) {
        const size_t chunk_bytes = x8_block_bytes(T) / (size_t)(x8_block_cols(T) / 32);
        const char *share = (const char *)x8_chunk_block(T, group, c) + (size_t)x8_chunk_in_block(T, c) * chunk_bytes;
        for (size_t off = 0; off < chunk_bytes; off += 64) _mm_prefetch(share + ahead + off, _MM_HINT_T0);
    }
    x8_chunk_scales(T, group, c, k, s, b);
    *qh = x8_has_qh(T) ? x8_chunk_qh(T, group, c) : qs;
    return qs;
}

// Fully unrolled loops over activation rows and steps keep each row's accumulators in
// registers and make every step's first product a compile-time fact; left to itself the
// compiler keeps the loops, hoists the broadcasts and spills them.
#if defined(__clang__)
#define X8_UNROLL _Pragma("clang loop unroll(full)")
#else
#define X8_UNROLL
#endif

/// acc + the pairwise int16 products of w and the int16 pair at a, broadcast to every lane.
/// Written as instructions, in program order: free to reassociate the integer adds, the
/// compiler makes all of a chunk's products first, independent of the accumulators, and spills
/// the widened weights and the broadcasts to the stack to hold them.
X8_INLINE __m256i x8_dot_bcast(__m256i acc, __m256i w, const int16_t *a) {
    __m256i t;
    __asm__ volatile("vpbroadcastd %3, %1\n\tvpmaddwd %2, %1, %1\n\tvpaddd %1, %0, %0"
                     : "+x"(acc), "=&x"(t) : "x"(w), "m"(*(const int32_t *)a));
    return acc;
}

/// True when a pass over NB activation rows leaves the format's offset out of the weights and
/// takes it from the rows' integer sums instead (Σ(q - o)·x = Σq·x - o·Σx, exact in int32):
/// one correction per row and chunk (or half) against one subtraction per weight vector, so for
/// one or two rows. The 512-bit decoders (`wide`) of the 5-bit formats apply the offset with the
/// fifth bit, at no cost.
X8_INLINE int x8_fold(const int T, const int NB, const int wide) {
    return x8_offset(T) && NB <= 2 && !(wide && x8_fifth(T));
}

/// o·Σx over half h of chunk c (the whole chunk's, but for the split-scale formats): what a
/// folded offset takes from the integer sums.
X8_INLINE int32_t x8_offset_sum(const int T, const loom_a16 *a, int64_t c, int h) {
    return x8_offset(T) * (int32_t)(x8_split(T) ? a->qsum16[2 * c + h] : a->qsum32[c]);
}

/// The activation sum the additive term of half h of chunk c multiplies: the half's own for the
/// split-scale formats, the chunk's for the others.
X8_INLINE float x8_term_sum(const int T, const loom_a16 *a, int64_t c, int h) {
    return x8_split(T) ? a->sum16[2 * c + h] : a->sum32[c];
}

/// Half h of a chunk's integer sums of one activation row (the whole chunk's, but for the
/// split-scale formats) into its float accumulators: the folded offset off the sums (`fold`),
/// then out += sums · (s_h·d_x), then + b_h·Σx for the formats with an additive term.
X8_INLINE void x8_chunk_end(const int T, const int fold, __m256i acc, const __m256 s[2], const __m256 b[2], int h,
                            const loom_a16 *a, int64_t c, float out[8]) {
    if (fold) acc = _mm256_sub_epi32(acc, _mm256_set1_epi32(x8_offset_sum(T, a, c, h)));
    __m256 f = _mm256_load_ps(out);
    f = _mm256_fmadd_ps(_mm256_cvtepi32_ps(acc), _mm256_mul_ps(s[h], _mm256_set1_ps(a->d[c])), f);
    if (x8_has_min(T)) f = _mm256_fmadd_ps(b[h], _mm256_set1_ps(x8_term_sum(T, a, c, h)), f);
    _mm256_store_ps(out, f);
}

/// One group (eight weight rows) against NB activation rows: out[k][lane]. Each widened weight
/// vector serves every row before the next is made, so the live registers are NB integer
/// accumulators, the chunk's four weight vectors and one broadcast: with eight rows a pass
/// decodes the weights once for all of them. The float accumulators live in `out` (one load
/// and store per row and chunk, against sixteen products).
X8_INLINE void x8_group(const int T, const int NB, const uint8_t *group, int64_t nchunks, const loom_a16 *a,
                        float out[X8_ROWS][8], size_t ahead) {
    X8_UNROLL
    for (int k = 0; k < NB; k++) _mm256_store_ps(out[k], _mm256_setzero_ps());
    x8_k_state kstate;
    const int fold = x8_fold(T, NB, 0);
    for (int64_t c = 0; c < nchunks; c++) {
        __m256 s[2], b[2];
        const uint8_t *qh, *qs = x8_chunk_begin(T, group, c, ahead, &kstate, s, b, &qh);
        __m256i acc[X8_ROWS];
        X8_UNROLL
        for (int k = 0; k < NB; k++) acc[k] = _mm256_setzero_si256();
        X8_UNROLL
        for (int s4 = 0; s4 < 4; s4++) {
            // A split-scale chunk's first half (steps 0 and 1) goes into the floats on its own.
            if (x8_split(T) && s4 == 2) {
                X8_UNROLL
                for (int k = 0; k < NB; k++) {
                    x8_chunk_end(T, fold, acc[k], s, b, 0, a + k, c, out[k]);
                    acc[k] = _mm256_setzero_si256();
                }
            }
            __m256i v[4];
            x8_decode(T, qs, qh, s4, v, fold);
            X8_UNROLL
            for (int t = 0; t < 4; t++) {
                X8_UNROLL
                for (int k = 0; k < NB; k++) {
                    // Column pair 4·s4 + t of this chunk, broadcast to all lanes.
                    const int16_t *pair = a[k].q + 32 * c + 8 * s4 + 2 * t;
                    if (NB > 2) {
                        acc[k] = x8_dot_bcast(acc[k], v[t], pair);
                    } else {
                        // One or two rows leave the registers free, and the compiler's own
                        // grouping of the adds (short chains) is the faster one.
                        int32_t p;
                        memcpy(&p, pair, sizeof p);
                        acc[k] = _mm256_add_epi32(acc[k], _mm256_madd_epi16(v[t], _mm256_set1_epi32(p)));
                    }
                }
            }
        }
        X8_UNROLL
        for (int k = 0; k < NB; k++) x8_chunk_end(T, fold, acc[k], s, b, x8_split(T), a + k, c, out[k]);
    }
}

#ifdef X8_WIDE
// 512-bit steps (tiers that define X8_WIDE). A 256-bit step
// multiplies one column pair of eight rows, its activation pair broadcast to every lane; here
// one 512-bit vector holds two pairs of the eight rows, lanes 2i and 2i+1 one row's pairs p and
// p+1, so one 64-bit broadcast of the activation's pairs p, p+1 serves both and each weight
// vector widened once per chunk feeds every activation row with half the instructions. The
// int32 lane sums are exact, so adding a row's two lanes at the end of the chunk gives the
// integer the 256-bit step gives, and the float epilogue is the same: bits are unchanged.

/// acc + the pairwise int16 products of w and a, as one vpdpwssd. Written as an instruction
/// because the compiler, free to reassociate integer adds, otherwise splits the chains into
/// vpmaddwd and vpaddd pairs: twice the instructions on the step's critical resource.
X8_INLINE __m512i x8_dot512(__m512i acc, __m512i w, __m512i a) {
    __asm__("vpdpwssd %2, %1, %0" : "+v"(acc) : "v"(w), "v"(a));
    return acc;
}

/// Step s4's four column pairs of the eight rows as two wide vectors: w01 holds pairs 0 and 1
/// (lanes 2r and 2r+1: row r's pair 0, then its pair 1), w23 pairs 2 and 3. The values are
/// x8_decode's, widened straight into 512-bit lanes and put in row order with one permute per
/// vector.
X8_INLINE void x8_decode_wide(const int T, const uint8_t *qs, const uint8_t *qh, int s4, __m512i *w01, __m512i *w23,
                              const int fold) {
    if (x8_bits(T) == 8) {
        // 32 bytes hold pairs 0 and 1 of the eight rows: dword lane r is row r's pair 0, lane 8 + r its pair 1.
        const __m512i order = _mm512_setr_epi32(0, 8, 1, 9, 2, 10, 3, 11, 4, 12, 5, 13, 6, 14, 7, 15);
        *w01 = _mm512_permutexvar_epi32(order, _mm512_cvtepi8_epi16(_mm256_loadu_si256((const __m256i *)(qs + 64 * s4))));
        *w23 = _mm512_permutexvar_epi32(order, _mm512_cvtepi8_epi16(_mm256_loadu_si256((const __m256i *)(qs + 64 * s4 + 32))));
    } else {
        // Low nibbles hold pairs 0 and 1, high nibbles pairs 2 and 3; widened, row r's pair 0 sits
        // in dword lane r (r < 4) or r + 4, its pair 1 four lanes later (x8_decode's unpacks).
        const __m512i order = _mm512_setr_epi32(0, 4, 1, 5, 2, 6, 3, 7, 8, 12, 9, 13, 10, 14, 11, 15);
        __m256i lo8, hi8;
        x8_nibble_bytes(T, qs, qh, s4, &lo8, &hi8);
        __m512i lo = _mm512_cvtepu8_epi16(lo8), hi = _mm512_cvtepu8_epi16(hi8);
        if (x8_fifth(T)) {
            // The fifth bits go on before the permute: byte j of a nibble vector is x8_decode's
            // lane j of vector 0 (j < 8), j - 8 of vector 1 (j < 16), j - 8 of vector 0 (j < 24)
            // or j - 16 of vector 1, so its bit is the bit of the two vectors' masks that
            // swapping their middle bytes puts at bit j. x8_fifth32 applies the offset too.
            uint32_t m01, m23;
            memcpy(&m01, qh + 8 * s4, sizeof m01);
            memcpy(&m23, qh + 8 * s4 + 4, sizeof m23);
            m01 = (m01 & 0xFF0000FFu) | ((m01 >> 8) & 0x0000FF00u) | ((m01 << 8) & 0x00FF0000u);
            m23 = (m23 & 0xFF0000FFu) | ((m23 >> 8) & 0x0000FF00u) | ((m23 << 8) & 0x00FF0000u);
            lo = x8_fifth32(T, lo, m01);
            hi = x8_fifth32(T, hi, m23);
        }
        *w01 = _mm512_permutexvar_epi32(order, lo);
        *w23 = _mm512_permutexvar_epi32(order, hi);
    }
    if (x8_offset(T) && !x8_fifth(T) && !fold) {
        const __m512i offset = _mm512_set1_epi16((short)x8_offset(T));
        *w01 = _mm512_sub_epi16(*w01, offset);
        *w23 = _mm512_sub_epi16(*w23, offset);
    }
}

/// Row sums of two wide accumulators in one vector: rows 0…7 of `lo`, then rows 0…7 of `hi`
/// (each row's lanes 2r + 2r+1).
X8_INLINE __m512i x8_wide_rows2(__m512i lo, __m512i hi) {
    const __m512i even = _mm512_setr_epi32(0, 2, 4, 6, 8, 10, 12, 14, 16, 18, 20, 22, 24, 26, 28, 30);
    const __m512i odd = _mm512_setr_epi32(1, 3, 5, 7, 9, 11, 13, 15, 17, 19, 21, 23, 25, 27, 29, 31);
    return _mm512_add_epi32(_mm512_permutex2var_epi32(lo, even, hi), _mm512_permutex2var_epi32(lo, odd, hi));
}

/// Eight lanes of x, then eight lanes of y.
X8_INLINE __m512 x8_halves(__m256 x, __m256 y) {
    return _mm512_castpd_ps(_mm512_insertf64x4(_mm512_castpd256_pd512(_mm256_castps_pd(x)), _mm256_castps_pd(y), 1));
}

/// x in the low eight lanes, y in the high eight: two broadcasts, the second merged.
X8_INLINE __m512 x8_pair_of(float x, float y) {
    return _mm512_mask_broadcastss_ps(_mm512_set1_ps(x), (__mmask16)0xFF00, _mm_set_ss(y));
}

/// x8_group with 512-bit steps: the same out[k][lane] bit for bit.
/// Rows go in pairs (k, k+1) whose float accumulators share a vector, so the row sums, the
/// conversion and the scale FMAs serve two rows per instruction.
X8_INLINE void x8_group_wide(const int T, const int NB, const uint8_t *group, int64_t nchunks, const loom_a16 *a,
                             float out[X8_ROWS][8], size_t ahead) {
    __m512 f[(X8_ROWS + 1) / 2];
    for (int k = 0; k < NB; k += 2) f[k / 2] = _mm512_setzero_ps();
    x8_k_state kstate;
    const int fold = x8_fold(T, NB, 1);
    for (int64_t c = 0; c < nchunks; c++) {
        __m256 s[2], b[2];
        const uint8_t *qh, *qs = x8_chunk_begin(T, group, c, ahead, &kstate, s, b, &qh);
        // The chunk's weights widened once (eight vectors), then the activation rows pair by pair.
        __m512i wv[8];
        for (int s4 = 0; s4 < 4; s4++) x8_decode_wide(T, qs, qh, s4, &wv[2 * s4], &wv[2 * s4 + 1], fold);
        X8_UNROLL
        for (int k = 0; k < NB; k += 2) {
            const int pair = k + 1 < NB;
            // acc: the chunk's sums (for a split-scale chunk, of its second half; first: its first's).
            __m512i acc[2] = {_mm512_setzero_si512(), _mm512_setzero_si512()}, first[2] = {acc[0], acc[1]};
            X8_UNROLL
            for (int h = 0; h <= pair; h++) {
                const int16_t *q = a[k + h].q + 32 * c;
                // Even and odd steps in two accumulators, so the dependency chains are short.
                __m512i even = _mm512_setzero_si512(), odd = _mm512_setzero_si512();
                X8_UNROLL
                for (int s4 = 0; s4 < 4; s4++) {
                    if (x8_split(T) && s4 == 2) {
                        first[h] = _mm512_add_epi32(even, odd);
                        even = odd = _mm512_setzero_si512();
                    }
                    int64_t p01, p23;
                    memcpy(&p01, q + 8 * s4, sizeof p01);
                    memcpy(&p23, q + 8 * s4 + 4, sizeof p23);
                    even = x8_dot512(even, wv[2 * s4], _mm512_set1_epi64(p01));
                    odd = x8_dot512(odd, wv[2 * s4 + 1], _mm512_set1_epi64(p23));
                }
                acc[h] = _mm512_add_epi32(even, odd);
            }
            const float d1 = pair ? a[k + 1].d[c] : 0.0f;
            const __m512 d = x8_pair_of(a[k].d[c], d1);
            // Half by half for the split-scale formats (first, then acc), else once (acc).
            X8_UNROLL
            for (int h = !x8_split(T); h < 2; h++) {
                const int half = x8_split(T) ? h : 0;
                __m512i rows = h ? x8_wide_rows2(acc[0], acc[1]) : x8_wide_rows2(first[0], first[1]);
                if (fold) {
                    const int32_t o1 = pair ? x8_offset_sum(T, a + k + 1, c, half) : 0;
                    rows = _mm512_sub_epi32(rows, _mm512_mask_set1_epi32(_mm512_set1_epi32(x8_offset_sum(T, a + k, c, half)),
                                                                         (__mmask16)0xFF00, o1));
                }
                const __m512 sums = _mm512_cvtepi32_ps(rows);
                f[k / 2] = _mm512_fmadd_ps(sums, _mm512_mul_ps(x8_halves(s[h], s[h]), d), f[k / 2]);
                if (x8_has_min(T)) {
                    const float m1 = pair ? x8_term_sum(T, a + k + 1, c, half) : 0.0f;
                    f[k / 2] = _mm512_fmadd_ps(x8_halves(b[h], b[h]), x8_pair_of(x8_term_sum(T, a + k, c, half), m1), f[k / 2]);
                }
            }
        }
    }
    for (int k = 0; k < NB; k++) {
        const __m512 v = f[k / 2];
        _mm256_storeu_ps(out[k], k % 2 ? _mm256_castpd_ps(_mm512_extractf64x4_pd(_mm512_castps_pd(v), 1)) : _mm512_castps512_ps256(v));
    }
}

// Two groups at once (tiers that define X8_WIDE, for batches of two rows or more): sixteen
// weight rows per vector, one column pair each, lanes 0-7 the first group's rows and 8-15 the
// second's. Every lane of a product then wants the same activation pair, which vpdpwssd takes
// as a 32-bit broadcast straight from memory: no broadcast instructions and no row sums
// across lanes, which x8_group_wide spends beside every product. On this project's Zen 5 EPYC
// an eight-row product of SmolLM2's Q4_1 shapes ran 14% faster in cache (what is left is the
// products and the scale FMAs, which share two pipes). One row stays a group at a time but for
// the split-scale K-quants: read from memory with 2 threads, two groups side by side decoded
// SmolLM2 (Q4_1, Q8_0) 10-15% slower, while the split-scale chunks, the dearest to decode, gain
// more from the pair's shorter epilogue (Zen 5 EPYC, one row: in cache Q6_K 1.45x faster; from
// memory Q2_K and Q3_K 1.35-1.6x, Q6_K 0.85-1.2x the single group's time run to run at 40-50
// GB/s and 1.4x faster at a 70 GB/s moment). The integer sums and the float epilogue per lane
// are x8_group's, so the bits are unchanged.

/// acc + the pairwise int16 products of w and the int16 pair at a, broadcast to every lane.
X8_INLINE __m512i x8_dot512_bcast(__m512i acc, __m512i w, const int16_t *a) {
    __asm__("vpdpwssd %2%{1to16%}, %1, %0" : "+v"(acc) : "v"(w), "m"(*(const int32_t *)a));
    return acc;
}

/// x8_put_high for two groups' steps side by side (ta's high bits for the first, tb's for the
/// second).
X8_INLINE void x8_put_high2(__m512i *lo, __m512i *hi, __m256i ta, __m256i tb, int lo_shift, int hi_shift, char mask) {
    const __m512i t = _mm512_inserti64x4(_mm512_castsi256_si512(ta), tb, 1), m = _mm512_set1_epi8(mask);
    *lo = _mm512_or_si512(*lo, _mm512_and_si512(_mm512_slli_epi16(t, lo_shift), m));
    *hi = _mm512_or_si512(*hi, _mm512_and_si512(_mm512_slli_epi16(t, hi_shift), m));
}

/// Step s4's column pairs 4s4..4s4+3 of two groups: w[t] holds pair 4s4+t, the first group's
/// eight rows in lanes 0-7 and the second's in lanes 8-15, values as x8_decode gives them.
X8_INLINE void x8_decode_pair(const int T, const uint8_t *qa, const uint8_t *ha, const uint8_t *qb, const uint8_t *hb,
                              int s4, __m512i w[4], const int fold) {
    if (x8_bits(T) == 8) {
        // 32 bytes hold pairs 0 and 1 of a group's eight rows: dword lane r is row r's pair 0, 8 + r its pair 1.
        for (int h = 0; h < 2; h++) {
            const __m512i va = _mm512_cvtepi8_epi16(_mm256_loadu_si256((const __m256i *)(qa + 64 * s4 + 32 * h)));
            const __m512i vb = _mm512_cvtepi8_epi16(_mm256_loadu_si256((const __m256i *)(qb + 64 * s4 + 32 * h)));
            w[2 * h] = _mm512_shuffle_i64x2(va, vb, 0x44);
            w[2 * h + 1] = _mm512_shuffle_i64x2(va, vb, 0xEE);
        }
        return;
    }
    // Bytes 0-7 of a step hold rows 0-3's pair 0 as nibbles, 8-15 their pair 1, 16-23 and
    // 24-31 rows 4-7's. With the two groups' steps side by side, every 128-bit lane widens
    // four rows of one pair in place: unpacklo gives pair 0 of all sixteen rows in row
    // order, unpackhi pair 1, and the high nibbles pairs 2 and 3, with no shuffle across lanes.
    // The 2- and 3-bit formats' bit pairs stand at the same positions (x8_nibble_bytes).
    const __m512i zero = _mm512_setzero_si512();
    __m512i lo, hi;
    if (x8_bits(T) <= 3) {
        const __m512i pairs = _mm512_inserti64x4(_mm512_castsi256_si512(x8_top_bytes(qa, s4)), x8_top_bytes(qb, s4), 1);
        const __m512i three = _mm512_set1_epi8(3);
        lo = _mm512_and_si512(pairs, three);
        hi = _mm512_and_si512(_mm512_srli_epi16(pairs, 2), three);
        if (x8_bits(T) == 3) x8_put_high2(&lo, &hi, x8_third_bytes(ha, s4), x8_third_bytes(hb, s4), 2, 1, 4);
    } else {
        const __m512i low4 = _mm512_set1_epi8(0x0F);
        const __m512i raw = _mm512_inserti64x4(_mm512_castsi256_si512(_mm256_loadu_si256((const __m256i *)(qa + 32 * s4))),
                                               _mm256_loadu_si256((const __m256i *)(qb + 32 * s4)), 1);
        lo = _mm512_and_si512(raw, low4);
        hi = _mm512_and_si512(_mm512_srli_epi16(raw, 4), low4);
    }
    if (x8_bits(T) == 6) x8_put_high2(&lo, &hi, x8_top_bytes(ha, s4), x8_top_bytes(hb, s4), 4, 2, 0x30);
    w[0] = _mm512_unpacklo_epi8(lo, zero);
    w[1] = _mm512_unpackhi_epi8(lo, zero);
    w[2] = _mm512_unpacklo_epi8(hi, zero);
    w[3] = _mm512_unpackhi_epi8(hi, zero);
    if (x8_fifth(T)) {
        // Vector t's low 16 lanes are x8_decode's vector t of the first group, its high 16
        // the second's: their masks side by side (and the offset with them).
        uint16_t qa_h[4], qb_h[4];
        memcpy(qa_h, ha + 8 * s4, sizeof qa_h);
        memcpy(qb_h, hb + 8 * s4, sizeof qb_h);
        for (int t = 0; t < 4; t++) w[t] = x8_fifth32(T, w[t], (uint32_t)qa_h[t] | (uint32_t)qb_h[t] << 16);
    } else if (x8_offset(T) && !fold) {
        const __m512i offset = _mm512_set1_epi16((short)x8_offset(T));
        for (int t = 0; t < 4; t++) w[t] = _mm512_sub_epi16(w[t], offset);
    }
}

/// x8_chunk_end for two groups side by side (lanes 0-7 group a, 8-15 group b): half h of a
/// chunk's sums `total` of one activation row into its float accumulator f.
X8_INLINE __m512 x8_pair_end(const int T, const int fold, __m512i total, const __m256 sa[2], const __m256 ba[2],
                             const __m256 sb[2], const __m256 bb[2], int h, const loom_a16 *a, int64_t c, __m512 f) {
    if (fold) total = _mm512_sub_epi32(total, _mm512_set1_epi32(x8_offset_sum(T, a, c, h)));
    f = _mm512_fmadd_ps(_mm512_cvtepi32_ps(total), _mm512_mul_ps(x8_halves(sa[h], sb[h]), _mm512_set1_ps(a->d[c])), f);
    if (x8_has_min(T)) f = _mm512_fmadd_ps(x8_halves(ba[h], bb[h]), _mm512_set1_ps(x8_term_sum(T, a, c, h)), f);
    return f;
}

/// Groups `ga` and `gb` against NB activation rows: out_a[k][lane] and out_b[k][lane], the
/// bits x8_group gives for each group alone.
X8_INLINE void x8_group_pair(const int T, const int NB, const uint8_t *ga, const uint8_t *gb, int64_t nchunks,
                             const loom_a16 *a, float out_a[X8_ROWS][8], float out_b[X8_ROWS][8], size_t ahead) {
    __m512 f[X8_ROWS];
    X8_UNROLL
    for (int k = 0; k < NB; k++) f[k] = _mm512_setzero_ps();
    x8_k_state ka, kb;
    const int fold = x8_fold(T, NB, 1);
    for (int64_t c = 0; c < nchunks; c++) {
        __m256 sa[2], ba[2], sb[2], bb[2];
        const uint8_t *ha, *hb;
        const uint8_t *qa = x8_chunk_begin(T, ga, c, ahead, &ka, sa, ba, &ha);
        const uint8_t *qb = x8_chunk_begin(T, gb, c, ahead, &kb, sb, bb, &hb);
        // Even and odd pairs in two accumulators per row, so the dependency chains are short.
        __m512i even[X8_ROWS], odd[X8_ROWS];
        X8_UNROLL
        for (int k = 0; k < NB; k++) even[k] = odd[k] = _mm512_setzero_si512();
        X8_UNROLL
        for (int s4 = 0; s4 < 4; s4++) {
            // A split-scale chunk's first half (steps 0 and 1) goes into the floats on its own.
            if (x8_split(T) && s4 == 2) {
                X8_UNROLL
                for (int k = 0; k < NB; k++) {
                    f[k] = x8_pair_end(T, fold, _mm512_add_epi32(even[k], odd[k]), sa, ba, sb, bb, 0, a + k, c, f[k]);
                    even[k] = odd[k] = _mm512_setzero_si512();
                }
            }
            __m512i w[4];
            x8_decode_pair(T, qa, ha, qb, hb, s4, w, fold);
            X8_UNROLL
            for (int k = 0; k < NB; k++) {
                const int16_t *q = a[k].q + 32 * c + 8 * s4;
                even[k] = x8_dot512_bcast(even[k], w[0], q);
                odd[k] = x8_dot512_bcast(odd[k], w[1], q + 2);
                even[k] = x8_dot512_bcast(even[k], w[2], q + 4);
                odd[k] = x8_dot512_bcast(odd[k], w[3], q + 6);
            }
        }
        X8_UNROLL
        for (int k = 0; k < NB; k++)
            f[k] = x8_pair_end(T, fold, _mm512_add_epi32(even[k], odd[k]), sa, ba, sb, bb, x8_split(T), a + k, c, f[k]);
    }
    X8_UNROLL
    for (int k = 0; k < NB; k++) {
        _mm256_storeu_ps(out_a[k], _mm512_castps512_ps256(f[k]));
        _mm256_storeu_ps(out_b[k], _mm256_castpd_ps(_mm512_extractf64x4_pd(_mm512_castps_pd(f[k]), 1)));
    }
}

/// One group against NB activation rows, as the tier takes it.
#define x8_group_rows(T, NB, group, nchunks, a, out, ahead) x8_group_wide(T, NB, group, nchunks, a, out, ahead)
#else
#define x8_group_rows(T, NB, group, nchunks, a, out, ahead) x8_group(T, NB, group, nchunks, a, out, ahead)
#endif

/// The 8×8 transpose of 32-bit lanes.
X8_INLINE void x8_transpose8(__m256i r[8]) {
    __m256 f[8];
    for (int i = 0; i < 8; i++) f[i] = _mm256_castsi256_ps(r[i]);
    loom_transpose8x8(f);
    for (int i = 0; i < 8; i++) r[i] = _mm256_castps_si256(f[i]);
}

/// A group's eight rows as F32, row r at dst + r*ldd: multiply, then add the term, as the
/// row-major reference dequantizes. The vectors hold column pairs across rows; an 8×8
/// transpose of their 32-bit lanes gives each row its pairs in order.
X8_INLINE void x8_dequantize_group(const int T, const uint8_t *group, int64_t nchunks, float *dst, int64_t ldd) {
    x8_k_state kstate;
    for (int64_t c = 0; c < nchunks; c++) {
        __m256 s[2], b[2];
        x8_chunk_scales(T, group, c, &kstate, s, b);
        float sv[2][8], bv[2][8];
        for (int h = 0; h < 2; h++) {
            _mm256_storeu_ps(sv[h], s[h]);
            _mm256_storeu_ps(bv[h], b[h]);
        }
        const uint8_t *qs = x8_chunk_qs(T, group, c);
        const uint8_t *qh = x8_has_qh(T) ? x8_chunk_qh(T, group, c) : qs;
        __m256i v[16];
        for (int s4 = 0; s4 < 4; s4++) x8_decode(T, qs, qh, s4, v + 4 * s4, 0);
        x8_transpose8(v);
        x8_transpose8(v + 8);
        for (int r = 0; r < 8; r++) {
            float *o = dst + r * ldd + 32 * c;
            // Half h holds columns 16h…16h+15 (v[8h + r] after the transposes).
            for (int h = 0; h < 2; h++) {
                const __m256 vs = _mm256_set1_ps(sv[h][r]), vb = _mm256_set1_ps(bv[h][r]);
                const __m256i q16 = v[8 * h + r];
                __m256 f0 = _mm256_cvtepi32_ps(_mm256_cvtepi16_epi32(_mm256_castsi256_si128(q16)));
                __m256 f1 = _mm256_cvtepi32_ps(_mm256_cvtepi16_epi32(_mm256_extracti128_si256(q16, 1)));
                _mm256_storeu_ps(o + 16 * h, _mm256_add_ps(_mm256_mul_ps(f0, vs), vb));
                _mm256_storeu_ps(o + 16 * h + 8, _mm256_add_ps(_mm256_mul_ps(f1, vs), vb));
            }
        }
    }
}

X8_INLINE void x8_store(const float out[8], float *y, int64_t g, int64_t r0, int64_t r1, int accumulate) {
    if (8 * g >= r0 && 8 * g + 8 <= r1) {
        // A whole group: the same additions, eight at a time.
        const __m256 v = _mm256_load_ps(out);
        _mm256_storeu_ps(y + 8 * g, accumulate ? _mm256_add_ps(_mm256_loadu_ps(y + 8 * g), v) : v);
        return;
    }
    for (int lane = 0; lane < 8; lane++) {
        int64_t r = 8 * g + lane;
        if (r < r0 || r >= r1) continue;
        y[r] = accumulate ? y[r] + out[lane] : out[lane];
    }
}

/// Most activation rows one pass over the weights serves; larger batches take one pass per 32.
#define X8_BATCH 32

/// Calls CALL(NB) with NB = n (1 … X8_ROWS) as a compile-time constant, so each row count gets
/// a loop with every argument that shapes it a constant.
#if X8_ROWS > 4
#define X8_BY_ROWS(n, CALL)                                                                          \
    switch (n) {                                                                                    \
    case 8: CALL(8); break;                                                                         \
    case 7: CALL(7); break;                                                                         \
    case 6: CALL(6); break;                                                                         \
    case 5: CALL(5); break;                                                                         \
    case 4: CALL(4); break;                                                                         \
    case 3: CALL(3); break;                                                                         \
    case 2: CALL(2); break;                                                                         \
    default: CALL(1); break;                                                                        \
    }
#else
#define X8_BY_ROWS(n, CALL)                                                                          \
    switch (n) {                                                                                    \
    case 4: CALL(4); break;                                                                         \
    case 3: CALL(3); break;                                                                         \
    case 2: CALL(2); break;                                                                         \
    default: CALL(1); break;                                                                        \
    }
#endif

/// Groups in row order (in pairs for batches on the wide tiers); each group's blocks (a few
/// KiB) stay in L1 while every pass of X8_ROWS activation rows reads them, so the weights
/// stream from memory once per 32 rows.
X8_INLINE void x8_product(const int T, LOOM_PRODUCT_ARGS) {
    (void)x; (void)ldx;
    const int64_t nchunks = n_cols / 32;
    loom_a16 a[X8_BATCH];
    float out[X8_ROWS][8] __attribute__((aligned(32)));
    float out_b[X8_ROWS][8] __attribute__((aligned(32)));
#ifdef X8_WIDE
    // Batches, and the split-scale K-quants' single rows (see x8_group_pair), take groups two at a time.
    const int pairs = nb > 1 || x8_split(T);
#else
    const int pairs = 0;
#endif
    // A pair reads two groups side by side, so it prefetches the same bytes of the pair a whole
    // number of pairs ahead: every line is asked for once, at least X8_PREFETCH_AHEAD before it
    // is read.
    const size_t pair_bytes = 16 * row_bytes;
    const size_t pair_ahead = (X8_PREFETCH_AHEAD + pair_bytes - 1) / pair_bytes * pair_bytes;
    // The loop prefetches that far ahead of the block it reads, so the first bytes of this
    // share would arrive one miss at a time: ask for all of them at once.
    {
        const size_t ahead = pairs ? pair_ahead : X8_PREFETCH_AHEAD;
        const char *first = (const char *)w + (size_t)(r0 / 8) * 8 * row_bytes;
        const size_t share = (size_t)((r1 + 7) / 8 - r0 / 8) * 8 * row_bytes;
        const size_t ramp = share < ahead ? share : ahead;
        for (size_t off = 0; off < ramp; off += 64) _mm_prefetch(first + off, _MM_HINT_T0);
    }
    for (int64_t b0 = 0; b0 < nb; b0 += X8_BATCH) {
        const int nbatch = nb - b0 < X8_BATCH ? (int)(nb - b0) : X8_BATCH;
        for (int k = 0; k < nbatch; k++) a[k] = loom_a16_view((const char *)xq + (size_t)(b0 + k) * xq_stride, n_cols);
        for (int64_t g = r0 / 8; 8 * g < r1;) {
            const uint8_t *bp = (const uint8_t *)w + (size_t)g * 8 * row_bytes;
            const int pair = pairs && 8 * (g + 1) < r1;
            for (int k0 = 0; k0 < nbatch; k0 += X8_ROWS) {
                const int n = nbatch - k0 < X8_ROWS ? nbatch - k0 : X8_ROWS;
                const loom_a16 *ak = a + k0;
                const size_t pf = k0 > 0 ? 0 : pair ? pair_ahead : X8_PREFETCH_AHEAD;
#define X8_ONE(NB) x8_group_rows(T, NB, bp, nchunks, ak, out, pf)
#define X8_PAIR(NB) x8_group_pair(T, NB, bp, bp + 8 * row_bytes, nchunks, ak, out, out_b, pf)
#ifdef X8_WIDE
                if (pair) {
                    X8_BY_ROWS(n, X8_PAIR)
                } else
#endif
                {
                    X8_BY_ROWS(n, X8_ONE)
                }
#undef X8_ONE
#undef X8_PAIR
                for (int k = 0; k < n; k++) {
                    x8_store(out[k], y + (b0 + k0 + k) * ldy, g, r0, r1, accumulate);
                    if (pair) x8_store(out_b[k], y + (b0 + k0 + k) * ldy, g + 1, r0, r1, accumulate);
                }
            }
            g += pair ? 2 : 1;
        }
    }
}

#define X8_EXPORT(t, T, tier, target_string)                                                        \
    __attribute__((target(target_string))) void loom_product_##t##_##tier(LOOM_PRODUCT_ARGS) {     \
        x8_product(T, w, row_bytes, n_cols, x, ldx, xq, xq_stride, y, ldy, nb, r0, r1, accumulate); \
    }

/// Whole groups [g0, g0 + ng) of any interleaved type as F32 rows (n_cols apart).
#define X8_EXPORT_DEQUANTIZE(tier, target_string)                                                   \
    __attribute__((target(target_string))) void loom_dequantize_x8_groups_##tier(                  \
        int type, const void *w, size_t row_bytes, int64_t n_cols, int64_t g0, int64_t ng, float *dst) { \
        for (int64_t g = 0; g < ng; g++) {                                                          \
            const uint8_t *group = (const uint8_t *)w + (size_t)(g0 + g) * 8 * row_bytes;           \
            float *o = dst + g * 8 * n_cols;                                                        \
            switch (type) {                                                                         \
            case LOOM_TYPE_Q4_0_X8: x8_dequantize_group(LOOM_TYPE_Q4_0_X8, group, n_cols / 32, o, n_cols); break; \
            case LOOM_TYPE_Q4_1_X8: x8_dequantize_group(LOOM_TYPE_Q4_1_X8, group, n_cols / 32, o, n_cols); break; \
            case LOOM_TYPE_Q5_0_X8: x8_dequantize_group(LOOM_TYPE_Q5_0_X8, group, n_cols / 32, o, n_cols); break; \
            case LOOM_TYPE_Q5_1_X8: x8_dequantize_group(LOOM_TYPE_Q5_1_X8, group, n_cols / 32, o, n_cols); break; \
            case LOOM_TYPE_Q8_0_X8: x8_dequantize_group(LOOM_TYPE_Q8_0_X8, group, n_cols / 32, o, n_cols); break; \
            case LOOM_TYPE_Q4_K_X8: x8_dequantize_group(LOOM_TYPE_Q4_K_X8, group, n_cols / 32, o, n_cols); break; \
            case LOOM_TYPE_Q6_K_X8: x8_dequantize_group(LOOM_TYPE_Q6_K_X8, group, n_cols / 32, o, n_cols); break; \
            case LOOM_TYPE_Q2_K_X8: x8_dequantize_group(LOOM_TYPE_Q2_K_X8, group, n_cols / 32, o, n_cols); break; \
            case LOOM_TYPE_Q3_K_X8: x8_dequantize_group(LOOM_TYPE_Q3_K_X8, group, n_cols / 32, o, n_cols); break; \
            default: x8_dequantize_group(LOOM_TYPE_Q5_K_X8, group, n_cols / 32, o, n_cols); break; \
            }                                                                                       \
        }                                                                                           \
    }

#define X8_EXPORT_ALL(tier, target_string)                                                          \
    X8_EXPORT(q4_0x8, LOOM_TYPE_Q4_0_X8, tier, target_string)                                      \
    X8_EXPORT(q4_1x8, LOOM_TYPE_Q4_1_X8, tier, target_string)                                      \
    X8_EXPORT(q5_0x8, LOOM_TYPE_Q5_0_X8, tier, target_string)                                      \
    X8_EXPORT(q5_1x8, LOOM_TYPE_Q5_1_X8, tier, target_string)                                      \
    X8_EXPORT(q8_0x8, LOOM_TYPE_Q8_0_X8, tier, target_string)                                      \
    X8_EXPORT(q4_Kx8, LOOM_TYPE_Q4_K_X8, tier, target_string)                                      \
    X8_EXPORT(q5_Kx8, LOOM_TYPE_Q5_K_X8, tier, target_string)                                      \
    X8_EXPORT(q6_Kx8, LOOM_TYPE_Q6_K_X8, tier, target_string)                                      \
    X8_EXPORT(q2_Kx8, LOOM_TYPE_Q2_K_X8, tier, target_string)                                      \
    X8_EXPORT(q3_Kx8, LOOM_TYPE_Q3_K_X8, tier, target_string)
