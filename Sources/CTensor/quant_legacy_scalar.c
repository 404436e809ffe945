// Legacy 32-element formats (Q4_0, Q4_1, Q5_0, Q5_1, Q8_0, Q8_1): scalar reference tier.
// Each decoder (quant_legacy_decode.h) states its format's formula once;
// quant_scalar_template.h derives the rest.
#include "quant_scalar_template.h"
#include "quant_legacy_decode.h"

LOOM_SCALAR_QUANT_KERNELS(q4_0, loom_block_q4_0, 32)
LOOM_SCALAR_QUANT_KERNELS(q4_1, loom_block_q4_1, 32)
LOOM_SCALAR_QUANT_KERNELS(q5_0, loom_block_q5_0, 32)
LOOM_SCALAR_QUANT_KERNELS(q5_1, loom_block_q5_1, 32)
LOOM_SCALAR_QUANT_KERNELS(q8_0, loom_block_q8_0, 32)
LOOM_SCALAR_QUANT_KERNELS(q8_1, loom_block_q8_1, 32)
