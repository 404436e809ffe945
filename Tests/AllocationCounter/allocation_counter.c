// Allocator interposition for allocation_counter.h.
//
// glibc lets a program replace malloc, free, calloc and realloc (and the aligned forms) by
// defining them; its own internal allocations then come here too. Each replacement forwards to
// the __libc_* implementation, so memory from either side may be freed by the other. The
// per-thread counter pointer is initial-exec TLS: reading it never allocates (a dynamic TLS
// block could, from inside malloc itself).
#include "allocation_counter.h"

#include <errno.h>
#include <stddef.h>

// Under ThreadSanitizer or AddressSanitizer the allocator belongs to the sanitizer's runtime,
// which must see every allocation, and these replacements would run before that runtime is
// initialised (TSan crashed in them at startup): no interposition there, and
// loom_alloc_count_supported() says so. scripts/sanitizers/run skips the counting suites.
#if defined(__has_feature)
#if __has_feature(thread_sanitizer) || __has_feature(address_sanitizer)
#define LOOM_ALLOC_COUNT_SANITIZED 1
#endif
#endif
#if defined(__SANITIZE_THREAD__) || defined(__SANITIZE_ADDRESS__)
#define LOOM_ALLOC_COUNT_SANITIZED 1
#endif

#if defined(__linux__) && defined(__GLIBC__) && !defined(LOOM_ALLOC_COUNT_SANITIZED)

extern void *__libc_malloc(size_t size);
extern void *__libc_calloc(size_t count, size_t size);
extern void *__libc_realloc(void *p, size_t size);
extern void __libc_free(void *p);
extern void *__libc_memalign(size_t alignment, size_t size);

static __thread long long *attached __attribute__((tls_model("initial-exec")));

static inline void note(void) {
    long long *c = attached;
    if (c) __atomic_fetch_add(c, 1, __ATOMIC_RELAXED);
}

void *malloc(size_t size) {
    note();
    return __libc_malloc(size);
}

void *calloc(size_t count, size_t size) {
    note();
    return __libc_calloc(count, size);
}

void *realloc(void *p, size_t size) {
    note();
    return __libc_realloc(p, size);
}

void free(void *p) {
    if (p) note();
    __libc_free(p);
}

void *memalign(size_t alignment, size_t size) {
    note();
    return __libc_memalign(alignment, size);
}

void *aligned_alloc(size_t alignment, size_t size) {
    note();
    return __libc_memalign(alignment, size);
}

int posix_memalign(void **out, size_t alignment, size_t size) {
    // Same contract as glibc's: a power of two multiple of sizeof(void *), else EINVAL.
    if (alignment % sizeof(void *) != 0 || (alignment & (alignment - 1)) != 0 || alignment == 0) return EINVAL;
    note();
    void *p = __libc_memalign(alignment, size);
    if (!p) return ENOMEM;
    *out = p;
    return 0;
}

bool loom_alloc_count_supported(void) { return true; }

void loom_alloc_count_attach(long long *counter) { attached = counter; }

#else

bool loom_alloc_count_supported(void) { return false; }

void loom_alloc_count_attach(long long *counter) { (void)counter; }

#endif

void loom_alloc_count_attach_task(void *ctx, int ith, int nth) {
    (void)ith;
    (void)nth;
    loom_alloc_count_attach((long long *)ctx);
}

long long loom_alloc_count_read(const long long *counter) {
    return __atomic_load_n(counter, __ATOMIC_RELAXED);
}
