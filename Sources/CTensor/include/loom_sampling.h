// loom_sampling.h — choosing the next token from logits: penalties, a token mask, top-k, top-p,
// min-p, temperature, and a seeded reproducible draw.
//
// Order of the chain (llama.cpp's default order): repetition penalties → mask → top-k → top-p →
// min-p → temperature → draw. top-p and min-p therefore see the temperature-1 distribution.
// Temperature <= 0 means greedy: the highest logit among allowed tokens, ties to the lowest id.
// A sampler owns every buffer it needs (sized by the vocabulary at creation); sampling a token
// never allocates.
//
// Random numbers: xoshiro256** (Blackman & Vigna), its 256-bit state seeded from the 64-bit seed
// through splitmix64; uniforms in [0, 1) take the top 53 bits. Weights come from an exp whose
// result is bit-identical on every tier, so the same seed and the same sequence of calls give
// the same tokens on every machine and tier.
#ifndef LOOM_SAMPLING_H
#define LOOM_SAMPLING_H

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/// Returned when no token is allowed by the mask (or every allowed token has logit -inf/NaN).
#define LOOM_SAMPLE_NO_TOKEN (-1)
/// Returned for invalid arguments (NULL logits, a token id out of range, …).
#define LOOM_SAMPLE_INVALID (-2)

/// xoshiro256** state.
typedef struct loom_rng {
    uint64_t s[4];
} loom_rng;

/// Seeds the generator: four splitmix64 outputs of `seed` (never the all-zero state).
void loom_rng_seed(loom_rng *rng, uint64_t seed);
/// The next 64 random bits.
uint64_t loom_rng_next(loom_rng *rng);
/// A uniform double in [0, 1) (53 random bits).
double loom_rng_uniform(loom_rng *rng);

/// Sampling settings. Each stage is off at its neutral value.
typedef struct loom_sampler_params {
    /// <= 0: greedy. Otherwise probabilities ∝ exp(logit / temperature).
    float temperature;
    /// Keep the k most likely tokens (<= 0: off).
    int32_t top_k;
    /// Keep the smallest set of most likely tokens whose mass reaches top_p (>= 1: off).
    float top_p;
    /// Drop tokens with probability below min_p × the top probability (<= 0: off).
    float min_p;
    /// Divides positive (multiplies negative) logits of tokens seen in the window (1: off).
    float repeat_penalty;
    /// Subtracted once from the logit of every token seen in the window (0: off).
    float presence_penalty;
    /// Subtracted per occurrence in the window (0: off).
    float frequency_penalty;
    /// Tokens of history the penalties look at (0: penalties off).
    int32_t penalty_last_n;
    /// Seed of the generator.
    uint64_t seed;
} loom_sampler_params;

/// Neutral settings: temperature 1, every filter and penalty off, penalty window 64, seed 0.
loom_sampler_params loom_sampler_default_params(void);

typedef struct loom_sampler loom_sampler;

/// Creates a sampler for a vocabulary of n_vocab tokens. The penalty window capacity is
/// params->penalty_last_n. Returns NULL for invalid parameters or when memory is short.
loom_sampler *loom_sampler_create(int32_t n_vocab, const loom_sampler_params *params);
/// Frees the sampler and its buffers.
void loom_sampler_destroy(loom_sampler *s);
/// Replaces the settings (not the seed or history). penalty_last_n may not exceed the capacity
/// given at creation. Returns 0, or LOOM_SAMPLE_INVALID.
int loom_sampler_set_params(loom_sampler *s, const loom_sampler_params *params);
/// Forgets the penalty history and reseeds the generator with `seed`.
void loom_sampler_reset(loom_sampler *s, uint64_t seed);
/// Records a generated (or prompt) token in the penalty window. Returns 0, or LOOM_SAMPLE_INVALID.
int loom_sampler_accept(loom_sampler *s, int32_t token);

/// Samples a token from `logits` (n_vocab floats, not modified). `mask` is NULL (every token
/// allowed) or ceil(n_vocab / 64) words: token i is allowed iff bit i % 64 of word i / 64 is set.
/// A masked-out token is never returned. Returns the token id, LOOM_SAMPLE_NO_TOKEN or
/// LOOM_SAMPLE_INVALID. Does not record the token (call loom_sampler_accept).
int32_t loom_sampler_sample(loom_sampler *s, const float *logits, const uint64_t *mask);

/// Index of the largest x[i] among allowed i (mask as above, NULL = all), ties to the lowest
/// index; NaN and -inf entries never win. Returns -1 when no allowed entry is finite or +inf.
int64_t loom_argmax_masked(const float *x, int64_t n, const uint64_t *mask);

/// Log-probabilities of one row (log-softmax at temperature 1, before any filter), normalised
/// over the tokens `mask` allows (NULL: every token; mask layout as in loom_sampler_sample):
/// masked tokens get no probability and never appear in the top list. Writes the log-probability
/// of `chosen` to *chosen_logprob (-inf when `chosen` is masked out or negative; `chosen_logprob`
/// may be NULL), and the `k` most likely allowed tokens, most likely first (ties to the lower
/// id), to top_ids/top_logprobs (capacity k each). Returns how many top entries were written
/// (min(k, allowed tokens with a finite logit)), LOOM_SAMPLE_NO_TOKEN when no allowed logit is
/// finite (or one is +inf), or LOOM_SAMPLE_INVALID. Allocates nothing; sums in double.
int32_t loom_logprobs(const float *logits, int32_t n_vocab, const uint64_t *mask, int32_t chosen, int32_t k,
                      float *chosen_logprob, int32_t *top_ids, float *top_logprobs);

#ifdef __cplusplus
}
#endif
#endif
