// The sampler chain (order and RNG documented in loom_sampling.h).
//
// Candidates are (logit, id) pairs in a buffer sized by the vocabulary. Filters never sort the
// whole vocabulary: top-k keeps a k-heap (quickselect for large k), and top-p sorts the best 64
// candidates, which settles peaked distributions, else buckets candidates by logit and sorts
// only the bucket where the mass crosses p. The order (logit descending, id ascending) is total,
// so every step is deterministic.
#include "loom_sampling.h"
#include "simd_math.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

typedef struct cand {
    float v;
    int32_t id;
    float w;  // exp(v - max) at temperature 1, once top-p has computed it
} cand;

struct loom_sampler {
    int32_t n_vocab;
    loom_sampler_params p;
    loom_rng rng;
    float *work;      // penalised logits (n_vocab)
    cand *cands;      // candidates (n_vocab)
    int32_t *counts;  // occurrences of each token in the window (n_vocab)
    uint32_t *stamp;  // per-token marker so a penalty applies once per call (n_vocab)
    uint32_t call;
    int32_t *window;  // ring of the last `capacity` accepted tokens
    int32_t capacity, head, len;
};

loom_sampler_params loom_sampler_default_params(void) {
    loom_sampler_params p;
    memset(&p, 0, sizeof p);
    p.temperature = 1.0f;
    p.top_k = 0;
    p.top_p = 1.0f;
    p.min_p = 0.0f;
    p.repeat_penalty = 1.0f;
    p.presence_penalty = 0.0f;
    p.frequency_penalty = 0.0f;
    p.penalty_last_n = 64;
    p.seed = 0;
    return p;
}

static int params_valid(const loom_sampler_params *p) {
    if (!p) return 0;
    if (isnan(p->temperature) || isnan(p->top_p) || isnan(p->min_p)) return 0;
    if (!(p->repeat_penalty > 0.0f) || !isfinite(p->repeat_penalty)) return 0;
    if (!isfinite(p->presence_penalty) || !isfinite(p->frequency_penalty)) return 0;
    if (p->penalty_last_n < 0) return 0;
    return 1;
}

loom_sampler *loom_sampler_create(int32_t n_vocab, const loom_sampler_params *params) {
    if (n_vocab <= 0 || !params_valid(params)) return NULL;
    loom_sampler *s = calloc(1, sizeof *s);
    if (!s) return NULL;
    s->n_vocab = n_vocab;
    s->p = *params;
    s->capacity = params->penalty_last_n;
    s->work = malloc((size_t)n_vocab * sizeof *s->work);
    s->cands = malloc((size_t)n_vocab * sizeof *s->cands);
    s->counts = calloc((size_t)n_vocab, sizeof *s->counts);
    s->stamp = calloc((size_t)n_vocab, sizeof *s->stamp);
    s->window = malloc((size_t)(s->capacity > 0 ? s->capacity : 1) * sizeof *s->window);
    if (!s->work || !s->cands || !s->counts || !s->stamp || !s->window) {
        loom_sampler_destroy(s);
        return NULL;
    }
    loom_rng_seed(&s->rng, params->seed);
    return s;
}

void loom_sampler_destroy(loom_sampler *s) {
    if (!s) return;
    free(s->work);
    free(s->cands);
    free(s->counts);
    free(s->stamp);
    free(s->window);
    free(s);
}

int loom_sampler_set_params(loom_sampler *s, const loom_sampler_params *params) {
    if (!s || !params_valid(params) || params->penalty_last_n > s->capacity) return LOOM_SAMPLE_INVALID;
    uint64_t seed = s->p.seed;
    s->p = *params;
    s->p.seed = seed;
    return 0;
}

void loom_sampler_reset(loom_sampler *s, uint64_t seed) {
    if (!s) return;
    memset(s->counts, 0, (size_t)s->n_vocab * sizeof *s->counts);
    s->head = s->len = 0;
    s->p.seed = seed;
    loom_rng_seed(&s->rng, seed);
}

int loom_sampler_accept(loom_sampler *s, int32_t token) {
    if (!s || token < 0 || token >= s->n_vocab) return LOOM_SAMPLE_INVALID;
    if (s->capacity == 0) return 0;
    if (s->len == s->capacity) {
        s->counts[s->window[s->head]]--;
        s->len--;
        s->head = (s->head + 1) % s->capacity;
    }
    s->window[(s->head + s->len) % s->capacity] = token;
    s->len++;
    s->counts[token]++;
    return 0;
}

// MARK: - Ordering helpers

static inline int before(cand a, cand b) { return a.v > b.v || (a.v == b.v && a.id < b.id); }

static inline void swap_c(cand *a, cand *b) {
    cand t = *a;
    *a = *b;
    *b = t;
}

static void insertion_sort(cand *c, int64_t n) {
    for (int64_t i = 1; i < n; i++) {
        cand x = c[i];
        int64_t j = i;
        while (j > 0 && before(x, c[j - 1])) {
            c[j] = c[j - 1];
            j--;
        }
        c[j] = x;
    }
}

// Partitions c[0..n) around a median-of-three pivot; returns the pivot's final index.
static int64_t partition(cand *c, int64_t n) {
    int64_t mid = n / 2;
    if (before(c[mid], c[0])) swap_c(&c[mid], &c[0]);
    if (before(c[n - 1], c[0])) swap_c(&c[n - 1], &c[0]);
    if (before(c[n - 1], c[mid])) swap_c(&c[n - 1], &c[mid]);
    swap_c(&c[mid], &c[n - 1]);
    cand pivot = c[n - 1];
    int64_t store = 0;
    for (int64_t i = 0; i < n - 1; i++) {
        if (before(c[i], pivot)) swap_c(&c[i], &c[store++]);
    }
    swap_c(&c[store], &c[n - 1]);
    return store;
}

// Restores the min-heap (by `before`: the root is the candidate that comes last) below i.
static void sift_down(cand *h, int64_t k, int64_t i) {
    for (;;) {
        int64_t l = 2 * i + 1, r = l + 1, worst = i;
        if (l < k && before(h[worst], h[l])) worst = l;
        if (r < k && before(h[worst], h[r])) worst = r;
        if (worst == i) return;
        swap_c(&h[i], &h[worst]);
        i = worst;
    }
}

/// Top k of n by a heap of the k best so far: one comparison per candidate once the heap is
/// warm, so small k (top-k 40, top-p's first 64) costs little more than reading the array.
static void select_top_heap(cand *c, int64_t n, int64_t k) {
    for (int64_t i = k / 2 - 1; i >= 0; i--) sift_down(c, k, i);
    for (int64_t i = k; i < n; i++) {
        if (before(c[i], c[0])) {
            swap_c(&c[i], &c[0]);
            sift_down(c, k, 0);
        }
    }
}

/// Reorders so that c[0..k) are the k first in order (unsorted among themselves).
static void select_top(cand *c, int64_t n, int64_t k) {
    if (k > 0 && k < n && k <= 4096 && k <= n / 8) {
        select_top_heap(c, n, k);
        return;
    }
    while (n > 16 && k > 0 && k < n) {
        int64_t p = partition(c, n);
        if (p == k || p + 1 == k) return;
        if (p > k) {
            n = p;
        } else {
            c += p + 1;
            k -= p + 1;
            n -= p + 1;
        }
    }
    if (k > 0 && k < n) insertion_sort(c, n);
}

static void sort_cands(cand *c, int64_t n) {
    // Quicksort, recursing into the smaller side so the stack stays O(log n).
    while (n > 16) {
        int64_t p = partition(c, n);
        if (p < n - p - 1) {
            sort_cands(c, p);
            c += p + 1;
            n -= p + 1;
        } else {
            sort_cands(c + p + 1, n - p - 1);
            n = p;
        }
    }
    insertion_sort(c, n);
}

// Buckets of the top-p fallback: enough that the boundary bucket is small for any real vocabulary.
#define TOP_P_BUCKETS 1024

/// Keeps the smallest prefix (in candidate order) of mass >= top_p at temperature 1; returns its
/// size. Peaked distributions are settled by sorting the best 64 candidates. Otherwise candidates
/// are bucketed by logit (monotone, so bucket order is candidate order), whole buckets are kept
/// until the one that crosses the target, and only that bucket is sorted.
static int64_t top_p_filter(cand *c, int64_t nc, float maxv, float top_p, float *tmp) {
    double z = 0;
    float minv = maxv;
    for (int64_t i = 0; i < nc; i++) tmp[i] = c[i].v - maxv;
    loom_exp_inplace(tmp, nc);
    for (int64_t i = 0; i < nc; i++) {
        c[i].w = tmp[i];
        z += tmp[i];
        if (c[i].v < minv) minv = c[i].v;
    }
    double target = (double)top_p * z;
    int64_t m = nc < 64 ? nc : 64;
    if (m < nc) select_top(c, nc, m);
    sort_cands(c, m);
    double cum = 0;
    for (int64_t i = 0; i < m; i++) {
        cum += c[i].w;
        if (cum >= target) return i + 1;
    }
    if (m == nc) return nc;  // rounding left the target just out of reach: keep everything

    double mass[TOP_P_BUCKETS];
    int64_t count[TOP_P_BUCKETS];
    for (int b = 0; b < TOP_P_BUCKETS; b++) { mass[b] = 0; count[b] = 0; }
    double span = (double)maxv - (double)minv;
    double scale = span > 0 ? (TOP_P_BUCKETS - 1) / span : 0;
#define BUCKET_OF(v) ((int)(((double)maxv - (double)(v)) * scale))
    for (int64_t i = 0; i < nc; i++) {
        int b = BUCKET_OF(c[i].v);
        mass[b] += c[i].w;
        count[b]++;
    }
    cum = 0;
    int boundary = TOP_P_BUCKETS - 1;
    for (int b = 0; b < TOP_P_BUCKETS; b++) {
        if (cum + mass[b] >= target) { boundary = b; break; }
        cum += mass[b];
    }
    // Stable-enough partition: buckets before the boundary first, then the boundary bucket.
    int64_t front = 0;
    for (int64_t i = 0; i < nc; i++)
        if (BUCKET_OF(c[i].v) < boundary) swap_c(&c[i], &c[front++]);
    int64_t end = front;
    for (int64_t i = front; i < nc; i++)
        if (BUCKET_OF(c[i].v) == boundary) swap_c(&c[i], &c[end++]);
#undef BUCKET_OF
    sort_cands(c + front, end - front);
    for (int64_t i = front; i < end; i++) {
        cum += c[i].w;
        if (cum >= target) return i + 1;
    }
    return end;
}

// MARK: - Chain

static const float *penalised(loom_sampler *s, const float *logits) {
    const loom_sampler_params *p = &s->p;
    int32_t last_n = p->penalty_last_n < s->len ? p->penalty_last_n : s->len;
    if (last_n == 0) return logits;
    if (p->repeat_penalty == 1.0f && p->presence_penalty == 0.0f && p->frequency_penalty == 0.0f) return logits;
    memcpy(s->work, logits, (size_t)s->n_vocab * sizeof *logits);
    if (++s->call == 0) {
        memset(s->stamp, 0, (size_t)s->n_vocab * sizeof *s->stamp);
        s->call = 1;
    }
    // Counts cover the whole ring; when the configured window is shorter than the ring, count
    // within the last `last_n` entries instead (rare: only after set_params shrank it).
    int exact = last_n == s->len;
    for (int32_t i = s->len - last_n; i < s->len; i++) {
        int32_t t = s->window[(s->head + i) % s->capacity];
        if (s->stamp[t] == s->call) continue;
        s->stamp[t] = s->call;
        int32_t count = 0;
        if (exact) {
            count = s->counts[t];
        } else {
            for (int32_t j = s->len - last_n; j < s->len; j++) count += s->window[(s->head + j) % s->capacity] == t;
        }
        float v = s->work[t];
        v = v <= 0.0f ? v * p->repeat_penalty : v / p->repeat_penalty;
        v -= (float)count * p->frequency_penalty + (count > 0 ? p->presence_penalty : 0.0f);
        s->work[t] = v;
    }
    return s->work;
}

int32_t loom_sampler_sample(loom_sampler *s, const float *logits, const uint64_t *mask) {
    if (!s || !logits) return LOOM_SAMPLE_INVALID;
    const loom_sampler_params *p = &s->p;
    const float *x = penalised(s, logits);
    const int64_t n = s->n_vocab;

    if (!(p->temperature > 0.0f)) {
        int64_t i = loom_argmax_masked(x, n, mask);
        return i < 0 ? LOOM_SAMPLE_NO_TOKEN : (int32_t)i;
    }

    // Candidates: allowed tokens with a logit above -inf (NaN never passes the comparison).
    cand *c = s->cands;
    int64_t nc = 0;
    float maxv = -INFINITY;
    if (mask) {
        int64_t words = (n + 63) / 64;
        for (int64_t w = 0; w < words; w++) {
            uint64_t bits = mask[w];
            if (w == words - 1 && (n & 63)) bits &= (1ull << (n & 63)) - 1;
            while (bits) {
                int64_t i = w * 64 + __builtin_ctzll(bits);
                bits &= bits - 1;
                float v = x[i];
                if (v > -INFINITY) {
                    c[nc++] = (cand){v, (int32_t)i, 0.0f};
                    if (v > maxv) maxv = v;
                }
            }
        }
    } else {
        for (int64_t i = 0; i < n; i++) {
            float v = x[i];
            if (v > -INFINITY) {
                c[nc++] = (cand){v, (int32_t)i, 0.0f};
                if (v > maxv) maxv = v;
            }
        }
    }
    if (nc == 0) return LOOM_SAMPLE_NO_TOKEN;
    if (maxv == INFINITY) {
        // Degenerate logits: all mass on the +inf entries; take the lowest id deterministically.
        int32_t best = -1;
        for (int64_t i = 0; i < nc; i++)
            if (c[i].v == INFINITY && (best < 0 || c[i].id < best)) best = c[i].id;
        return best;
    }

    if (p->top_k > 0 && p->top_k < nc) {
        select_top(c, nc, p->top_k);
        nc = p->top_k;
    }

    int weighted = p->top_p < 1.0f && nc > 1;
    // `work` is free once candidates hold copies of the logits.
    if (weighted) nc = top_p_filter(c, nc, maxv, p->top_p, s->work);
    if (p->min_p > 0.0f && nc > 1) {
        // p_i >= min_p * p_max  <=>  v_i - v_max >= log(min_p), at temperature 1.
        double floor_v = (double)maxv + log((double)p->min_p);
        int64_t k = 0;
        for (int64_t i = 0; i < nc; i++)
            if ((double)c[i].v >= floor_v) c[k++] = c[i];
        nc = k;
    }

    if (nc == 1) return c[0].id;
    // The logits are no longer needed (candidates hold copies): `work` takes the weights.
    float *wt = s->work;
    float inv_t = 1.0f / p->temperature;
    double z = 0;
    if (inv_t == 1.0f && weighted) {
        for (int64_t i = 0; i < nc; i++) z += wt[i] = c[i].w;
    } else {
        for (int64_t i = 0; i < nc; i++) wt[i] = (c[i].v - maxv) * inv_t;
        loom_exp_inplace(wt, nc);
        for (int64_t i = 0; i < nc; i++) z += wt[i];
    }
    double u = loom_rng_uniform(&s->rng) * z;
    double cum = 0;
    int64_t last = 0;
    for (int64_t i = 0; i < nc; i++) {
        if (wt[i] == 0.0f) continue;
        cum += wt[i];
        last = i;
        if (u < cum) return c[i].id;
    }
    // u rounded up to z itself: the last candidate with weight owns that sliver.
    return c[last].id;
}
