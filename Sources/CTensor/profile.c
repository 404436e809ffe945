// Process-wide time totals per kind of work (loom_profile.h). Recording is rare and
// diagnostic, so the totals are plain atomics: a pool run adds to them once, at its end.
#include "loom_profile.h"

#include <stdatomic.h>
#include <time.h>

static _Atomic int recording;
static _Atomic uint64_t counts[LOOM_WORK_KINDS], walls[LOOM_WORK_KINDS], busies[LOOM_WORK_KINDS],
    thread_spans[LOOM_WORK_KINDS];

uint64_t loom_profile_now_ns(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

void loom_profile_start(void) {
    for (int k = 0; k < LOOM_WORK_KINDS; k++) {
        atomic_store(&counts[k], 0);
        atomic_store(&walls[k], 0);
        atomic_store(&busies[k], 0);
        atomic_store(&thread_spans[k], 0);
    }
    atomic_store(&recording, 1);
}

void loom_profile_stop(void) { atomic_store(&recording, 0); }

int loom_profile_active(void) { return atomic_load_explicit(&recording, memory_order_relaxed); }

void loom_profile_read(loom_work_time *out) {
    for (int k = 0; k < LOOM_WORK_KINDS; k++) {
        out[k] = (loom_work_time){atomic_load(&counts[k]), atomic_load(&walls[k]), atomic_load(&busies[k]),
                                  atomic_load(&thread_spans[k])};
    }
}

/// Adds one span of `threads` threads (profile-internal: pool.c records its runs here).
void loom_profile_add(int kind, uint64_t wall_ns, uint64_t busy_ns, int threads) {
    if (kind < 0 || kind >= LOOM_WORK_KINDS || !loom_profile_active()) return;
    atomic_fetch_add_explicit(&counts[kind], 1, memory_order_relaxed);
    atomic_fetch_add_explicit(&walls[kind], wall_ns, memory_order_relaxed);
    atomic_fetch_add_explicit(&busies[kind], busy_ns, memory_order_relaxed);
    atomic_fetch_add_explicit(&thread_spans[kind], (uint64_t)threads, memory_order_relaxed);
}

void loom_profile_record(loom_work kind, uint64_t wall_ns) { loom_profile_add((int)kind, wall_ns, wall_ns, 1); }
