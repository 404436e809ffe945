// Rows interleaved by eight: repacking, row dequantization, and the scalar reference product.
//
// The reference product computes exactly what the SIMD tiers compute, in the same order: per
// 32-column block, the exact integer dot product of each row with the activation's int16
// values, then f = fma(isum, d_row * d_x, f) and f = fma(m_row, Σx, f). Integer sums are exact
// (|isum| <= 32 * 15 * 32767 < 2^24, so its float conversion is exact too) and fmaf rounds as
// the vector FMA does, so the three tiers agree bit for bit.
#include <math.h>
#include <string.h>
#include "quant_blocks.h"

#pragma STDC FP_CONTRACT OFF

int loom_repack_x8_type(int type) { return type == LOOM_TYPE_Q4_1 ? LOOM_TYPE_Q4_1_X8 : -1; }

int loom_repack_x8(int type, const void *src, size_t row_bytes, int64_t n_rows, int64_t n_cols, void *dst) {
    if (type != LOOM_TYPE_Q4_1 || n_rows <= 0 || n_rows % 8 != 0 || n_cols <= 0 || n_cols % 32 != 0) return -1;
    if (row_bytes < loom_row_bytes(type, n_cols)) return -1;
    const int64_t nbk = n_cols / 32;
    loom_block_q4_1x8 *out = (loom_block_q4_1x8 *)dst;
    for (int64_t g = 0; g < n_rows / 8; g++) {
        for (int64_t c = 0; c < nbk; c++) {
            loom_block_q4_1x8 *o = &out[g * nbk + c];
            for (int r = 0; r < 8; r++) {
                const loom_block_q4_1 *b =
                    (const loom_block_q4_1 *)((const char *)src + (size_t)(8 * g + r) * row_bytes) + c;
                o->d[r] = b->d;
                o->m[r] = b->m;
                uint8_t q[32];
                for (int j = 0; j < 16; j++) {
                    q[j] = b->qs[j] & 0xF;
                    q[j + 16] = b->qs[j] >> 4;
                }
                // By loom_x8_nibble_at, column 8s+u (u < 4) of row r is the low nibble of the byte
                // whose high nibble is column 8s+u+4.
                for (int s = 0; s < 4; s++)
                    for (int u = 0; u < 4; u++) {
                        int high;
                        int byte = loom_x8_nibble_at(r, 8 * s + u, &high);
                        o->qs[byte] = (uint8_t)(q[8 * s + u] | q[8 * s + u + 4] << 4);
                    }
            }
        }
    }
    return LOOM_TYPE_Q4_1_X8;
}

/// Row `lane`'s 32 values of an interleaved block. By loom_x8_nibble_at, the row's bytes in
/// segment s are 32s + 16(lane/4) + 2(lane%4) + {0, 1, 8, 9}, for columns 8s + {0, 1, 2, 3} in
/// their low nibbles and those columns + 4 in their high nibbles.
static inline void x8_row_values(const loom_block_q4_1x8 *b, int lane, uint8_t q[32]) {
    static const int offset[4] = {0, 1, 8, 9};
    for (int s = 0; s < 4; s++) {
        const uint8_t *p = b->qs + 32 * s + 16 * (lane / 4) + 2 * (lane % 4);
        for (int u = 0; u < 4; u++) {
            q[8 * s + u] = p[offset[u]] & 0xF;
            q[8 * s + u + 4] = p[offset[u]] >> 4;
        }
    }
}

static void dequantize_x8_row(const loom_block_q4_1x8 *group, int lane, int64_t n_cols, float *dst) {
    for (int64_t c = 0; c < n_cols / 32; c++) {
        const loom_block_q4_1x8 *b = &group[c];
        float d = loom_fp16_to_fp32(b->d[lane]), m = loom_fp16_to_fp32(b->m[lane]);
        uint8_t q[32];
        x8_row_values(b, lane, q);
        for (int col = 0; col < 32; col++) dst[32 * c + col] = d * (float)q[col] + m;
    }
}

void loom_dequantize_rows(int type, const void *w, size_t row_bytes, int64_t n_cols, int64_t r0, int64_t n,
                          float *dst) {
    if (n <= 0) return;
    if (type != LOOM_TYPE_Q4_1_X8) {
        for (int64_t i = 0; i < n; i++)
            loom_dequantize_row(type, (const char *)w + (size_t)(r0 + i) * row_bytes, dst + i * n_cols, n_cols);
        return;
    }
    if (r0 < 0 || n_cols <= 0 || n_cols % 32 != 0) {
        for (int64_t i = 0; i < n * n_cols; i++) dst[i] = __builtin_nanf("");
        return;
    }
    for (int64_t i = 0; i < n; i++) {
        int64_t r = r0 + i;
        const loom_block_q4_1x8 *group = (const loom_block_q4_1x8 *)((const char *)w + (size_t)(r / 8) * 8 * row_bytes);
        dequantize_x8_row(group, (int)(r % 8), n_cols, dst + i * n_cols);
    }
}

void loom_product_q4_1x8_ref(LOOM_PRODUCT_ARGS) {
    (void)x; (void)ldx;
    const int64_t nbk = n_cols / 32;
    for (int64_t g = r0 / 8; 8 * g < r1; g++) {
        const loom_block_q4_1x8 *group = (const loom_block_q4_1x8 *)((const char *)w + (size_t)g * 8 * row_bytes);
        for (int64_t k = 0; k < nb; k++) {
            loom_a16 a = loom_a16_view((const char *)xq + (size_t)k * xq_stride, n_cols);
            float f[8] = {0};
            for (int64_t c = 0; c < nbk; c++) {
                const loom_block_q4_1x8 *b = &group[c];
                const int16_t *aq = a.q + 32 * c;
                for (int lane = 0; lane < 8; lane++) {
                    uint8_t q[32];
                    x8_row_values(b, lane, q);
                    int32_t isum = 0;
                    for (int col = 0; col < 32; col++) isum += (int32_t)q[col] * aq[col];
                    float scale = loom_fp16_to_fp32(b->d[lane]) * a.d[c];
                    f[lane] = fmaf((float)isum, scale, f[lane]);
                    f[lane] = fmaf(loom_fp16_to_fp32(b->m[lane]), a.sum32[c], f[lane]);
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
