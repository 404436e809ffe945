// loom_cpu.h — what this CPU can run, and which kernel tier Loom uses.
//
// A feature counts only when the CPU reports it *and* the OS has enabled its register state
// (XCR0 via XGETBV for AVX/AVX-512; arch_prctl permission for AMX). Kernels come in three tiers
// (scalar, AVX2+FMA, AVX-512); `loom_isa_active` picks the best usable one, or the level forced by
// the LOOM_ISA environment variable (scalar|avx2|avx512), never above what the machine supports.
// AVX-512 is the default where the CPU also has VNNI. Tests select a tier for their own thread
// (`loom_isa_set_thread`), `loom bench kernels` for the process (`loom_isa_set`).
#ifndef LOOM_CPU_H
#define LOOM_CPU_H

#include <stdbool.h>

#ifdef __cplusplus
extern "C" {
#endif

/// Kernel tiers, in increasing order of capability.
typedef enum loom_isa {
    LOOM_ISA_SCALAR = 0,
    LOOM_ISA_AVX2 = 1,    ///< AVX2 + FMA + F16C
    LOOM_ISA_AVX512 = 2,  ///< AVX-512 F/BW/VL/DQ (+ VNNI when present)
} loom_isa;

/// Usable CPU features (reported by CPUID and enabled by the OS).
typedef struct loom_cpu_features {
    bool sse3, ssse3, avx, avx2, fma, f16c;
    bool avx512f, avx512bw, avx512vl, avx512dq, avx512vnni, avx512bf16;
    bool avx_vnni;
    /// AMX tiles reported by CPUID *and* granted by the kernel (ARCH_REQ_XCOMP_PERM).
    bool amx;
    /// AMX reported by CPUID, whether or not the kernel grants it.
    bool amx_reported;
} loom_cpu_features;

/// The usable features of this machine (detected once, then cached; thread-safe).
const loom_cpu_features *loom_cpu_features_get(void);

/// The best tier this machine supports.
loom_isa loom_isa_best(void);

/// The tier kernels use: `loom_isa_best()` (AVX2 where that is AVX-512 without VNNI, unless
/// LOOM_ISA=avx512), lowered by LOOM_ISA or set by `loom_isa_set`.
loom_isa loom_isa_active(void);

/// Forces the active tier (clamped to `loom_isa_best()`); returns the tier now active.
/// For benchmarks that compare tiers. The tier is an atomic, so calling this while kernels run
/// on other threads is not a data race, but those kernels may run at either tier: tests use
/// `loom_isa_set_thread` instead.
loom_isa loom_isa_set(loom_isa isa);

/// Sets the calling thread's own tier (clamped to `loom_isa_best()`), or with a negative value
/// returns it to the process-wide one; returns the previous setting (negative: none). Kernels
/// on this thread, and a pool's shares run on behalf of it (`loom_pool_run`), use it; no other
/// thread does. For tests that compare tiers while other work runs in the same process.
int loom_isa_set_thread(int isa);

/// The calling thread's own tier, or -1 when it follows the process-wide one.
int loom_isa_thread(void);

/// "scalar", "avx2" or "avx512".
const char *loom_isa_name(loom_isa isa);

#ifdef __cplusplus
}
#endif
#endif
