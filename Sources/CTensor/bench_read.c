// Streaming read for the bandwidth yardstick: integer adds over 128-byte steps keep four loads
// in flight per iteration and cost less than a load each, so the loop is bound by memory.
#include "loom_bench.h"
#include "loom_cpu.h"
#include <time.h>

#if defined(__x86_64__)
#include <immintrin.h>

__attribute__((target("avx2"))) static uint64_t stream_avx2(const void *p, size_t bytes) {
    const __m256i *v = (const __m256i *)p;
    __m256i a = _mm256_setzero_si256(), b = a, c = a, d = a;
    for (size_t i = 0; i < bytes / 32; i += 4) {
        a = _mm256_add_epi64(a, _mm256_load_si256(v + i));
        b = _mm256_add_epi64(b, _mm256_load_si256(v + i + 1));
        c = _mm256_add_epi64(c, _mm256_load_si256(v + i + 2));
        d = _mm256_add_epi64(d, _mm256_load_si256(v + i + 3));
    }
    __m256i s = _mm256_add_epi64(_mm256_add_epi64(a, b), _mm256_add_epi64(c, d));
    uint64_t out[4];
    _mm256_storeu_si256((__m256i *)out, s);
    return out[0] + out[1] + out[2] + out[3];
}
#endif

static uint64_t stream_scalar(const void *p, size_t bytes) {
    const uint64_t *v = (const uint64_t *)p;
    uint64_t a = 0, b = 0, c = 0, d = 0;
    for (size_t i = 0; i < bytes / 8; i += 4) {
        a += v[i];
        b += v[i + 1];
        c += v[i + 2];
        d += v[i + 3];
    }
    return a + b + c + d;
}

uint64_t loom_stream_read(const void *p, size_t bytes) {
#if defined(__x86_64__)
    if (loom_isa_best() >= LOOM_ISA_AVX2) return stream_avx2(p, bytes);
#endif
    return stream_scalar(p, bytes);
}

double loom_now_seconds(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}
