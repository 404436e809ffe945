// CTensor umbrella header: every public C header of the kernel target.
// (An explicit umbrella, rather than SwiftPM's umbrella directory, so that adding a header
// invalidates Clang's module cache.) Add new public headers here, one line each.
#include "loom_bench.h"
#include "loom_blas.h"
#include "loom_cpu.h"
#include "loom_half.h"
#include "loom_ops.h"
#include "loom_parallel.h"
#include "loom_pool.h"
#include "loom_profile.h"
#include "loom_quant.h"
#include "loom_sampling.h"
