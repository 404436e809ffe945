// loom_blas.h — single-precision GEMM for prompt batches: OpenBLAS when present, else Loom's own.
//
// OpenBLAS is loaded at run time (dlopen), never linked: a DYNAMIC_ARCH OpenBLAS picks its kernels
// when it initialises, and Debian's 0.3.21 misdetects some CPUs (e.g. as "Prescott", ~6x slower
// sgemm). Before loading it, Loom sets OPENBLAS_CORETYPE from its own CPUID detection
// (CooperLake/SkylakeX for AVX-512, Haswell for AVX2) unless the user has already set it.
// OpenBLAS runs single-threaded; parallelism comes from Loom's pool splitting the output columns
// (see loom_parallel.h), so the two never compete for cores.
#ifndef LOOM_BLAS_H
#define LOOM_BLAS_H

#include <stdbool.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/// Which implementation loom_sgemm uses.
typedef enum loom_blas_backend {
    /// Loom's blocked sgemm (AVX2+FMA micro-kernel, scalar fallback).
    LOOM_BLAS_OWN = 0,
    /// OpenBLAS's cblas_sgemm, loaded at run time.
    LOOM_BLAS_OPENBLAS = 1,
} loom_blas_backend;

/// OpenBLAS's core name ("SkylakeX", "Haswell", "Zen", …) or "none" when it is not loaded.
/// The first call of any loom_blas/loom_sgemm function loads it (LOOM_BLAS=own skips loading).
const char *loom_blas_core_name(void);

/// True when OpenBLAS was found and loaded.
bool loom_blas_openblas_available(void);

/// The backend loom_sgemm currently uses (OpenBLAS when available, unless overridden).
loom_blas_backend loom_blas_backend_active(void);

/// Forces a backend (OpenBLAS only if available); returns the backend now active.
/// For tests and benchmarks; not meant to be called while sgemm runs.
loom_blas_backend loom_blas_set_backend(loom_blas_backend backend);

/// C = A · Bᵀ, single-threaded. A is M×K (row stride lda), B is N×K (row stride ldb: weight rows),
/// C is M×N (row stride ldc), all row-major F32. C is overwritten (zeros when K = 0).
/// Returns 0, or -1 without touching C for negative sizes or strides shorter than a row.
int loom_sgemm(int64_t M, int64_t N, int64_t K, const float *A, int64_t lda, const float *B, int64_t ldb,
                float *C, int64_t ldc);

/// Loom's own sgemm with the same contract, whatever the active backend.
int loom_sgemm_own(int64_t M, int64_t N, int64_t K, const float *A, int64_t lda, const float *B, int64_t ldb,
                    float *C, int64_t ldc);

#ifdef __cplusplus
}
#endif
#endif
