// Log-probabilities of one logits row for callers that report them (OpenAI's `logprobs`): the
// chosen token's log-softmax and the k most likely tokens, over the tokens a mask allows.
//
// Two passes over the row and nothing allocated: the first finds the maximum allowed logit and
// keeps the k best (logit, id) pairs by insertion into the caller's arrays (k is small, at most
// a few tens, so insertion beats a heap); the second sums exp(logit - max) in double. Allowed
// tokens with a NaN or -inf logit carry no probability and are never listed. Zero mask words are
// skipped outright, so tight grammars cost almost nothing.
#include "loom_sampling.h"
#include <math.h>

static inline int allowed(const uint64_t *mask, int32_t i) {
    return !mask || ((mask[i >> 6] >> (i & 63)) & 1);
}

/// Inserts (v, id) into the descending list of `*count` entries (capacity k). Ids arrive in
/// ascending order, so an equal logit never displaces an earlier id: ties go to the lower id.
static inline void keep_best(float v, int32_t id, int32_t k, int32_t *count, int32_t *ids, float *vals) {
    int32_t c = *count;
    if (c == k && !(v > vals[k - 1])) return;
    int32_t at = c < k ? c : k - 1;
    while (at > 0 && v > vals[at - 1]) {
        vals[at] = vals[at - 1];
        ids[at] = ids[at - 1];
        at--;
    }
    vals[at] = v;
    ids[at] = id;
    if (c < k) *count = c + 1;
}

int32_t loom_logprobs(const float *logits, int32_t n_vocab, const uint64_t *mask, int32_t chosen, int32_t k,
                      float *chosen_logprob, int32_t *top_ids, float *top_logprobs) {
    if (!logits || n_vocab <= 0 || k < 0 || (k > 0 && (!top_ids || !top_logprobs))) return LOOM_SAMPLE_INVALID;
    if (chosen >= n_vocab) return LOOM_SAMPLE_INVALID;
    float m = -INFINITY;
    int32_t count = 0;
    for (int32_t w = 0; w * 64 < n_vocab; w++) {
        uint64_t bits = mask ? mask[w] : ~0ull;
        if (!bits) continue;
        int32_t end = w * 64 + 64 < n_vocab ? w * 64 + 64 : n_vocab;
        for (int32_t i = w * 64; i < end; i++) {
            if (!((bits >> (i & 63)) & 1)) continue;
            float v = logits[i];
            if (!(v > -INFINITY)) continue;  // NaN and -inf: no probability, never listed
            if (v > m) m = v;
            if (k > 0) keep_best(v, i, k, &count, top_ids, top_logprobs);
        }
    }
    if (!(m > -INFINITY) || isinf(m)) {
        // No allowed finite logit (or an infinite one): no distribution to report.
        if (chosen_logprob) *chosen_logprob = NAN;
        return LOOM_SAMPLE_NO_TOKEN;
    }
    double sum = 0;
    for (int32_t w = 0; w * 64 < n_vocab; w++) {
        uint64_t bits = mask ? mask[w] : ~0ull;
        if (!bits) continue;
        int32_t end = w * 64 + 64 < n_vocab ? w * 64 + 64 : n_vocab;
        for (int32_t i = w * 64; i < end; i++) {
            if (!((bits >> (i & 63)) & 1)) continue;
            float v = logits[i];
            if (v > -INFINITY) sum += exp((double)v - (double)m);
        }
    }
    double lse = (double)m + log(sum);
    for (int32_t j = 0; j < count; j++) top_logprobs[j] = (float)((double)top_logprobs[j] - lse);
    if (chosen_logprob) {
        if (chosen < 0 || !allowed(mask, chosen) || isnan(logits[chosen])) *chosen_logprob = -INFINITY;
        else *chosen_logprob = (float)((double)logits[chosen] - lse);
    }
    return count;
}
