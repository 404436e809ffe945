// Rows interleaved by eight: repacking, row dequantization, and the scalar reference product.
//
// The reference product computes exactly what the SIMD tiers compute, in the same order: per
// chunk of 32 columns, the exact integer dot product of each row's values (offset applied) with
// the activation's int16 values, then f = fma(isum, s_row * d_x, f) and, for formats with an
// additive term, f = fma(b_row, Σx, f), where s and b are the chunk's scale and term as the
// row-major decoders state them; the split-scale K-quants (Q2_K, Q3_K, Q6_K), whose 16-column
// halves have scales of their own, take each half in turn: its sum's FMA, then its term's with
// the half's Σx (quant_legacy_decode.h, quant_k_decode.h). fmaf rounds as the
// vector FMA does, and the integer sums' conversion to float rounds as the vector conversion
// does, so the tiers agree bit for bit.
#include <math.h>
#include <string.h>
#include "quant_k_decode.h"
#include "quant_legacy_decode.h"
#include "quant_x8_layout.h"
#include "loom_cpu.h"

#pragma STDC FP_CONTRACT OFF

int loom_repack_x8_type(int type) {
    switch (type) {
    case LOOM_TYPE_Q4_0: case LOOM_TYPE_Q4_1: case LOOM_TYPE_Q5_0: case LOOM_TYPE_Q5_1: case LOOM_TYPE_Q8_0:
    case LOOM_TYPE_Q2_K: case LOOM_TYPE_Q3_K: case LOOM_TYPE_Q4_K: case LOOM_TYPE_Q5_K: case LOOM_TYPE_Q6_K:
        return 256 + type;
    default: return -1;
    }
}

/// Chunk c of a row-major block: its stored integers (the format's formula without its offset).
LOOM_X8_INLINE void stored_values(int type, const void *blk, int c, int16_t q[32]) {
    float s[2], b[2];
    switch (type) {
    case LOOM_TYPE_Q4_0: dec_q4_0(blk, c, q, s, b); break;
    case LOOM_TYPE_Q4_1: dec_q4_1(blk, c, q, s, b); break;
    case LOOM_TYPE_Q5_0: dec_q5_0(blk, c, q, s, b); break;
    case LOOM_TYPE_Q5_1: dec_q5_1(blk, c, q, s, b); break;
    case LOOM_TYPE_Q2_K: dec_q2_K(blk, c, q, s, b); break;
    case LOOM_TYPE_Q3_K: dec_q3_K(blk, c, q, s, b); break;
    case LOOM_TYPE_Q4_K: dec_q4_K(blk, c, q, s, b); break;
    case LOOM_TYPE_Q5_K: dec_q5_K(blk, c, q, s, b); break;
    case LOOM_TYPE_Q6_K: dec_q6_K(blk, c, q, s, b); break;
    default: dec_q8_0(blk, c, q, s, b); break;
    }
    int off = x8_offset(256 + type);
    for (int i = 0; i < 32; i++) q[i] = (int16_t)(q[i] + off);
}

/// The four bytes of a row in nibble segment s: by loom_x8_nibble_at, columns 8s + u (u < 4)
/// are the low nibbles of bytes 32s + 16(row/4) + 2(row%4) + {0, 1, 8, 9}, whose high nibbles
/// are columns 8s + u + 4.
static const int nibble_byte[4] = {0, 1, 8, 9};
static inline int nibble_base(int row, int s) { return 32 * s + 16 * (row / 4) + 2 * (row % 4); }

/// Where the bit pairs of nibble byte i (0-31) of step s live in a plane of pairs (Q2_K's and
/// Q3_K's values, Q6_K's top bits): byte 16s + i % 16, at bit 4(i / 16), the pair of the low
/// nibble's position first (loom_block_q2_Kx8).
static inline int plane_byte(int s, int i) { return 16 * s + i % 16; }
static inline int plane_shift(int i) { return 4 * (i / 16); }

/// Where the third bits of nibble byte i (0-31) of step s live in Q3_K's qh: byte 8s + i % 8,
/// at bit 2(i / 8), the low nibble's position first (loom_block_q3_Kx8).
static inline int third_byte(int s, int i) { return 8 * s + i % 8; }
static inline int third_shift(int i) { return 2 * (i / 8); }

/// Writes row `row`'s stored integers of one chunk into its values `qs` and high bits `qh`
/// (both zeroed before the first row).
LOOM_X8_INLINE void place(int T, uint8_t *qs, uint8_t *qh_bytes, int row, const int16_t q[32]) {
    if (x8_bits(T) == 8) {
        for (int col = 0; col < 32; col++) qs[16 * (col / 2) + loom_x8_element(row, col)] = (uint8_t)(int8_t)q[col];
        return;
    }
    for (int s = 0; s < 4; s++)
        for (int u = 0; u < 4; u++) {
            // Nibble byte i's two positions: column 8s + u (its low nibble) and 8s + u + 4.
            const int i = nibble_base(row, s) + nibble_byte[u] - 32 * s, lo = q[8 * s + u], hi = q[8 * s + u + 4];
            if (x8_bits(T) <= 3)
                qs[plane_byte(s, i)] |= (uint8_t)(((lo & 3) | (hi & 3) << 2) << plane_shift(i));
            else
                qs[32 * s + i] = (uint8_t)((lo & 0xF) | (hi & 0xF) << 4);
            if (x8_bits(T) == 6)
                qh_bytes[plane_byte(s, i)] |= (uint8_t)((((lo >> 4) & 3) | ((hi >> 4) & 3) << 2) << plane_shift(i));
            if (x8_bits(T) == 3)
                qh_bytes[third_byte(s, i)] |= (uint8_t)((((lo >> 2) & 1) | ((hi >> 2) & 1) << 1) << third_shift(i));
        }
    if (x8_fifth(T)) {
        uint16_t qh[16];
        memcpy(qh, qh_bytes, sizeof qh);
        // Branch-free: the fifth bits are random, and a branch on each mispredicts half the time.
        for (int col = 0; col < 32; col++)
            qh[col / 2] |= (uint16_t)(((q[col] >> 4) & 1) << loom_x8_element(row, col));
        memcpy(qh_bytes, qh, sizeof qh);
    }
}

/// Row r's scales (and mins) of row-major block b into interleaved block o, lane-ordered.
LOOM_X8_INLINE void place_scales(int T, uint8_t *o, const uint8_t *b, int r) {
    switch (T) {
    case LOOM_TYPE_Q2_K_X8: {
        const loom_block_q2_K *x = (const loom_block_q2_K *)b;
        loom_block_q2_Kx8 *y = (loom_block_q2_Kx8 *)o;
        y->d[r] = x->d;
        y->dmin[r] = x->dmin;
        for (int j = 0; j < 16; j++) y->scales[j][r] = x->scales[j];
        break;
    }
    case LOOM_TYPE_Q3_K_X8: {
        const loom_block_q3_K *x = (const loom_block_q3_K *)b;
        loom_block_q3_Kx8 *y = (loom_block_q3_Kx8 *)o;
        y->d[r] = x->d;
        memcpy(y->scales[r], x->scales, sizeof x->scales);
        break;
    }
    case LOOM_TYPE_Q6_K_X8: {
        const loom_block_q6_K *x = (const loom_block_q6_K *)b;
        loom_block_q6_Kx8 *y = (loom_block_q6_Kx8 *)o;
        y->d[r] = x->d;
        for (int j = 0; j < 16; j++) y->scales[j][r] = x->scales[j];
        break;
    }
    default:
        // The other blocks start with their f16 scale; Q4_1/Q5_1 follow it with the f16 min,
        // Q4_K/Q5_K with dmin and the packed scales.
        memcpy(o + 2 * r, b, 2);
        if (x8_is_k(T)) {
            memcpy(o + offsetof(loom_block_q4_Kx8, dmin) + 2 * r, b + 2, 2);
            memcpy(o + offsetof(loom_block_q4_Kx8, scales) + LOOM_K_SCALE_SIZE * r, b + 4, LOOM_K_SCALE_SIZE);
        } else if (x8_has_min(T)) {
            memcpy(o + x8_m_offset(T) + 2 * r, b + 2, 2);
        }
        break;
    }
}

/// The repacking loop of one format (T a constant after inlining, so the per-element format
/// tests fold away).
LOOM_X8_INLINE void repack_rows(const int T, const void *src, size_t row_bytes, int64_t n_rows, int64_t n_cols,
                                void *dst) {
    const int type = T - 256, chunks = x8_block_cols(T) / 32;
    const int64_t nbk = n_cols / x8_block_cols(T);
    const size_t bb = loom_type_block_bytes(type), xb = x8_block_bytes(T);
    for (int64_t g = 0; g < n_rows / 8; g++) {
        uint8_t *group = (uint8_t *)dst + (size_t)g * nbk * xb;
        for (int64_t i = 0; i < nbk; i++) {
            uint8_t *o = group + (size_t)i * xb;
            memset(o, 0, xb);
            for (int r = 0; r < 8; r++) {
                const uint8_t *b = (const uint8_t *)src + (size_t)(8 * g + r) * row_bytes + (size_t)i * bb;
                place_scales(T, o, b, r);
                for (int c = 0; c < chunks; c++) {
                    int16_t q[32];
                    stored_values(type, b, c, q);
                    int64_t chunk = i * chunks + c;
                    place(T, (uint8_t *)x8_chunk_qs(T, group, chunk), (uint8_t *)x8_chunk_qh(T, group, chunk), r, q);
                }
            }
        }
    }
}

int loom_repack_x8(int type, const void *src, size_t row_bytes, int64_t n_rows, int64_t n_cols, void *dst) {
    int T = loom_repack_x8_type(type);
    if (T < 0 || n_rows <= 0 || n_rows % 8 != 0 || n_cols <= 0 || n_cols % x8_block_cols(T) != 0) return -1;
    if (row_bytes < loom_row_bytes(type, n_cols)) return -1;
    switch (T) {
    case LOOM_TYPE_Q4_0_X8: repack_rows(LOOM_TYPE_Q4_0_X8, src, row_bytes, n_rows, n_cols, dst); break;
    case LOOM_TYPE_Q4_1_X8: repack_rows(LOOM_TYPE_Q4_1_X8, src, row_bytes, n_rows, n_cols, dst); break;
    case LOOM_TYPE_Q5_0_X8: repack_rows(LOOM_TYPE_Q5_0_X8, src, row_bytes, n_rows, n_cols, dst); break;
    case LOOM_TYPE_Q5_1_X8: repack_rows(LOOM_TYPE_Q5_1_X8, src, row_bytes, n_rows, n_cols, dst); break;
    case LOOM_TYPE_Q4_K_X8: repack_rows(LOOM_TYPE_Q4_K_X8, src, row_bytes, n_rows, n_cols, dst); break;
    case LOOM_TYPE_Q5_K_X8: repack_rows(LOOM_TYPE_Q5_K_X8, src, row_bytes, n_rows, n_cols, dst); break;
    case LOOM_TYPE_Q6_K_X8: repack_rows(LOOM_TYPE_Q6_K_X8, src, row_bytes, n_rows, n_cols, dst); break;
    case LOOM_TYPE_Q2_K_X8: repack_rows(LOOM_TYPE_Q2_K_X8, src, row_bytes, n_rows, n_cols, dst); break;
    case LOOM_TYPE_Q3_K_X8: repack_rows(LOOM_TYPE_Q3_K_X8, src, row_bytes, n_rows, n_cols, dst); break;
    default: repack_rows(LOOM_TYPE_Q8_0_X8, src, row_bytes, n_rows, n_cols, dst); break;
    }
    return T;
}

/// Row `lane`'s chunk c of a group (its 32 values, offset applied) with the scales s and
/// additive terms b of its two 16-column halves (one of each for both but in the split-scale
/// K-quants), computed as the row-major decoder computes them.
static void lane_values(int T, const uint8_t *group, int64_t c, int lane, int16_t q[32], float s[2], float b[2]) {
    loom_fp16 h;
    const uint8_t *blk = x8_chunk_block(T, group, c);
    const int i = x8_chunk_in_block(T, c);
    b[0] = b[1] = 0.0f;
    switch (T) {
    case LOOM_TYPE_Q2_K_X8: {
        const loom_block_q2_Kx8 *x = (const loom_block_q2_Kx8 *)blk;
        const float d = loom_fp16_to_fp32(x->d[lane]), dmin = loom_fp16_to_fp32(x->dmin[lane]);
        for (int half = 0; half < 2; half++) {
            const uint8_t sc = x->scales[2 * i + half][lane];
            s[half] = d * (float)(sc & 0xF);
            b[half] = -(dmin * (float)(sc >> 4));
        }
        break;
    }
    case LOOM_TYPE_Q3_K_X8: {
        const loom_block_q3_Kx8 *x = (const loom_block_q3_Kx8 *)blk;
        const float d = loom_fp16_to_fp32(x->d[lane]);
        for (int half = 0; half < 2; half++) s[half] = d * (float)(loom_q3k_scale(2 * i + half, x->scales[lane]) - 32);
        break;
    }
    case LOOM_TYPE_Q6_K_X8: {
        const loom_block_q6_Kx8 *x = (const loom_block_q6_Kx8 *)blk;
        const float d = loom_fp16_to_fp32(x->d[lane]);
        for (int half = 0; half < 2; half++) s[half] = d * (float)x->scales[2 * i + half][lane];
        break;
    }
    case LOOM_TYPE_Q4_K_X8:
    case LOOM_TYPE_Q5_K_X8: {
        uint8_t sc, m;
        loom_k_scale_min(i, blk + offsetof(loom_block_q4_Kx8, scales) + LOOM_K_SCALE_SIZE * lane, &sc, &m);
        memcpy(&h, blk + 2 * lane, 2);
        s[0] = s[1] = loom_fp16_to_fp32(h) * (float)sc;
        memcpy(&h, blk + offsetof(loom_block_q4_Kx8, dmin) + 2 * lane, 2);
        b[0] = b[1] = -(loom_fp16_to_fp32(h) * (float)m);
        break;
    }
    default:
        memcpy(&h, blk + 2 * lane, 2);
        s[0] = s[1] = loom_fp16_to_fp32(h);
        if (x8_has_min(T)) {
            memcpy(&h, blk + x8_m_offset(T) + 2 * lane, 2);
            b[0] = b[1] = loom_fp16_to_fp32(h);
        }
        break;
    }
    const uint8_t *qs = x8_chunk_qs(T, group, c);
    int v[32];
    if (x8_bits(T) == 8) {
        for (int col = 0; col < 32; col++) v[col] = (int8_t)qs[16 * (col / 2) + loom_x8_element(lane, col)];
    } else {
        const uint8_t *qh = x8_chunk_qh(T, group, c);
        for (int s4 = 0; s4 < 4; s4++)
            for (int u = 0; u < 4; u++) {
                const int j = nibble_base(lane, s4) + nibble_byte[u] - 32 * s4;
                int *lo = &v[8 * s4 + u], *hi = &v[8 * s4 + u + 4];
                if (x8_bits(T) <= 3) {
                    const int pairs = qs[plane_byte(s4, j)] >> plane_shift(j);
                    *lo = pairs & 3;
                    *hi = (pairs >> 2) & 3;
                } else {
                    *lo = qs[32 * s4 + j] & 0xF;
                    *hi = qs[32 * s4 + j] >> 4;
                }
                if (x8_bits(T) == 6) {
                    const int top = qh[plane_byte(s4, j)] >> plane_shift(j);
                    *lo |= (top & 3) << 4;
                    *hi |= ((top >> 2) & 3) << 4;
                }
                if (x8_bits(T) == 3) {
                    const int third = qh[third_byte(s4, j)] >> third_shift(j);
                    *lo |= (third & 1) << 2;
                    *hi |= ((third >> 1) & 1) << 2;
                }
            }
        if (x8_fifth(T)) {
            uint16_t bits[16];
            memcpy(bits, qh, sizeof bits);
            for (int col = 0; col < 32; col++) v[col] |= ((bits[col / 2] >> loom_x8_element(lane, col)) & 1) << 4;
        }
    }
    for (int col = 0; col < 32; col++) q[col] = (int16_t)(v[col] - x8_offset(T));
}

static void dequantize_lane(int type, const void *w, size_t row_bytes, int64_t n_cols, int64_t r, float *dst);

void loom_dequantize_rows(int type, const void *w, size_t row_bytes, int64_t n_cols, int64_t r0, int64_t n,
                          float *dst) {
    if (n <= 0) return;
    if (!loom_type_is_interleaved(type)) {
        for (int64_t i = 0; i < n; i++)
            loom_dequantize_row(type, (const char *)w + (size_t)(r0 + i) * row_bytes, dst + i * n_cols, n_cols);
        return;
    }
    if (r0 < 0 || n_cols <= 0 || n_cols % x8_block_cols(type) != 0) {
        for (int64_t i = 0; i < n * n_cols; i++) dst[i] = __builtin_nanf("");
        return;
    }
    int64_t scalar_end = r0 + n;
#if defined(__x86_64__)
    // Whole groups go through the SIMD dequantizer (the sgemm prompt path asks for tiles of
    // whole groups); rows before and after them, one at a time, through the loop below.
    const int64_t g0 = (r0 + 7) / 8, g1 = (r0 + n) / 8;
    if (g1 > g0 && loom_isa_active() >= LOOM_ISA_AVX2) {
        loom_dequantize_x8_groups_avx2(type, w, row_bytes, n_cols, g0, g1 - g0, dst + (8 * g0 - r0) * n_cols);
        for (int64_t r = 8 * g1; r < r0 + n; r++) dequantize_lane(type, w, row_bytes, n_cols, r, dst + (r - r0) * n_cols);
        scalar_end = 8 * g0;
    }
#endif
    for (int64_t r = r0; r < scalar_end; r++) dequantize_lane(type, w, row_bytes, n_cols, r, dst + (r - r0) * n_cols);
}

/// Row r of an interleaved matrix as F32.
static void dequantize_lane(int type, const void *w, size_t row_bytes, int64_t n_cols, int64_t r, float *dst) {
    const uint8_t *group = (const uint8_t *)w + (size_t)(r / 8) * 8 * row_bytes;
    for (int64_t c = 0; c < n_cols / 32; c++) {
        int16_t q[32];
        float s[2], b[2];
        lane_values(type, group, c, (int)(r % 8), q, s, b);
        // As the row-major reference dequantizes: multiply, then add the term (0 without one).
        for (int col = 0; col < 32; col++) dst[32 * c + col] = s[col / 16] * (float)q[col] + b[col / 16];
    }
}

static void product_ref(int T, LOOM_PRODUCT_ARGS) {
    (void)x; (void)ldx;
    const int64_t nchunks = n_cols / 32;
    for (int64_t g = r0 / 8; 8 * g < r1; g++) {
        const uint8_t *group = (const uint8_t *)w + (size_t)g * 8 * row_bytes;
        for (int64_t k = 0; k < nb; k++) {
            loom_a16 a = loom_a16_view((const char *)xq + (size_t)k * xq_stride, n_cols);
            float f[8] = {0};
            for (int64_t c = 0; c < nchunks; c++) {
                const int16_t *aq = a.q + 32 * c;
                for (int lane = 0; lane < 8; lane++) {
                    int16_t q[32];
                    float s[2], b[2];
                    lane_values(T, group, c, lane, q, s, b);
                    int32_t isum[2] = {0, 0};
                    for (int col = 0; col < 32; col++) isum[col / 16] += (int32_t)q[col] * aq[col];
                    if (x8_split(T)) {
                        // Each half in turn: its scaled sum, then its term with the half's Σx.
                        for (int half = 0; half < 2; half++) {
                            f[lane] = fmaf((float)isum[half], s[half] * a.d[c], f[lane]);
                            if (x8_has_min(T)) f[lane] = fmaf(b[half], a.sum16[2 * c + half], f[lane]);
                        }
                    } else {
                        f[lane] = fmaf((float)(isum[0] + isum[1]), s[0] * a.d[c], f[lane]);
                        if (x8_has_min(T)) f[lane] = fmaf(b[0], a.sum32[c], f[lane]);
                    }
                }
            }
            for (int lane = 0; lane < 8; lane++) {
                int64_t r = 8 * g + lane;
                if (r < r0 || r >= r1) continue;
                float *dst = y + k * ldy + r;
                *dst = accumulate ? *dst + f[lane] : f[lane];
            }
        }
    }
}

#define X8_REF(t, T) \
    void loom_product_##t##_ref(LOOM_PRODUCT_ARGS) { \
        product_ref(T, w, row_bytes, n_cols, x, ldx, xq, xq_stride, y, ldy, nb, r0, r1, accumulate); \
    }

X8_REF(q4_0x8, LOOM_TYPE_Q4_0_X8)
X8_REF(q4_1x8, LOOM_TYPE_Q4_1_X8)
X8_REF(q5_0x8, LOOM_TYPE_Q5_0_X8)
X8_REF(q5_1x8, LOOM_TYPE_Q5_1_X8)
X8_REF(q8_0x8, LOOM_TYPE_Q8_0_X8)
X8_REF(q4_Kx8, LOOM_TYPE_Q4_K_X8)
X8_REF(q5_Kx8, LOOM_TYPE_Q5_K_X8)
X8_REF(q6_Kx8, LOOM_TYPE_Q6_K_X8)
X8_REF(q2_Kx8, LOOM_TYPE_Q2_K_X8)
X8_REF(q3_Kx8, LOOM_TYPE_Q3_K_X8)
