// K-quant formats (Q2_K, Q3_K, Q4_K, Q5_K, Q6_K, Q8_K): scalar reference tier.
// Every super-block is read as 8 chunks of 32 elements by the decoders of quant_k_decode.h.
#include "quant_scalar_template.h"
#include "quant_k_decode.h"

LOOM_SCALAR_QUANT_KERNELS(q2_K, loom_block_q2_K, 256)
LOOM_SCALAR_QUANT_KERNELS(q3_K, loom_block_q3_K, 256)
LOOM_SCALAR_QUANT_KERNELS(q4_K, loom_block_q4_K, 256)
LOOM_SCALAR_QUANT_KERNELS(q5_K, loom_block_q5_K, 256)
LOOM_SCALAR_QUANT_KERNELS(q6_K, loom_block_q6_K, 256)
LOOM_SCALAR_QUANT_KERNELS(q8_K, loom_block_q8_K, 256)
