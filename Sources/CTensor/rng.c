// xoshiro256** seeded through splitmix64: small state, 2^256-1 period, passes BigCrush, and
// fully specified by its published reference, so seeded runs reproduce across platforms.
#include "loom_sampling.h"

static uint64_t splitmix64(uint64_t *x) {
    uint64_t z = (*x += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}

static inline uint64_t rotl(uint64_t x, int k) { return (x << k) | (x >> (64 - k)); }

void loom_rng_seed(loom_rng *rng, uint64_t seed) {
    uint64_t x = seed;
    for (int i = 0; i < 4; i++) rng->s[i] = splitmix64(&x);
    // splitmix64 never yields four zero words in a row from one stream, but keep the invariant
    // explicit: the all-zero state is xoshiro's only fixed point.
    if ((rng->s[0] | rng->s[1] | rng->s[2] | rng->s[3]) == 0) rng->s[0] = 1;
}

uint64_t loom_rng_next(loom_rng *rng) {
    uint64_t *s = rng->s;
    uint64_t result = rotl(s[1] * 5, 7) * 9;
    uint64_t t = s[1] << 17;
    s[2] ^= s[0];
    s[3] ^= s[1];
    s[1] ^= s[2];
    s[0] ^= s[3];
    s[2] ^= t;
    s[3] = rotl(s[3], 45);
    return result;
}

double loom_rng_uniform(loom_rng *rng) { return (double)(loom_rng_next(rng) >> 11) * 0x1.0p-53; }
