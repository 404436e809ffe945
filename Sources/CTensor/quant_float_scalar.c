// Float weight formats (F32, F16, BF16): scalar reference tier. Products read the F32
// activations directly; nothing is quantized on either side.
#include "quant_blocks.h"

#pragma STDC FP_CONTRACT OFF

static inline float load_f32(const void *p, int64_t i) { return ((const float *)p)[i]; }
static inline float load_f16(const void *p, int64_t i) { return loom_fp16_to_fp32(((const loom_fp16 *)p)[i]); }
static inline float load_bf16(const void *p, int64_t i) { return loom_bf16_to_fp32(((const loom_bf16 *)p)[i]); }

#define LOOM_SCALAR_FLOAT_KERNELS(t)                                                               \
    void loom_dequantize_row_##t##_ref(const void *src, float *dst, int64_t n) {                   \
        for (int64_t i = 0; i < n; i++) dst[i] = load_##t(src, i);                                 \
    }                                                                                              \
    void loom_product_##t##_ref(LOOM_PRODUCT_ARGS) {                                               \
        (void)xq; (void)xq_stride;                                                                      \
        for (int64_t r = r0; r < r1; r++) {                                                        \
            const char *row = (const char *)w + (size_t)r * row_bytes;                             \
            for (int64_t bi = 0; bi < nb; bi++) {                                                  \
                const float *xb = x + bi * ldx;                                                    \
                float acc = 0.0f;                                                                  \
                for (int64_t i = 0; i < n_cols; i++) acc += load_##t(row, i) * xb[i];              \
                float *out = y + bi * ldy + r;                                                     \
                *out = accumulate ? *out + acc : acc;                                              \
            }                                                                                      \
        }                                                                                          \
    }

LOOM_SCALAR_FLOAT_KERNELS(f32)
LOOM_SCALAR_FLOAT_KERNELS(f16)
LOOM_SCALAR_FLOAT_KERNELS(bf16)
