// Rows interleaved by eight: AVX2+FMA+F16C tier. Sixteen vector registers hold four activation
// rows' accumulators beside the widened weights; vpmaddwd then vpaddd per column pair.
#if defined(__x86_64__)
#define X8_INLINE static inline __attribute__((always_inline, target("avx2,fma,f16c")))
#define X8_ROWS 4
#define x8_dot(acc, w, a) _mm256_add_epi32((acc), _mm256_madd_epi16((w), (a)))
#include "quant_x8_template.h"

__attribute__((target("avx2,fma,f16c"))) void loom_product_q4_1x8_avx2(LOOM_PRODUCT_ARGS) {
    x8_product(w, row_bytes, n_cols, x, ldx, xq, xq_stride, y, ldy, nb, r0, r1, accumulate);
}
#endif
