// Loom's own sgemm, C = A·Bᵀ (contract in loom_blas.h), for machines without OpenBLAS.
//
// Few rows of A (M < SKINNY_M): a dot-product kernel without packing (sgemm_skinny_avx2).
// Otherwise the packed kernel. Blocking: K in slices of KC; for each slice, B's rows are packed 16 at a time into a k-major
// panel on the stack (16·KC floats = 16 KiB, L1-resident), and a 6×16 register tile (12 ymm
// accumulators) sweeps A's rows against it. The A slice (M·KC floats) stays in L2 across panels.
// Edge tiles use the same kernel through a zero-padded panel and a bounded store.
#include "loom_blas.h"
#include "loom_cpu.h"
#include "simd_math.h"

#include <string.h>

#define KC 256
#define NR 16
#define MR 6
// Below this many rows of A the unpacked dot kernel wins. Measured on Zen 3, N=1536: at M=16
// 50-60 GFLOP/s against 31-36 packed (K=576) and 30 against 7.5 (K=1536); at M=128+ packing wins.
#define SKINNY_M 64
// Floats of A kept hot per pass of the dot kernel (256 KiB: half of a Zen 3 / Skylake L2).
#define A_BLOCK_FLOATS 65536

static void sgemm_scalar(int64_t M, int64_t N, int64_t K, const float *A, int64_t lda, const float *B, int64_t ldb,
                         float *C, int64_t ldc) {
    for (int64_t i = 0; i < M; i++) {
        for (int64_t j = 0; j < N; j++) {
            const float *a = A + i * lda, *b = B + j * ldb;
            float s0 = 0, s1 = 0, s2 = 0, s3 = 0;
            int64_t k = 0;
            for (; k + 4 <= K; k += 4) {
                s0 += a[k] * b[k];
                s1 += a[k + 1] * b[k + 1];
                s2 += a[k + 2] * b[k + 2];
                s3 += a[k + 3] * b[k + 3];
            }
            for (; k < K; k++) s0 += a[k] * b[k];
            C[i * ldc + j] = (s0 + s1) + (s2 + s3);
        }
    }
}

#if LOOM_X86
// Packs rows j0..j0+nr of B, columns k0..k0+kc, as panel[k][0..16) (rows beyond nr are zero).
static void pack_b(float *panel, const float *B, int64_t ldb, int64_t nr, int64_t kc) {
    if (nr < NR) memset(panel, 0, sizeof(float) * NR * (size_t)kc);
    for (int64_t j = 0; j < nr; j++) {
        const float *b = B + j * ldb;
        for (int64_t k = 0; k < kc; k++) panel[k * NR + j] = b[k];
    }
}

// acc rows [0, mr) of a 6×16 tile: C[i][0..nr) (+)= Σ_k A[i][k] · panel[k][..].
static inline __attribute__((always_inline)) LOOM_AVX2 void kernel_6x16(int mr, const float *A, int64_t lda,
                                                                         const float *panel, int64_t kc, float *C,
                                                                         int64_t ldc, int64_t nr, int accumulate) {
    __m256 c00 = _mm256_setzero_ps(), c01 = _mm256_setzero_ps(), c10 = _mm256_setzero_ps(), c11 = _mm256_setzero_ps();
    __m256 c20 = _mm256_setzero_ps(), c21 = _mm256_setzero_ps(), c30 = _mm256_setzero_ps(), c31 = _mm256_setzero_ps();
    __m256 c40 = _mm256_setzero_ps(), c41 = _mm256_setzero_ps(), c50 = _mm256_setzero_ps(), c51 = _mm256_setzero_ps();
    const float *a0 = A, *a1 = A + lda, *a2 = A + 2 * lda, *a3 = A + 3 * lda, *a4 = A + 4 * lda, *a5 = A + 5 * lda;
    for (int64_t k = 0; k < kc; k++) {
        __m256 b0 = _mm256_load_ps(panel + k * NR), b1 = _mm256_load_ps(panel + k * NR + 8);
        __m256 a;
        a = _mm256_broadcast_ss(a0 + k); c00 = _mm256_fmadd_ps(a, b0, c00); c01 = _mm256_fmadd_ps(a, b1, c01);
        if (mr > 1) { a = _mm256_broadcast_ss(a1 + k); c10 = _mm256_fmadd_ps(a, b0, c10); c11 = _mm256_fmadd_ps(a, b1, c11); }
        if (mr > 2) { a = _mm256_broadcast_ss(a2 + k); c20 = _mm256_fmadd_ps(a, b0, c20); c21 = _mm256_fmadd_ps(a, b1, c21); }
        if (mr > 3) { a = _mm256_broadcast_ss(a3 + k); c30 = _mm256_fmadd_ps(a, b0, c30); c31 = _mm256_fmadd_ps(a, b1, c31); }
        if (mr > 4) { a = _mm256_broadcast_ss(a4 + k); c40 = _mm256_fmadd_ps(a, b0, c40); c41 = _mm256_fmadd_ps(a, b1, c41); }
        if (mr > 5) { a = _mm256_broadcast_ss(a5 + k); c50 = _mm256_fmadd_ps(a, b0, c50); c51 = _mm256_fmadd_ps(a, b1, c51); }
    }
    __m256 rows[MR][2] = {{c00, c01}, {c10, c11}, {c20, c21}, {c30, c31}, {c40, c41}, {c50, c51}};
    for (int i = 0; i < mr; i++) {
        float *c = C + i * ldc;
        if (nr == NR) {
            if (accumulate) {
                rows[i][0] = _mm256_add_ps(rows[i][0], _mm256_loadu_ps(c));
                rows[i][1] = _mm256_add_ps(rows[i][1], _mm256_loadu_ps(c + 8));
            }
            _mm256_storeu_ps(c, rows[i][0]);
            _mm256_storeu_ps(c + 8, rows[i][1]);
        } else {
            float tmp[NR];
            _mm256_storeu_ps(tmp, rows[i][0]);
            _mm256_storeu_ps(tmp + 8, rows[i][1]);
            for (int64_t j = 0; j < nr; j++) c[j] = accumulate ? c[j] + tmp[j] : tmp[j];
        }
    }
}

static LOOM_AVX2 void sweep_avx2(int64_t M, const float *A, int64_t lda, const float *panel, int64_t kc, float *C,
                                 int64_t ldc, int64_t nr, int accumulate) {
    int64_t i = 0;
    for (; i + MR <= M; i += MR) kernel_6x16(6, A + i * lda, lda, panel, kc, C + i * ldc, ldc, nr, accumulate);
    switch (M - i) {
    case 5: kernel_6x16(5, A + i * lda, lda, panel, kc, C + i * ldc, ldc, nr, accumulate); break;
    case 4: kernel_6x16(4, A + i * lda, lda, panel, kc, C + i * ldc, ldc, nr, accumulate); break;
    case 3: kernel_6x16(3, A + i * lda, lda, panel, kc, C + i * ldc, ldc, nr, accumulate); break;
    case 2: kernel_6x16(2, A + i * lda, lda, panel, kc, C + i * ldc, ldc, nr, accumulate); break;
    case 1: kernel_6x16(1, A + i * lda, lda, panel, kc, C + i * ldc, ldc, nr, accumulate); break;
    default: break;
    }
}

// Skinny products (few activation rows): no packing. Each 4×2 block of C is four A rows dotted
// with two B rows along K, 8 ymm accumulators, 6 loads per 8 FMAs; A's few rows stay in L1.
static inline __attribute__((always_inline)) LOOM_AVX2 void dot_block(int mr, int nr, const float *A, int64_t lda,
                                                                       const float *B, int64_t ldb, int64_t K,
                                                                       float *C, int64_t ldc) {
    __m256 acc[4][2];
    for (int i = 0; i < 4; i++) acc[i][0] = acc[i][1] = _mm256_setzero_ps();
    int64_t k8 = K & ~(int64_t)7;
    for (int64_t k = 0; k < k8; k += 8) {
        __m256 b0 = _mm256_loadu_ps(B + k);
        __m256 b1 = nr > 1 ? _mm256_loadu_ps(B + ldb + k) : b0;
        for (int i = 0; i < 4; i++) {
            if (i >= mr) break;
            __m256 a = _mm256_loadu_ps(A + i * lda + k);
            acc[i][0] = _mm256_fmadd_ps(a, b0, acc[i][0]);
            if (nr > 1) acc[i][1] = _mm256_fmadd_ps(a, b1, acc[i][1]);
        }
    }
    for (int i = 0; i < mr; i++) {
        for (int j = 0; j < nr; j++) {
            float s = loom_hsum256(acc[i][j]);
            for (int64_t k = k8; k < K; k++) s += A[i * lda + k] * B[j * ldb + k];
            C[i * ldc + j] = s;
        }
    }
}

static LOOM_AVX2 void sgemm_skinny_block(int64_t M, int64_t N, int64_t K, const float *A, int64_t lda, const float *B,
                                         int64_t ldb, float *C, int64_t ldc) {
    for (int64_t j = 0; j < N; j += 2) {
        const float *b = B + j * ldb;
        int nr = N - j >= 2 ? 2 : 1;
        int64_t i = 0;
        for (; i + 4 <= M; i += 4) {
            if (nr == 2) dot_block(4, 2, A + i * lda, lda, b, ldb, K, C + i * ldc + j, ldc);
            else dot_block(4, 1, A + i * lda, lda, b, ldb, K, C + i * ldc + j, ldc);
        }
        for (; i < M; i++) {
            if (nr == 2) dot_block(1, 2, A + i * lda, lda, b, ldb, K, C + i * ldc + j, ldc);
            else dot_block(1, 1, A + i * lda, lda, b, ldb, K, C + i * ldc + j, ldc);
        }
    }
}

// Rows of A per pass: the block (rows × K floats) stays in L2 while every B row streams past it.
static LOOM_AVX2 void sgemm_skinny_avx2(int64_t M, int64_t N, int64_t K, const float *A, int64_t lda, const float *B,
                                        int64_t ldb, float *C, int64_t ldc) {
    int64_t mb = (A_BLOCK_FLOATS / (K > 0 ? K : 1)) & ~(int64_t)3;
    if (mb < 4) mb = 4;
    for (int64_t i = 0; i < M; i += mb) {
        int64_t m = M - i < mb ? M - i : mb;
        sgemm_skinny_block(m, N, K, A + i * lda, lda, B, ldb, C + i * ldc, ldc);
    }
}

static LOOM_AVX2 void sgemm_avx2(int64_t M, int64_t N, int64_t K, const float *A, int64_t lda, const float *B,
                                 int64_t ldb, float *C, int64_t ldc) {
    if (M < SKINNY_M) {
        sgemm_skinny_avx2(M, N, K, A, lda, B, ldb, C, ldc);
        return;
    }
    _Alignas(64) float panel[NR * KC];
    for (int64_t k0 = 0; k0 < K; k0 += KC) {
        int64_t kc = K - k0 < KC ? K - k0 : KC;
        for (int64_t j0 = 0; j0 < N; j0 += NR) {
            int64_t nr = N - j0 < NR ? N - j0 : NR;
            pack_b(panel, B + j0 * ldb + k0, ldb, nr, kc);
            sweep_avx2(M, A + k0, lda, panel, kc, C + j0, ldc, nr, k0 > 0);
        }
    }
}
#endif

int loom_sgemm_own(int64_t M, int64_t N, int64_t K, const float *A, int64_t lda, const float *B, int64_t ldb,
                   float *C, int64_t ldc) {
    if (M < 0 || N < 0 || K < 0 || lda < K || ldb < K || ldc < N) return -1;
    if (M == 0 || N == 0) return 0;
    if (K == 0) {
        for (int64_t i = 0; i < M; i++) memset(C + i * ldc, 0, (size_t)N * sizeof(float));
        return 0;
    }
#if LOOM_X86
    if (loom_isa_active() >= LOOM_ISA_AVX2) {
        sgemm_avx2(M, N, K, A, lda, B, ldb, C, ldc);
        return 0;
    }
#endif
    sgemm_scalar(M, N, K, A, lda, B, ldb, C, ldc);
    return 0;
}
