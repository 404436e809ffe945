// Rotary position embedding, both pairings. Angles come from double-precision powers and
// sin/cos (ggml builds θ by repeated float multiplication, which drifts by a few ulp per pair;
// the float64 references do not). A cos/sin table per batch amortises the trigonometry over
// every layer; rotation itself is a handful of FMAs per pair and runs scalar.
#include "loom_ops.h"

#include <math.h>

// Largest head dimension handled: pairs per head live in a stack array of this size.
#define LOOM_ROPE_MAX_PAIRS 1024

size_t loom_rope_cache_floats(int64_t n_tokens, const loom_rope_params *p) {
    return (size_t)(n_tokens > 0 ? n_tokens : 0) * (size_t)(p->n_dims > 0 ? p->n_dims : 0);
}

int loom_rope_cache_fill(float *cache, int64_t n_tokens, const int32_t *positions, const loom_rope_params *p) {
    int64_t half = p->n_dims / 2;
    if (half <= 0 || half > LOOM_ROPE_MAX_PAIRS || 2 * half != p->n_dims) return -1;
    double inv_freq[LOOM_ROPE_MAX_PAIRS];
    for (int64_t i = 0; i < half; i++) {
        double f = pow((double)p->freq_base, -2.0 * (double)i / (double)p->n_dims) * (double)p->freq_scale;
        if (p->freq_factors) f /= (double)p->freq_factors[i];
        inv_freq[i] = f;
    }
    for (int64_t t = 0; t < n_tokens; t++) {
        float *cs = cache + t * 2 * half;
        double pos = (double)positions[t];
        for (int64_t i = 0; i < half; i++) {
            double a = pos * inv_freq[i];
            cs[2 * i] = (float)cos(a);
            cs[2 * i + 1] = (float)sin(a);
        }
    }
    return 0;
}

int loom_rope_cached(float *x, int64_t n_tokens, int64_t n_heads, int64_t head_dim, int64_t token_stride,
                      const float *cache, const loom_rope_params *p) {
    int64_t half = p->n_dims / 2;
    if (half <= 0 || 2 * half != p->n_dims || 2 * half > head_dim) return -1;
    if (token_stride == 0) token_stride = n_heads * head_dim;
    for (int64_t t = 0; t < n_tokens; t++) {
        const float *cs = cache + t * 2 * half;
        for (int64_t h = 0; h < n_heads; h++) {
            float *v = x + t * token_stride + h * head_dim;
            if (p->layout == LOOM_ROPE_NEOX) {
                for (int64_t i = 0; i < half; i++) {
                    float c = cs[2 * i], s = cs[2 * i + 1];
                    float a = v[i], b = v[i + half];
                    v[i] = a * c - b * s;
                    v[i + half] = a * s + b * c;
                }
            } else {
                for (int64_t i = 0; i < half; i++) {
                    float c = cs[2 * i], s = cs[2 * i + 1];
                    float a = v[2 * i], b = v[2 * i + 1];
                    v[2 * i] = a * c - b * s;
                    v[2 * i + 1] = a * s + b * c;
                }
            }
        }
    }
    return 0;
}

int loom_rope(float *x, int64_t n_tokens, int64_t n_heads, int64_t head_dim, int64_t token_stride,
               const int32_t *positions, const loom_rope_params *p) {
    int64_t half = p->n_dims / 2;
    if (half <= 0 || half > LOOM_ROPE_MAX_PAIRS || 2 * half != p->n_dims || 2 * half > head_dim) return -1;
    // One token at a time through a stack table: no allocation, same numbers as the cached path.
    float cs[2 * LOOM_ROPE_MAX_PAIRS];
    for (int64_t t = 0; t < n_tokens; t++) {
        loom_rope_cache_fill(cs, 1, positions + t, p);
        float *xt = x + t * (token_stride ? token_stride : n_heads * head_dim);
        loom_rope_cached(xt, 1, n_heads, head_dim, token_stride, cs, p);
    }
    return 0;
}
