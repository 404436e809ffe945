// OpenBLAS, loaded at run time with its core type chosen by Loom (rationale in loom_blas.h).
#include "loom_blas.h"
#include "loom_cpu.h"

#include <dlfcn.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

// CBLAS enum values (fixed by the CBLAS standard).
enum { CBLAS_ROW_MAJOR = 101, CBLAS_NO_TRANS = 111, CBLAS_TRANS = 112 };

typedef void (*cblas_sgemm_fn)(int order, int trans_a, int trans_b, int m, int n, int k, float alpha,
                               const float *a, int lda, const float *b, int ldb, float beta, float *c, int ldc);
typedef char *(*corename_fn)(void);
typedef void (*set_threads_fn)(int);

static pthread_once_t g_once = PTHREAD_ONCE_INIT;
static cblas_sgemm_fn g_sgemm;
static const char *g_core = "none";
static loom_blas_backend g_backend = LOOM_BLAS_OWN;

static const char *core_for_this_cpu(void) {
    const loom_cpu_features *f = loom_cpu_features_get();
    if (f->avx512f && f->avx512bw && f->avx512vl && f->avx512dq) return f->avx512bf16 ? "CooperLake" : "SkylakeX";
    if (f->avx2 && f->fma) return "Haswell";
    return NULL;
}

static void load_openblas(void) {
    const char *want = getenv("LOOM_BLAS");
    if (want && (strcmp(want, "own") == 0 || strcmp(want, "none") == 0)) return;
    // Must precede dlopen: OpenBLAS reads it in its load-time constructor. Done once, before any
    // sgemm; setenv is not thread-safe against concurrent getenv, which Loom does not do here.
    if (!getenv("OPENBLAS_CORETYPE")) {
        const char *core = core_for_this_cpu();
        if (core) setenv("OPENBLAS_CORETYPE", core, 0);
    }
    // Loom calls sgemm from its own pool threads, one call per thread; OpenBLAS's own worker
    // threads would only sit idle (or contend), so ask for none unless the user chose otherwise.
    setenv("OPENBLAS_NUM_THREADS", "1", 0);
    static const char *const paths[] = {
        "libopenblas.so.0",
        "/usr/lib/x86_64-linux-gnu/libopenblas.so.0",
        "/usr/lib/x86_64-linux-gnu/openblas-pthread/libopenblas.so.0",
        "/usr/lib/aarch64-linux-gnu/libopenblas.so.0",
        "/usr/lib/aarch64-linux-gnu/openblas-pthread/libopenblas.so.0",
        "libopenblas.so",
    };
    void *h = NULL;
    for (size_t i = 0; i < sizeof paths / sizeof *paths && !h; i++) h = dlopen(paths[i], RTLD_NOW | RTLD_LOCAL);
    if (!h) return;
    cblas_sgemm_fn sgemm = (cblas_sgemm_fn)dlsym(h, "cblas_sgemm");
    corename_fn corename = (corename_fn)dlsym(h, "openblas_get_corename");
    set_threads_fn set_threads = (set_threads_fn)dlsym(h, "openblas_set_num_threads");
    if (!sgemm) {
        dlclose(h);
        return;
    }
    // Loom's pool provides the parallelism; OpenBLAS threads would oversubscribe the cores.
    if (set_threads) set_threads(1);
    g_sgemm = sgemm;
    const char *name = corename ? corename() : NULL;
    g_core = name && *name ? name : "unknown";
    g_backend = LOOM_BLAS_OPENBLAS;
}

static void ensure_loaded(void) { pthread_once(&g_once, load_openblas); }

const char *loom_blas_core_name(void) {
    ensure_loaded();
    return g_core;
}

bool loom_blas_openblas_available(void) {
    ensure_loaded();
    return g_sgemm != NULL;
}

loom_blas_backend loom_blas_backend_active(void) {
    ensure_loaded();
    return g_backend;
}

loom_blas_backend loom_blas_set_backend(loom_blas_backend backend) {
    ensure_loaded();
    g_backend = (backend == LOOM_BLAS_OPENBLAS && g_sgemm) ? LOOM_BLAS_OPENBLAS : LOOM_BLAS_OWN;
    return g_backend;
}

int loom_sgemm(int64_t M, int64_t N, int64_t K, const float *A, int64_t lda, const float *B, int64_t ldb,
               float *C, int64_t ldc) {
    // Checked here so OpenBLAS's xerbla never prints: bad shapes are the caller's typed error.
    if (M < 0 || N < 0 || K < 0 || lda < K || ldb < K || ldc < N) return -1;
    if (M == 0 || N == 0) return 0;
    ensure_loaded();
    if (g_backend == LOOM_BLAS_OPENBLAS && K > 0 && M <= INT32_MAX && N <= INT32_MAX && K <= INT32_MAX &&
        lda <= INT32_MAX && ldb <= INT32_MAX && ldc <= INT32_MAX) {
        g_sgemm(CBLAS_ROW_MAJOR, CBLAS_NO_TRANS, CBLAS_TRANS, (int)M, (int)N, (int)K, 1.0f, A, (int)lda, B, (int)ldb,
                0.0f, C, (int)ldc);
        return 0;
    }
    return loom_sgemm_own(M, N, K, A, lda, B, ldb, C, ldc);
}
