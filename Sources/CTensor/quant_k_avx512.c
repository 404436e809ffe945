// Split-scale K-quants (Q2_K, Q3_K, Q6_K), row-major: AVX-512 tier. The AVX2 loops
// (quant_avx2_template.h) with each 32-element chunk in one 512-bit step: these formats scale
// every 16-element half on its own, which costs the 256-bit loops two multiplies, two converts
// and two FMAs a chunk, where one of each serves both halves here.
#if defined(__x86_64__)
#define LOOM_TEMPLATE_TARGET "avx2,fma,f16c,avx512f,avx512bw,avx512vl"
#define LOOM_TEMPLATE_WIDE 1
#include "quant_k_avx2_family.h"
#include "quant_avx2_template.h"

LOOM_TEMPLATE_PRODUCT(q2_K, LOOM_TYPE_Q2_K, avx512)
LOOM_TEMPLATE_PRODUCT(q3_K, LOOM_TYPE_Q3_K, avx512)
LOOM_TEMPLATE_PRODUCT(q6_K, LOOM_TYPE_Q6_K, avx512)
#endif
