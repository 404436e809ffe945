// loom_bench.h — measurement helpers for `loom bench kernels`.
#ifndef LOOM_BENCH_H
#define LOOM_BENCH_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/// Reads `bytes` bytes at `p` (32-byte aligned, a multiple of 128 bytes) as fast as the core
/// can stream them, and returns a value derived from every byte so the reads cannot be elided.
/// The read-bandwidth yardstick for the product kernels.
uint64_t loom_stream_read(const void *p, size_t bytes);

/// Seconds on a monotonic clock.
double loom_now_seconds(void);

#ifdef __cplusplus
}
#endif
#endif
