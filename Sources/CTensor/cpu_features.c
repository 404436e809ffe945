// CPU feature detection: CPUID says what the silicon has, XGETBV says which register state the
// OS saves and restores. A feature is usable only with both (ggml scores a CPU 0 without the
// OS check; on this project's machine AMX is reported but not granted, and using it is SIGILL).
#include "loom_cpu.h"

#include <stdlib.h>
#include <string.h>
#include <pthread.h>
#include <stdatomic.h>

#if defined(__x86_64__) || defined(__i386__)
#include <cpuid.h>
#if defined(__linux__)
#include <sys/syscall.h>
#include <unistd.h>
#endif

static unsigned long long read_xcr0(void) {
    unsigned int eax, edx;
    __asm__ volatile("xgetbv" : "=a"(eax), "=d"(edx) : "c"(0));
    return ((unsigned long long)edx << 32) | eax;
}

static void detect(loom_cpu_features *f) {
    unsigned int a, b, c, d;
    memset(f, 0, sizeof *f);
    if (!__get_cpuid(1, &a, &b, &c, &d)) return;
    f->sse3 = (c >> 0) & 1;
    f->ssse3 = (c >> 9) & 1;
    bool fma = (c >> 12) & 1;
    bool osxsave = (c >> 27) & 1;
    bool avx = (c >> 28) & 1;
    bool f16c = (c >> 29) & 1;

    unsigned long long xcr0 = osxsave ? read_xcr0() : 0;
    bool os_avx = (xcr0 & 0x6) == 0x6;        // XMM and YMM state
    bool os_avx512 = (xcr0 & 0xE6) == 0xE6;   // + opmask, ZMM_Hi256, Hi16_ZMM
    bool os_amx = (xcr0 & 0x60000) == 0x60000; // XTILECFG, XTILEDATA

    f->avx = avx && os_avx;
    f->fma = fma && os_avx;
    f->f16c = f16c && os_avx;

    unsigned int max_leaf = __get_cpuid_max(0, 0);
    if (max_leaf >= 7) {
        __cpuid_count(7, 0, a, b, c, d);
        f->avx2 = ((b >> 5) & 1) && os_avx;
        f->avx512f = ((b >> 16) & 1) && os_avx512;
        f->avx512dq = ((b >> 17) & 1) && os_avx512;
        f->avx512bw = ((b >> 30) & 1) && os_avx512;
        f->avx512vl = ((b >> 31) & 1) && os_avx512;
        f->avx512vnni = ((c >> 11) & 1) && os_avx512;
        f->amx_reported = ((d >> 24) & 1) && ((d >> 25) & 1);  // AMX-TILE and AMX-INT8
        __cpuid_count(7, 1, a, b, c, d);
        f->avx_vnni = ((a >> 4) & 1) && os_avx;
        f->avx512bf16 = ((a >> 5) & 1) && os_avx512;
    }
#if defined(__linux__)
    // Linux hands out AMX tile state only on request (ARCH_REQ_XCOMP_PERM = 0x1023, feature 18).
    if (f->amx_reported && os_amx) {
        f->amx = syscall(SYS_arch_prctl, 0x1023, 18) == 0;
    }
#endif
}
#else
static void detect(loom_cpu_features *f) { memset(f, 0, sizeof *f); }
#endif

static loom_cpu_features g_features;
static loom_isa g_best = LOOM_ISA_SCALAR;
// Every kernel reads the active tier and `loom_isa_set` may change it while other threads run
// kernels (`loom bench kernels`): a plain variable would be a data race.
// Relaxed order is enough — the value is self-contained, nothing else is published with it — and
// a relaxed load is an ordinary load on x86-64 and AArch64, so the kernels' dispatch costs nothing.
static atomic_int g_active = LOOM_ISA_SCALAR;
static pthread_once_t g_once = PTHREAD_ONCE_INIT;
// A thread's own tier (loom_isa_set_thread), or -1 to follow g_active: tests force a tier on
// their thread, and the pool runs its shares at their caller's, so no other thread sees it.
static _Thread_local int t_tier = -1;

static void init_once(void) {
    detect(&g_features);
    const loom_cpu_features *f = &g_features;
    if (f->avx2 && f->fma && f->f16c) g_best = LOOM_ISA_AVX2;
    if (g_best == LOOM_ISA_AVX2 && f->avx512f && f->avx512bw && f->avx512vl && f->avx512dq) g_best = LOOM_ISA_AVX512;
    // The AVX-512 tier is selectable wherever the CPU has it, so the tier tests run it on the
    // machines that can. It is the default only with VNNI: its interleaved products
    // (vpdpwssd, eight activation rows per pass) are what make it faster than AVX2 (on an
    // AVX-512 EPYC: decode 1.06x, an 8-row step 1.3x); without VNNI it would run the AVX2
    // kernels' work with nothing gained.
    loom_isa active = g_best == LOOM_ISA_AVX512 && !f->avx512vnni ? LOOM_ISA_AVX2 : g_best;
    const char *env = getenv("LOOM_ISA");
    if (env) {
        if (strcmp(env, "scalar") == 0) active = LOOM_ISA_SCALAR;
        else if (strcmp(env, "avx2") == 0) active = LOOM_ISA_AVX2;
        else if (strcmp(env, "avx512") == 0) active = LOOM_ISA_AVX512;
        if (active > g_best) active = g_best;
    }
    atomic_store_explicit(&g_active, active, memory_order_relaxed);
}

const loom_cpu_features *loom_cpu_features_get(void) {
    pthread_once(&g_once, init_once);
    return &g_features;
}

loom_isa loom_isa_best(void) {
    pthread_once(&g_once, init_once);
    return g_best;
}

loom_isa loom_isa_active(void) {
    pthread_once(&g_once, init_once);
    const int own = t_tier;
    return own >= 0 ? (loom_isa)own : (loom_isa)atomic_load_explicit(&g_active, memory_order_relaxed);
}

int loom_isa_thread(void) { return t_tier; }

int loom_isa_set_thread(int isa) {
    pthread_once(&g_once, init_once);
    const int before = t_tier;
    t_tier = isa < 0 ? -1 : isa < (int)g_best ? isa : (int)g_best;
    return before;
}

loom_isa loom_isa_set(loom_isa isa) {
    pthread_once(&g_once, init_once);
    loom_isa now = isa < g_best ? isa : g_best;
    atomic_store_explicit(&g_active, now, memory_order_relaxed);
    return now;
}

const char *loom_isa_name(loom_isa isa) {
    switch (isa) {
    case LOOM_ISA_AVX512: return "avx512";
    case LOOM_ISA_AVX2: return "avx2";
    default: return "scalar";
    }
}
