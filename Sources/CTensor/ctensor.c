// CTensor: the C kernels under Loom. See include/*.h for the per-area APIs; each area lives in
// its own file (quant_*.c for block formats and products, pool.c, blas.c, ops_*.c, sampling.c).
#include "loom_quant.h"
