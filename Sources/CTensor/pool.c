// The worker pool: persistent threads woken through a generation counter.
//
// A run publishes (fn, ctx), bumps `gen` and wakes sleepers; workers spin on `gen` for a short
// while before sleeping on it (futex on Linux), so back-to-back operations of a forward pass
// see wake-ups in well under a microsecond of spinning instead of a syscall round trip. The
// spin is bounded because the machine may be shared: a sleeping pool must cost nothing.
//
// A run has one share per thread, and shares are claimed, not assigned: the caller and the
// workers take share indices from one atomic word until none are left, then the caller waits
// for the claimed ones to finish. On a busy machine a worker may not be scheduled for
// milliseconds after its wake-up; with assigned shares every operation of a forward pass would
// wait for it, while here the threads that are running do its share. Each index still runs
// exactly once per run, by one thread at a time, so per-share scratch (indexed by `ith`) and
// the arithmetic of every share are what they would be with a thread per share.
#include "cpu_relax.h"
#include "loom_cpu.h"
#include "loom_pool.h"
#include "loom_profile.h"

#include <errno.h>
#include <limits.h>
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#if defined(__linux__)
#include <linux/futex.h>
#include <sys/syscall.h>
#endif

// How long a waiter spins before sleeping, in nanoseconds. Pause latency varies ~10x across
// cores, so the bound is in time, checked every SPIN_CHECK pauses: long enough to bridge two
// consecutive ops of a forward pass, short enough not to steal a shared machine's cores.
// LOOM_POOL_SPIN_US overrides the default (read once per pool).
#define LOOM_POOL_SPIN_NS 50000
#define SPIN_CHECK 32

struct loom_pool {
    int n_threads;
    pthread_t *threads;
    struct worker_arg *args;
    loom_task_fn fn;
    void *ctx;
    _Atomic uint32_t gen;       // bumped once per run (and once to stop)
    _Atomic uint64_t claim;     // (run generation << 32) | next unclaimed share of that run
    _Atomic uint32_t pending;   // shares of this run not finished yet
    _Atomic int sleepers;       // workers blocked in futex_wait on gen
    _Atomic int caller_sleeping;
    _Atomic int stop;
    uint64_t spin_ns;
    int label;                  // loom_pool_label's kind, or -1
    int tier;                   // this run's caller's own tier (loom_isa_set_thread), or -1
    int timing;                 // this run's shares time themselves (profiling)
    _Atomic uint64_t busy_ns;   // this run's share times, while timing
};

void loom_profile_add(int kind, uint64_t wall_ns, uint64_t busy_ns, int threads);

struct worker_arg {
    loom_pool *pool;
};

#if defined(__linux__)
static void wait_on(_Atomic uint32_t *addr, uint32_t expected) {
    syscall(SYS_futex, (uint32_t *)addr, FUTEX_WAIT_PRIVATE, expected, NULL, NULL, 0);
}
static void wake_all(_Atomic uint32_t *addr) {
    syscall(SYS_futex, (uint32_t *)addr, FUTEX_WAKE_PRIVATE, INT_MAX, NULL, NULL, 0);
}
#else
// Portable fallback: yield-polling. Correct, only less frugal than a futex.
static void wait_on(_Atomic uint32_t *addr, uint32_t expected) {
    while (atomic_load(addr) == expected) sched_yield();
}
static void wake_all(_Atomic uint32_t *addr) { (void)addr; }
#endif


/// A spin budget: true while the waiter should keep spinning.
typedef struct { uint64_t start; unsigned count; } spin_state;

static inline bool keep_spinning(spin_state *s, uint64_t budget_ns) {
    if ((++s->count % SPIN_CHECK) != 0) { loom_cpu_relax(); return true; }
    uint64_t t = loom_profile_now_ns();
    if (s->start == 0) { s->start = t; return true; }
    return t - s->start < budget_ns;
}

/// Claims the next share of run `g`: its index, or -1 when run g has none left (or is over).
static inline int claim_share(loom_pool *pool, uint32_t g) {
    uint64_t c = atomic_load_explicit(&pool->claim, memory_order_acquire);
    for (;;) {
        if ((uint32_t)(c >> 32) != g || (uint32_t)c >= (uint32_t)pool->n_threads) return -1;
        if (atomic_compare_exchange_weak_explicit(&pool->claim, &c, c + 1, memory_order_acq_rel, memory_order_acquire))
            return (int)(uint32_t)c;
    }
}

/// Runs share `ith` of the current run at the run's tier and counts it finished (waking a
/// sleeping caller).
static inline void run_share(loom_pool *pool, int ith) {
    // Only a share whose caller forced a tier other than this thread's switches (tests); the
    // forward pass's shares run as they are.
    const int own = loom_isa_thread(), switched = own != pool->tier;
    if (switched) loom_isa_set_thread(pool->tier);
    if (pool->timing) {
        uint64_t t0 = loom_profile_now_ns();
        pool->fn(pool->ctx, ith, pool->n_threads);
        atomic_fetch_add_explicit(&pool->busy_ns, loom_profile_now_ns() - t0, memory_order_relaxed);
    } else {
        pool->fn(pool->ctx, ith, pool->n_threads);
    }
    if (switched) loom_isa_set_thread(own);
    if (atomic_fetch_sub_explicit(&pool->pending, 1, memory_order_acq_rel) == 1) {
        if (atomic_load(&pool->caller_sleeping)) wake_all(&pool->pending);
    }
}

static void *worker_main(void *p) {
    struct worker_arg *arg = p;
    loom_pool *pool = arg->pool;
    // Not a load of gen: a run may be dispatched before this thread first gets scheduled, and
    // that run must count as new. gen is 0 when the pool is created and only runs bump it.
    uint32_t seen = 0;
    for (;;) {
        uint32_t g;
        spin_state spin = {0, 0};
        while ((g = atomic_load_explicit(&pool->gen, memory_order_acquire)) == seen) {
            if (keep_spinning(&spin, pool->spin_ns)) continue;
            // Announce the sleep before re-checking, so a run that bumps gen after our check
            // is guaranteed to see `sleepers > 0` and issue the wake.
            atomic_fetch_add(&pool->sleepers, 1);
            if (atomic_load(&pool->gen) == seen) wait_on(&pool->gen, seen);
            atomic_fetch_sub(&pool->sleepers, 1);
            spin = (spin_state){0, 0};
        }
        seen = g;
        if (atomic_load_explicit(&pool->stop, memory_order_acquire)) return NULL;
        // A claim succeeds only while run g still has shares, so the caller is still inside
        // run g and fn/ctx are g's (published before g's claim word).
        for (int ith; (ith = claim_share(pool, g)) >= 0;) run_share(pool, ith);
    }
}

/// Counts distinct (package, core) pairs among the CPUs this process may run on.
int loom_physical_cores(void) {
    long online = sysconf(_SC_NPROCESSORS_ONLN);
    if (online < 1) online = 1;
#if defined(__linux__)
    cpu_set_t set;
    CPU_ZERO(&set);
    bool have_affinity = sched_getaffinity(0, sizeof set, &set) == 0;
    int allowed = have_affinity ? CPU_COUNT(&set) : (int)online;
    // (package << 20 | core) keys; small machines only need a small table.
    enum { MAX_CPUS = 1024 };
    long keys[MAX_CPUS];
    int n_keys = 0;
    for (int cpu = 0; cpu < MAX_CPUS; cpu++) {
        if (have_affinity && !CPU_ISSET(cpu, &set)) continue;
        char path[128];
        long pkg = 0, core = -1;
        snprintf(path, sizeof path, "/sys/devices/system/cpu/cpu%d/topology/core_id", cpu);
        FILE *f = fopen(path, "r");
        if (!f) continue;
        if (fscanf(f, "%ld", &core) != 1) core = -1;
        fclose(f);
        snprintf(path, sizeof path, "/sys/devices/system/cpu/cpu%d/topology/physical_package_id", cpu);
        f = fopen(path, "r");
        if (f) {
            if (fscanf(f, "%ld", &pkg) != 1) pkg = 0;
            fclose(f);
        }
        if (core < 0) continue;
        long key = (pkg << 20) | core;
        bool dup = false;
        for (int i = 0; i < n_keys; i++) {
            if (keys[i] == key) { dup = true; break; }
        }
        if (!dup) keys[n_keys++] = key;
    }
    if (n_keys > 0) return n_keys < allowed ? n_keys : allowed;
    return allowed > 0 ? allowed : (int)online;
#else
    return (int)online;
#endif
}

loom_pool *loom_pool_create(int n_threads) {
    if (n_threads <= 0) n_threads = loom_physical_cores();
    if (n_threads < 1) n_threads = 1;
    loom_pool *pool = calloc(1, sizeof *pool);
    if (!pool) return NULL;
    pool->n_threads = n_threads;
    pool->spin_ns = LOOM_POOL_SPIN_NS;
    pool->label = -1;
    pool->tier = -1;
    const char *spin = getenv("LOOM_POOL_SPIN_US");
    if (spin && *spin) {
        char *end = NULL;
        unsigned long long us = strtoull(spin, &end, 10);
        if (end && *end == 0 && us <= 1000000ull) pool->spin_ns = us * 1000ull;
    }
    atomic_init(&pool->gen, 0);
    atomic_init(&pool->claim, (uint64_t)(uint32_t)n_threads);  // generation 0: no share left
    atomic_init(&pool->pending, 0);
    atomic_init(&pool->sleepers, 0);
    atomic_init(&pool->caller_sleeping, 0);
    atomic_init(&pool->stop, 0);
    if (n_threads > 1) {
        pool->threads = calloc((size_t)n_threads, sizeof *pool->threads);
        pool->args = calloc((size_t)n_threads, sizeof *pool->args);
        if (!pool->threads || !pool->args) {
            free(pool->threads);
            free(pool->args);
            free(pool);
            return NULL;
        }
        for (int i = 1; i < n_threads; i++) {
            pool->args[i].pool = pool;
            if (pthread_create(&pool->threads[i], NULL, worker_main, &pool->args[i]) != 0) {
                // Stop the ones already started, then report failure.
                pool->n_threads = i;
                loom_pool_destroy(pool);
                return NULL;
            }
        }
    }
    return pool;
}

void loom_pool_destroy(loom_pool *pool) {
    if (!pool) return;
    if (pool->n_threads > 1) {
        atomic_store_explicit(&pool->stop, 1, memory_order_release);
        atomic_fetch_add_explicit(&pool->gen, 1, memory_order_acq_rel);
        wake_all(&pool->gen);
        for (int i = 1; i < pool->n_threads; i++) pthread_join(pool->threads[i], NULL);
    }
    free(pool->threads);
    free(pool->args);
    free(pool);
}

int loom_pool_size(const loom_pool *pool) { return pool ? pool->n_threads : 1; }

void loom_pool_label(loom_pool *pool, int kind) {
    if (pool) pool->label = kind;
}

void loom_pool_run(loom_pool *pool, loom_task_fn fn, void *ctx) { loom_pool_run_as(pool, LOOM_WORK_UNLABELLED, fn, ctx); }

/// Runs every share and waits for them (loom_pool_run without the accounting).
static void dispatch(loom_pool *pool, loom_task_fn fn, void *ctx) {
    if (!pool || pool->n_threads == 1) {
        fn(ctx, 0, 1);
        return;
    }
    pool->fn = fn;
    pool->ctx = ctx;
    pool->tier = loom_isa_thread();
    atomic_store_explicit(&pool->pending, (uint32_t)pool->n_threads, memory_order_relaxed);
    // The caller is the only writer of gen between runs, so g is this run's generation.
    const uint32_t g = atomic_load_explicit(&pool->gen, memory_order_relaxed) + 1;
    // Shares become claimable (release: after fn, ctx and pending) before workers are woken.
    atomic_store_explicit(&pool->claim, (uint64_t)g << 32, memory_order_release);
    // seq_cst pairs with the sleepers announcement in worker_main.
    atomic_fetch_add(&pool->gen, 1);
    if (atomic_load(&pool->sleepers) > 0) wake_all(&pool->gen);

    // Share 0 first, as a thread of its own would; then whatever no worker has taken yet.
    for (int ith; (ith = claim_share(pool, g)) >= 0;) run_share(pool, ith);

    spin_state spin = {0, 0};
    uint32_t left;
    while ((left = atomic_load_explicit(&pool->pending, memory_order_acquire)) != 0) {
        if (keep_spinning(&spin, pool->spin_ns)) continue;
        atomic_store(&pool->caller_sleeping, 1);
        left = atomic_load(&pool->pending);
        if (left != 0) wait_on(&pool->pending, left);
        atomic_store(&pool->caller_sleeping, 0);
        spin = (spin_state){0, 0};
    }
}

void loom_pool_run_as(loom_pool *pool, loom_work kind, loom_task_fn fn, void *ctx) {
    if (!loom_profile_active()) {
        dispatch(pool, fn, ctx);
        return;
    }
    const int counted = pool && pool->label >= 0 ? pool->label : (int)kind;
    const int threads = loom_pool_size(pool);
    // One thread runs the shares itself: its busy time is the run's wall time.
    if (threads > 1) {
        atomic_store_explicit(&pool->busy_ns, 0, memory_order_relaxed);
        pool->timing = 1;  // published to the workers with the run's claim word
    }
    const uint64_t t0 = loom_profile_now_ns();
    dispatch(pool, fn, ctx);
    const uint64_t wall = loom_profile_now_ns() - t0;
    if (threads > 1) pool->timing = 0;
    loom_profile_add(counted, wall, threads > 1 ? atomic_load_explicit(&pool->busy_ns, memory_order_relaxed) : wall,
                     threads);
}
