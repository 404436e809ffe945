// Rows interleaved by eight: AVX-512 tier (F, BW, VL, VNNI), on 256-bit vectors. What it gains
// over AVX2 is not width (Zen 4 splits 512-bit operations in two) but vpdpwssd, which multiplies
// and accumulates a column pair in one instruction, and 32 registers, which hold eight
// activation rows' accumulators so each weight block is widened once for eight rows.
#if defined(__x86_64__)
#define X8_TARGET "avx2,fma,f16c,avx512f,avx512bw,avx512vl,avx512vnni"
#define X8_INLINE static inline __attribute__((always_inline, target(X8_TARGET)))
#define X8_ROWS 8
#define x8_dot(acc, w, a) _mm256_dpwssd_epi32((acc), (w), (a))
#include "quant_x8_template.h"

X8_EXPORT_ALL(avx512, X8_TARGET)
#endif
