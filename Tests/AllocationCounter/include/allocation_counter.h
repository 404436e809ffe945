// allocation_counter.h — counts heap allocations on threads that opt in (test support only).
//
// Linking this target replaces the process's malloc family with forwarders to glibc's
// implementation (__libc_malloc, …) that, on a thread attached to a counter, add one to it per
// call. Tests use it to prove a hot path (a decode step) allocates nothing: attach the calling
// thread, and through loom_alloc_count_attach_task every worker of the pool the path runs on,
// run the path, read the counter. Threads that never attach pay one thread-local load per call.
// Only glibc exports the __libc_* entry points; elsewhere the functions still exist but count
// nothing (loom_alloc_count_supported() says which).
#ifndef LOOM_ALLOCATION_COUNTER_H
#define LOOM_ALLOCATION_COUNTER_H

#include <stdbool.h>

#ifdef __cplusplus
extern "C" {
#endif

/// True when this build interposes the allocator, so a zero count means no allocation.
bool loom_alloc_count_supported(void);

/// From now on, malloc/calloc/realloc/free/aligned allocations made on this thread add one to
/// *counter (updated atomically; several threads may share one counter). NULL detaches.
void loom_alloc_count_attach(long long *counter);

/// loom_alloc_count_attach(ctx) on whichever thread runs it: shaped as a loom_pool task body
/// (void (*)(void *ctx, int ith, int nth)), so one loom_pool_run attaches every pool thread.
void loom_alloc_count_attach_task(void *ctx, int ith, int nth);

/// The current value of a counter (an atomic load).
long long loom_alloc_count_read(const long long *counter);

#ifdef __cplusplus
}
#endif
#endif
