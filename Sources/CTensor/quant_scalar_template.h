// quant_scalar_template.h — the scalar reference loops shared by every quantized format.
//
// A format supplies `dec_<t>(block, c, q, s, b)`: chunk c (32 elements) of a block as integers
// q[32] with weight = s[h]*q + b[h] for the 16-element half h. From that one decoder this
// template builds the reference dequantizer and the reference product, so the two can never
// disagree about a format. Included only by quant_*_scalar.c.
#ifndef LOOM_QUANT_SCALAR_TEMPLATE_H
#define LOOM_QUANT_SCALAR_TEMPLATE_H

#include "quant_blocks.h"

// The reference must round exactly as the formulas are written (gguf's numpy dequantizer
// does), so no multiply-add may be fused behind our back.
#pragma STDC FP_CONTRACT OFF

// Activation rows one pass over the weights serves: each chunk of a weight row is decoded once
// and multiplied with all of them (each row keeping its own accumulator, summed in the same
// order as alone, so results do not depend on the batch).
#define LOOM_SCALAR_BATCH 32

#define LOOM_SCALAR_QUANT_KERNELS(t, BT, QKB)                                                      \
    void loom_dequantize_row_##t##_ref(const void *src, float *dst, int64_t n) {                   \
        const BT *blk = (const BT *)src;                                                           \
        int64_t nblk = n / (QKB);                                                                  \
        for (int64_t i = 0; i < nblk; i++) {                                                       \
            for (int c = 0; c < (QKB) / 32; c++) {                                                 \
                int16_t q[32];                                                                     \
                float s[2], b[2];                                                                  \
                dec_##t(&blk[i], c, q, s, b);                                                      \
                float *o = dst + i * (QKB) + c * 32;                                               \
                for (int l = 0; l < 32; l++) o[l] = s[l >> 4] * (float)q[l] + b[l >> 4];           \
            }                                                                                      \
        }                                                                                          \
    }                                                                                              \
    void loom_product_##t##_ref(LOOM_PRODUCT_ARGS) {                                               \
        (void)x; (void)ldx;                                                                        \
        int64_t nblk = n_cols / (QKB);                                                             \
        for (int64_t b0 = 0; b0 < nb; b0 += LOOM_SCALAR_BATCH) {                                   \
            int64_t n = nb - b0 < LOOM_SCALAR_BATCH ? nb - b0 : LOOM_SCALAR_BATCH;                 \
            loom_a16 a[LOOM_SCALAR_BATCH];                                                         \
            for (int64_t k = 0; k < n; k++)                                                        \
                a[k] = loom_a16_view((const char *)xq + (size_t)(b0 + k) * xq_stride, n_cols);     \
            for (int64_t r = r0; r < r1; r++) {                                                    \
                const BT *row = (const BT *)((const char *)w + (size_t)r * row_bytes);             \
                float acc[LOOM_SCALAR_BATCH] = {0};                                                \
                int64_t ci = 0;                                                                    \
                for (int64_t i = 0; i < nblk; i++) {                                               \
                    for (int c = 0; c < (QKB) / 32; c++, ci++) {                                   \
                        int16_t q[32];                                                             \
                        float s[2], b[2];                                                          \
                        dec_##t(&row[i], c, q, s, b);                                              \
                        for (int64_t k = 0; k < n; k++) {                                          \
                            const int16_t *aq = a[k].q + 32 * ci;                                  \
                            int32_t d0 = 0, d1 = 0;                                                \
                            for (int l = 0; l < 16; l++) d0 += (int32_t)q[l] * aq[l];              \
                            for (int l = 16; l < 32; l++) d1 += (int32_t)q[l] * aq[l];             \
                            acc[k] += a[k].d[ci] * (s[0] * (float)d0 + s[1] * (float)d1);          \
                            acc[k] += b[0] * a[k].sum16[2 * ci] + b[1] * a[k].sum16[2 * ci + 1];   \
                        }                                                                          \
                    }                                                                              \
                }                                                                                  \
                for (int64_t k = 0; k < n; k++) {                                                  \
                    float *out = y + (b0 + k) * ldy + r;                                           \
                    *out = accumulate ? *out + acc[k] : acc[k];                                    \
                }                                                                                  \
            }                                                                                      \
        }                                                                                          \
    }

#endif
