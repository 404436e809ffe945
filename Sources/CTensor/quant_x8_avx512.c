// Rows interleaved by eight: AVX-512 tier (F, BW, VL, VNNI). Products take 512-bit steps
// (X8_WIDE: a vpdpwssd multiplies two column pairs of the eight rows); on this project's Zen 5
// EPYC a 512-bit vpdpwssd issues at the 256-bit rate, so an eight-row product of SmolLM2's Q4_1
// shapes ran 1.7x faster in cache than with 256-bit steps, and a one-row product 14% faster
// (SmolLM2 decode about 4%). The 5-bit formats' fifth bits are lane masks here, applied with
// the offset in one masked add (x8_fifth32): in L2 on one thread, Q5_0 18.8 -> 25.3 GB/s, Q5_1
// 22.1 -> 26.6, Q5_K 18.7 -> 21.1, and eight-row Q5 products 5-11% faster. Results are the
// scalar reference's bits (quant_x8_template.h).
#if defined(__x86_64__)
#define X8_TARGET "avx2,fma,f16c,avx512f,avx512bw,avx512vl,avx512vnni"
#define X8_INLINE static inline __attribute__((always_inline, target(X8_TARGET)))
#define X8_ROWS 8
#define X8_WIDE 1
#include "quant_x8_template.h"

X8_EXPORT_ALL(avx512, X8_TARGET)
#endif
