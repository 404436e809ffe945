// loom_pool.h — a persistent worker pool with a spin-then-sleep barrier.
//
// One pool serves one model runner: a `loom_pool_run` call wakes the workers and runs
// `fn(ctx, ith, nth)` once for every share ith < nth (nth = the pool's threads), returning when
// all have finished. Shares are claimed by whichever threads are running (the caller included),
// so a worker the OS has not scheduled yet does not hold up the run; each share runs exactly
// once, on one thread. Dispatch costs a few microseconds, so it is used once per operation.
// Idle threads spin on an atomic generation counter for LOOM_POOL_SPIN_US microseconds (default
// 50; read at creation) and then sleep on a futex, so an idle pool costs no CPU.
#ifndef LOOM_POOL_H
#define LOOM_POOL_H

#ifdef __cplusplus
extern "C" {
#endif

typedef struct loom_pool loom_pool;

/// A task body: share `ith` of `nth` of the work described by `ctx` (shares may run on any
/// thread of the pool, one at a time each).
typedef void (*loom_task_fn)(void *ctx, int ith, int nth);

/// Creates a pool of `n_threads` threads in total (the caller counts as one); n_threads <= 0
/// means the number of physical cores. Returns NULL on failure.
loom_pool *loom_pool_create(int n_threads);
/// Stops and joins the workers.
void loom_pool_destroy(loom_pool *pool);
/// Total threads, the caller included.
int loom_pool_size(const loom_pool *pool);
/// Runs `fn` for every share and waits for all of them. Not reentrant: one caller at a time.
void loom_pool_run(loom_pool *pool, loom_task_fn fn, void *ctx);

/// Physical cores of this machine (falls back to the online logical CPU count).
int loom_physical_cores(void);

#ifdef __cplusplus
}
#endif
#endif
