// Rows interleaved by eight: AVX2+FMA+F16C tier. Sixteen vector registers hold four activation
// rows' accumulators beside the widened weights; vpmaddwd then vpaddd per column pair.
#if defined(__x86_64__)
#define X8_INLINE static inline __attribute__((always_inline, target("avx2,fma,f16c")))
#define X8_ROWS 8
#define x8_dot(acc, w, a) _mm256_add_epi32((acc), _mm256_madd_epi16((w), (a)))
#include "quant_x8_template.h"

X8_EXPORT_ALL(avx2, "avx2,fma,f16c")
X8_EXPORT_DEQUANTIZE(avx2, "avx2,fma,f16c")
#endif
