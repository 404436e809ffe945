// Rows interleaved by eight: AVX2+FMA+F16C tier. Sixteen vector registers hold eight activation
// rows' integer accumulators beside the widened weights; a broadcast, vpmaddwd and vpaddd per
// column pair and row.
#if defined(__x86_64__)
#define X8_INLINE static inline __attribute__((always_inline, target("avx2,fma,f16c")))
#define X8_ROWS 8
#include "quant_x8_template.h"

X8_EXPORT_ALL(avx2, "avx2,fma,f16c")
X8_EXPORT_DEQUANTIZE(avx2, "avx2,fma,f16c")
#endif
