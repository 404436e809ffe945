// K-quant formats (Q2_K, Q3_K, Q4_K, Q5_K, Q6_K, Q8_K): AVX2+FMA+F16C tier, the family of
// quant_k_avx2_family.h through the shared loops of quant_avx2_template.h.
#if defined(__x86_64__)
#include "quant_k_avx2_family.h"
#include "quant_avx2_template.h"

LOOM_AVX2_EXPORT(q2_K, LOOM_TYPE_Q2_K)
LOOM_AVX2_EXPORT(q3_K, LOOM_TYPE_Q3_K)
LOOM_AVX2_EXPORT(q4_K, LOOM_TYPE_Q4_K)
LOOM_AVX2_EXPORT(q5_K, LOOM_TYPE_Q5_K)
LOOM_AVX2_EXPORT(q6_K, LOOM_TYPE_Q6_K)
LOOM_AVX2_EXPORT(q8_K, LOOM_TYPE_Q8_K)
#endif
