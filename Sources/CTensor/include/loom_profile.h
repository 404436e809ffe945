// loom_profile.h — where a forward pass spends its time, for `loom bench --profile`.
//
// Off by default, and then free: every hook is one relaxed load of a flag. While on, each pool
// run adds its wall time (the caller's view, from dispatch to the last share's end) and its
// busy time (the sum of its shares' run times on every thread) to its kind's totals; a run's
// idle time, nth × wall − busy, is what its threads spent waking, waiting for a late share or
// spinning at the barrier. Forward passes and sampling add their wall times from Swift, so
// the part of a step no pool run covers (the caller's own serial work) is the step's wall time
// minus its runs'. Totals are process-wide: profile one workload at a time.
#ifndef LOOM_PROFILE_H
#define LOOM_PROFILE_H

#include <stdint.h>

#include "loom_pool.h"

#ifdef __cplusplus
extern "C" {
#endif

/// What a span of time was spent on.
typedef enum loom_work {
    /// Weight products of decode rows (matrix-vector products and the batched fused products).
    LOOM_WORK_PRODUCTS = 0,
    /// Weight products of prompt batches (loom_par_matmul: integer kernels or tiles and sgemm).
    LOOM_WORK_PROMPT_PRODUCTS = 1,
    /// Attention over the KV cache.
    LOOM_WORK_ATTENTION = 2,
    /// Norms and activations run on the pool.
    LOOM_WORK_NORMS = 3,
    /// The output projection to the vocabulary (a product the caller labels, see
    /// loom_pool_label).
    LOOM_WORK_LM_HEAD = 4,
    /// Choosing tokens from logits (recorded by the sampler).
    LOOM_WORK_SAMPLING = 5,
    /// Whole forward passes (recorded by the transformer).
    LOOM_WORK_STEP = 6,
    /// Pool runs of no kind above.
    LOOM_WORK_UNLABELLED = 7,
} loom_work;

/// Number of loom_work kinds.
#define LOOM_WORK_KINDS 8

/// One kind's totals since loom_profile_start.
typedef struct loom_work_time {
    /// Spans (pool runs, passes or samplings) recorded.
    uint64_t count;
    /// Wall time of those spans, nanoseconds.
    uint64_t wall_ns;
    /// Busy time summed over threads, nanoseconds (equal to wall_ns for single-thread spans).
    uint64_t busy_ns;
    /// Threads the pool runs had (summed over runs: thread-spans), to tell idle time.
    uint64_t thread_spans;
} loom_work_time;

/// Zeroes the totals and starts recording.
void loom_profile_start(void);
/// Stops recording (totals are kept until the next start).
void loom_profile_stop(void);
/// Nonzero while recording.
int loom_profile_active(void);
/// Copies the totals of every kind into out[0 … LOOM_WORK_KINDS-1].
void loom_profile_read(loom_work_time *out);
/// Adds one single-thread span of `wall_ns` to `kind` (no-op while not recording).
void loom_profile_record(loom_work kind, uint64_t wall_ns);
/// Nanoseconds on a monotonic clock.
uint64_t loom_profile_now_ns(void);

/// Runs of `pool` count as `kind` until the label is cleared with a negative kind, whatever
/// operation dispatches them: how the caller marks a product as the LM head. Labels are per
/// pool, so concurrent pools do not see each other's.
void loom_pool_label(loom_pool *pool, int kind);

/// loom_pool_run, counted as `kind` (unless the pool carries a label) while recording.
void loom_pool_run_as(loom_pool *pool, loom_work kind, loom_task_fn fn, void *ctx);

#ifdef __cplusplus
}
#endif
#endif
