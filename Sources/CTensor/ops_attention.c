// Attention of query heads over a position-major KV cache (layout in loom_ops.h).
//
// Query heads that share a KV head (GQA) are processed together, so each K and V row is read
// once per group rather than once per query head: decode is bound by reading the cache. Scores
// live in the caller's scratch ([group][n_kv]); the softmax is loom_softmax (double sum); the
// weighted sum of V rows accumulates in F32 with FMA.
//
// A Q8_0 cache is read block by block: q·k sums q[i]·qs[i] over each 32-element block in F32 and
// adds the block's sum times its scale; the value accumulation adds (p·d)·qs[i]. Neither ever
// writes a dequantized row, so decode reads 34 bytes per 32 cached values and nothing else.
#include "loom_ops.h"
#include "ops_attention_geometry.h"
#include "loom_cpu.h"
#include "loom_half.h"
#include "quant_blocks.h"
#include "simd_math.h"

#include <string.h>

enum { KV_F32 = LOOM_TYPE_F32, KV_F16 = LOOM_TYPE_F16, KV_Q8_0 = LOOM_TYPE_Q8_0 };

// Scores for `ng` query heads against K rows [0, n_kv) of one KV head.
// Head a's scores go to scores[a * ld + j], so a paged cache can fill one row block by block.
typedef void (*scores_fn)(const float *q, int64_t ng, const void *k, int kv_type, int64_t kv_stride,
                          int64_t hd, int64_t n_kv, float scale, float *scores, int64_t ld, int64_t pf_bytes);
// out[a] += Σ_j p[a * ld + j] * V_j for `ng` heads, over `hd` elements of each value row from v:
// a head's whole slice, or one part of it when threads share a query's values. Head a's result
// is at out + a * out_ld.
typedef void (*accum_fn)(float *out, int64_t out_ld, int64_t ng, const void *v, int kv_type, int64_t kv_stride,
                         int64_t hd, int64_t n_kv, const float *p, int64_t ld, int64_t pf_bytes);

static inline float kv_at(const void *base, int kv_type, int64_t i) {
    return kv_type == KV_F16 ? loom_fp16_to_fp32(((const loom_fp16 *)base)[i]) : ((const float *)base)[i];
}

static void scores_scalar(const float *q, int64_t ng, const void *k, int kv_type, int64_t kv_stride,
                          int64_t hd, int64_t n_kv, float scale, float *scores, int64_t ld, int64_t pf_bytes) {
    (void)pf_bytes;  // reads a row at a time; the hardware prefetcher follows
    for (int64_t j = 0; j < n_kv; j++) {
        for (int64_t a = 0; a < ng; a++) {
            const float *qa = q + a * hd;
            float s = 0;
            for (int64_t i = 0; i < hd; i++) s += qa[i] * kv_at(k, kv_type, j * kv_stride + i);
            scores[a * ld + j] = s * scale;
        }
    }
}

static void accum_scalar(float *out, int64_t out_ld, int64_t ng, const void *v, int kv_type, int64_t kv_stride,
                         int64_t hd, int64_t n_kv, const float *p, int64_t ld, int64_t pf_bytes) {
    (void)pf_bytes;  // reads a row at a time; the hardware prefetcher follows
    for (int64_t j = 0; j < n_kv; j++) {
        for (int64_t a = 0; a < ng; a++) {
            float w = p[a * ld + j];
            if (w == 0.0f) continue;
            float *oa = out + a * out_ld;
            for (int64_t i = 0; i < hd; i++) oa[i] += w * kv_at(v, kv_type, j * kv_stride + i);
        }
    }
}

// Q8_0: kv_stride / 32 blocks per row; k and v point at the head's first block.
static void scores_q8_0_scalar(const float *q, int64_t ng, const void *k, int kv_type, int64_t kv_stride,
                               int64_t hd, int64_t n_kv, float scale, float *scores, int64_t ld, int64_t pf_bytes) {
    (void)pf_bytes;  // reads a row at a time; the hardware prefetcher follows
    (void)kv_type;
    const int64_t nb = hd / LOOM_QK8_0, row_blocks = kv_stride / LOOM_QK8_0;
    for (int64_t j = 0; j < n_kv; j++) {
        const loom_block_q8_0 *kb = (const loom_block_q8_0 *)k + j * row_blocks;
        for (int64_t a = 0; a < ng; a++) {
            const float *qa = q + a * hd;
            float s = 0;
            for (int64_t b = 0; b < nb; b++) {
                float bs = 0;
                for (int i = 0; i < LOOM_QK8_0; i++) bs += qa[b * LOOM_QK8_0 + i] * (float)kb[b].qs[i];
                s += bs * loom_fp16_to_fp32(kb[b].d);
            }
            scores[a * ld + j] = s * scale;
        }
    }
}

static void accum_q8_0_scalar(float *out, int64_t out_ld, int64_t ng, const void *v, int kv_type,
                              int64_t kv_stride, int64_t hd, int64_t n_kv, const float *p, int64_t ld,
                              int64_t pf_bytes) {
    (void)pf_bytes;  // reads a row at a time; the hardware prefetcher follows
    (void)kv_type;
    const int64_t nb = hd / LOOM_QK8_0, row_blocks = kv_stride / LOOM_QK8_0;
    for (int64_t j = 0; j < n_kv; j++) {
        const loom_block_q8_0 *vb = (const loom_block_q8_0 *)v + j * row_blocks;
        for (int64_t a = 0; a < ng; a++) {
            float w = p[a * ld + j];
            if (w == 0.0f) continue;
            float *oa = out + a * out_ld;
            for (int64_t b = 0; b < nb; b++) {
                const float wd = w * loom_fp16_to_fp32(vb[b].d);
                for (int i = 0; i < LOOM_QK8_0; i++) oa[b * LOOM_QK8_0 + i] += wd * (float)vb[b].qs[i];
            }
        }
    }
}

/// Brings `bytes` of a cached row from p (a head's slice, or the rest of the row) towards L1.
static inline void prefetch_head(const char *p, int64_t bytes) {
    for (int64_t off = 0; off < bytes; off += 64) __builtin_prefetch(p + off, 0, 3);
}

#if LOOM_X86
// Rows ahead of the one being read: a head's slice of a cached row is a few cache lines at a
// stride of the whole row, so each row is a separate miss that the hardware prefetcher sees
// too late; a decode step over several sequences reads megabytes of cache this way.
#define KV_PREFETCH_ROWS 4

// The F32/F16 kernels below are written once per element type (kv_type a compile-time constant
// after inlining), so their inner loops carry no type test. Their arithmetic is fixed per
// element, not per batch of rows: a score is one FMA chain over the head dimension in vector
// lanes, reduced by halving (lanes i + n/2, then + n/4, …, the order of _mm512_reduce_add_ps
// and loom_hsum256), then the scalar tail, then the scale; an output element accumulates its
// rows' weighted values in row order. So grouping rows four at a time, or heads and head
// chunks in registers, changes no bit of any result.

/// Bytes of one F32 or F16 element.
static inline int64_t kv_elem_bytes(int kv_type) { return kv_type == KV_F16 ? 2 : 4; }

/// The scalar tail of an accumulation: head elements [from, hd) of `ng` heads, rows in order.
static inline void accum_tail(float *out, int64_t out_ld, int64_t ng, const void *v, int kv_type, int64_t kv_stride,
                              int64_t hd, int64_t from, int64_t n_kv, const float *p, int64_t ld) {
    if (from >= hd) return;
    for (int64_t j = 0; j < n_kv; j++) {
        for (int64_t a = 0; a < ng; a++) {
            float w = p[a * ld + j];
            if (w == 0.0f) continue;
            float *oa = out + a * out_ld;
            for (int64_t i = from; i < hd; i++) oa[i] += w * kv_at(v, kv_type, j * kv_stride + i);
        }
    }
}

/// A tier's scores_fn and accum_fn: its typed kernels, with the element type a constant.
#define KV_TYPED_KERNELS(tier, ATTR)                                                                            \
    static ATTR void scores_##tier(const float *q, int64_t ng, const void *k, int kv_type, int64_t kv_stride,  \
                                   int64_t hd, int64_t n_kv, float scale, float *scores, int64_t ld,            \
                                   int64_t pf_bytes) {                                                          \
        if (kv_type == KV_F16) scores_##tier##_typed(q, ng, k, KV_F16, kv_stride, hd, n_kv, scale, scores, ld, pf_bytes); \
        else scores_##tier##_typed(q, ng, k, KV_F32, kv_stride, hd, n_kv, scale, scores, ld, pf_bytes);         \
    }                                                                                                           \
    static ATTR void accum_##tier(float *out, int64_t out_ld, int64_t ng, const void *v, int kv_type,          \
                                  int64_t kv_stride, int64_t hd, int64_t n_kv, const float *p, int64_t ld,      \
                                  int64_t pf_bytes) {                                                           \
        if (kv_type == KV_F16)                                                                                  \
            accum_##tier##_typed(out, out_ld, ng, v, KV_F16, kv_stride, hd, n_kv, p, ld, pf_bytes);             \
        else accum_##tier##_typed(out, out_ld, ng, v, KV_F32, kv_stride, hd, n_kv, p, ld, pf_bytes);            \
    }

static LOOM_AVX2 inline __m256 load8(const void *base, int kv_type, int64_t i) {
    if (kv_type == KV_F16) return _mm256_cvtph_ps(_mm_loadu_si128((const __m128i *)((const loom_fp16 *)base + i)));
    return _mm256_loadu_ps((const float *)base + i);
}

/// Lane sums of four vectors by halving, the tree of loom_hsum256: element r of the result is
/// the sum of v[r]'s lanes.
static LOOM_AVX2 inline __m128 hsum4_256(__m256 v0, __m256 v1, __m256 v2, __m256 v3) {
    // Level 1, lane i + lane i+4: [v0 | v1] and [v2 | v3] halves added.
    __m256 a = _mm256_add_ps(_mm256_permute2f128_ps(v0, v1, 0x20), _mm256_permute2f128_ps(v0, v1, 0x31));
    __m256 b = _mm256_add_ps(_mm256_permute2f128_ps(v2, v3, 0x20), _mm256_permute2f128_ps(v2, v3, 0x31));
    // Level 2, i + i+2: pairs (0,1) and (2,3) of each 4-lane group, gathered per source.
    __m256 c = _mm256_add_ps(_mm256_shuffle_ps(a, b, _MM_SHUFFLE(1, 0, 1, 0)), _mm256_shuffle_ps(a, b, _MM_SHUFFLE(3, 2, 3, 2)));
    // c = [v0:w0 w1, v2:w0 w1 | v1:w0 w1, v3:w0 w1]; level 3, w0 + w1.
    __m256 d = _mm256_add_ps(_mm256_shuffle_ps(c, c, _MM_SHUFFLE(2, 0, 2, 0)), _mm256_shuffle_ps(c, c, _MM_SHUFFLE(3, 1, 3, 1)));
    // d = [v0 v2 v0 v2 | v1 v3 v1 v3]
    __m128 lo = _mm256_castps256_ps128(d), hi = _mm256_extractf128_ps(d, 1);
    return _mm_unpacklo_ps(lo, hi);  // [v0 v1 v2 v3]
}

/// Finishes the scores of one head against rows j0 … j0+nr-1 from their vector sums (over head
/// elements [0, hdv)): the scalar tail of the head dimension, then the scale; without a tail,
/// four at once (the same products). Both x86 tiers' kernels end with it.
static LOOM_AVX2 inline void scores_finish(const float *qa, const void *k, const int kv_type, int64_t kv_stride,
                                           int64_t hd, int64_t hdv, int64_t j0, int64_t nr, float scale, __m128 sums,
                                           float *out) {
    if (nr == 4 && hdv == hd) {
        _mm_storeu_ps(out, _mm_mul_ps(sums, _mm_set1_ps(scale)));
        return;
    }
    float s4[4];
    _mm_storeu_ps(s4, sums);
    for (int64_t r = 0; r < nr; r++) {
        float s = s4[r];
        for (int64_t i = hdv; i < hd; i++) s += qa[i] * kv_at(k, kv_type, (j0 + r) * kv_stride + i);
        out[r] = s * scale;
    }
}

// A tier's vector sums of G heads' scores against four K rows (the body of scores_rows4_*):
// each K vector of LANES values is loaded, and from an F16 cache widened, once for all G heads,
// and each score is one FMA chain over the vectors [0, HDV) of the head dimension, then HSUM4.
#define SCORES_ROWS4(VEC, LOAD, LOADQ, FMA, ZERO, HSUM4, LANES, MAX_G, HDV)                          \
    do {                                                                                             \
        VEC acc[MAX_G][4];                                                                           \
        for (int a = 0; a < G; a++)                                                                  \
            for (int r = 0; r < 4; r++) acc[a][r] = ZERO();                                          \
        for (int64_t i = 0; i < HDV; i += LANES) {                                                   \
            VEC kv[4];                                                                               \
            for (int r = 0; r < 4; r++) kv[r] = LOAD(k0 + r * row_bytes, kv_type, i);               \
            for (int a = 0; a < G; a++) {                                                            \
                const VEC qv = LOADQ(q + a * hd + i);                                                \
                for (int r = 0; r < 4; r++) acc[a][r] = FMA(qv, kv[r], acc[a][r]);                   \
            }                                                                                        \
        }                                                                                            \
        for (int a = 0; a < G; a++) sums[a] = HSUM4(acc[a][0], acc[a][1], acc[a][2], acc[a][3]);     \
    } while (0)

/// The vector sums of G heads' scores (queries hd apart from q) against the four K rows from
/// k0 (row_bytes apart): each K vector is loaded, and from an F16 cache widened, once for all G
/// heads. G is 1 or 2: two heads' eight accumulators, four K vectors and a query fit the 16
/// registers, three heads spilled and ran slower than two and one.
static LOOM_AVX2 inline __attribute__((always_inline)) void scores_rows4_avx2(const int G, const float *q, const char *k0,
                                                                             const int kv_type, int64_t row_bytes,
                                                                             int64_t hd, int64_t hd8, __m128 sums[2]) {
    SCORES_ROWS4(__m256, load8, _mm256_loadu_ps, _mm256_fmadd_ps, _mm256_setzero_ps, hsum4_256, 8, 2, hd8);
}

static LOOM_AVX2 inline void scores_avx2_typed(const float *q, int64_t ng, const void *k, const int kv_type,
                                               int64_t kv_stride, int64_t hd, int64_t n_kv, float scale,
                                               float *scores, int64_t ld, int64_t pf_bytes) {
    const int64_t hd8 = hd & ~(int64_t)7, row_bytes = kv_elem_bytes(kv_type) * kv_stride;
    for (int64_t j0 = 0; j0 < n_kv; j0 += 4) {
        const int64_t nr = n_kv - j0 < 4 ? n_kv - j0 : 4;
        for (int64_t r = 0; r < nr; r++) {
            if (j0 + r + KV_PREFETCH_ROWS < n_kv)
                prefetch_head((const char *)k + (j0 + r + KV_PREFETCH_ROWS) * row_bytes, pf_bytes);
        }
        const char *k0 = (const char *)k + j0 * row_bytes;
        if (nr == 4) {
            // Heads in pairs: with an F16 cache, attention over SmolLM2's groups of three heads
            // (64 wide) took 0.91 of the time head by head took, over Gemma 3's four (256 wide) 0.75.
            for (int64_t a0 = 0; a0 < ng; a0 += 2) {
                const int g = ng - a0 >= 2 ? 2 : 1;
                __m128 sums[2];
                if (g == 2) scores_rows4_avx2(2, q + a0 * hd, k0, kv_type, row_bytes, hd, hd8, sums);
                else scores_rows4_avx2(1, q + a0 * hd, k0, kv_type, row_bytes, hd, hd8, sums);
                for (int a = 0; a < g; a++)
                    scores_finish(q + (a0 + a) * hd, k, kv_type, kv_stride, hd, hd8, j0, 4, scale, sums[a],
                                  scores + (a0 + a) * ld + j0);
            }
            continue;
        }
        // The last rows of a run, head by head.
        for (int64_t a = 0; a < ng; a++) {
            const float *qa = q + a * hd;
            __m256 acc[4] = {_mm256_setzero_ps(), _mm256_setzero_ps(), _mm256_setzero_ps(), _mm256_setzero_ps()};
            for (int64_t i = 0; i < hd8; i += 8) {
                const __m256 qv = _mm256_loadu_ps(qa + i);
                for (int64_t r = 0; r < nr; r++) acc[r] = _mm256_fmadd_ps(qv, load8(k0 + r * row_bytes, kv_type, i), acc[r]);
            }
            scores_finish(qa, k, kv_type, kv_stride, hd, hd8, j0, nr, scale, hsum4_256(acc[0], acc[1], acc[2], acc[3]),
                          scores + a * ld + j0);
        }
    }
}

// Output accumulators kept in registers across rows: G heads × W vectors of the head dimension,
// for heads a0 … a0+G-1 and head elements i0 … i0+LANES·W-1. The first chunk of a call reads
// the rows first, so it prefetches them ahead.
#define ACCUM_CHUNK(LOAD, VEC, FMA, STORE, SET1, LANES, G, W)                                              \
    do {                                                                                                 \
        const int first = a0 == 0 && i0 == 0;                                                            \
        VEC acc[G][W];                                                                                   \
        for (int a = 0; a < G; a++)                                                                      \
            for (int c = 0; c < W; c++) acc[a][c] = LOAD##_out(out + (a0 + a) * out_ld + i0 + c * LANES);\
        for (int64_t j = 0; j < n_kv; j++) {                                                             \
            const int64_t row = j * kv_stride + i0;                                                      \
            if (first && j + KV_PREFETCH_ROWS < n_kv)                                                    \
                prefetch_head((const char *)v + (j + KV_PREFETCH_ROWS) * row_bytes, pf_bytes);         \
            VEC vv[W];                                                                                   \
            for (int c = 0; c < W; c++) vv[c] = LOAD(v, kv_type, row + c * LANES);                       \
            for (int a = 0; a < G; a++) {                                                                \
                const float w = p[(a0 + a) * ld + j];                                                    \
                if (w == 0.0f) continue;                                                                 \
                const VEC vw = SET1(w);                                                                  \
                for (int c = 0; c < W; c++) acc[a][c] = FMA(vw, vv[c], acc[a][c]);                       \
            }                                                                                            \
        }                                                                                                \
        for (int a = 0; a < G; a++)                                                                      \
            for (int c = 0; c < W; c++) STORE(out + (a0 + a) * out_ld + i0 + c * LANES, acc[a][c]);      \
    } while (0)

static LOOM_AVX2 inline __m256 load8_out(const float *p) { return _mm256_loadu_ps(p); }

#define AVX2_CHUNK(G, W) \
    ACCUM_CHUNK(load8, __m256, _mm256_fmadd_ps, _mm256_storeu_ps, _mm256_set1_ps, 8, G, W)

static LOOM_AVX2 inline void accum_avx2_typed(float *out, int64_t out_ld, int64_t ng, const void *v, const int kv_type,
                                              int64_t kv_stride, int64_t hd, int64_t n_kv, const float *p, int64_t ld,
                                              int64_t pf_bytes) {
    const int64_t hd8 = hd & ~(int64_t)7;
    const int64_t row_bytes = kv_elem_bytes(kv_type) * kv_stride;
    for (int64_t j = 0; j < KV_PREFETCH_ROWS && j < n_kv; j++)
        prefetch_head((const char *)v + j * row_bytes, pf_bytes);
    // The head dimension in chunks of 4 vectors, heads in groups that fit the 16 registers: an
    // F32 row is read by the FMAs straight from memory, so three heads' 12 accumulators fit beside
    // the weight; an F16 row is widened into 4 registers first, leaving room for two heads' 8
    // (three spilled, and measured slower than 2 + 1).
    const int64_t heads = kv_type == KV_F16 ? 2 : 3;
    for (int64_t a0 = 0; a0 < ng; a0 += heads) {
        const int64_t g = ng - a0 < heads ? ng - a0 : heads;
        for (int64_t i0 = 0; i0 < hd8;) {
            if (hd8 - i0 >= 32) {
                switch (g) {
                case 1: AVX2_CHUNK(1, 4); break;
                case 2: AVX2_CHUNK(2, 4); break;
                default: AVX2_CHUNK(3, 4); break;
                }
                i0 += 32;
            } else {
                switch (g) {
                case 1: AVX2_CHUNK(1, 1); break;
                case 2: AVX2_CHUNK(2, 1); break;
                default: AVX2_CHUNK(3, 1); break;
                }
                i0 += 8;
            }
        }
    }
    accum_tail(out, out_ld, ng, v, kv_type, kv_stride, hd, hd8, n_kv, p, ld);
}

KV_TYPED_KERNELS(avx2, LOOM_AVX2)

static LOOM_AVX2 inline __m256 load8_q8(const int8_t *qs) {
    return _mm256_cvtepi32_ps(_mm256_cvtepi8_epi32(_mm_loadl_epi64((const __m128i *)qs)));
}

// The Q8_0 kernels share each row's work among the heads of its KV group: a block of K is
// widened to floats once for all of them (its scale converted once), and the values' sums stay
// in registers across a run's rows. A score is still one chain per block (q·k over the block's
// four vectors, then acc += d·that) and an output element still adds its rows' w·d·v in row
// order, so the bits are those of one head and one row at a time.

/// Widens block `b`'s 32 values to four float vectors and returns its scale, broadcast.
static LOOM_AVX2 inline __m256 q8_0_block(const loom_block_q8_0 *b, __m256 v[4]) {
    for (int i = 0; i < 4; i++) v[i] = load8_q8(b->qs + 8 * i);
    return _mm256_set1_ps(loom_fp16_to_fp32(b->d));
}

/// Scores of G heads (queries hd apart from q) against one row's nb blocks: G accumulators, a
/// block's four vectors, its scale and a partial sum fit the 16 registers (G up to 4).
static LOOM_AVX2 inline __attribute__((always_inline)) void q8_0_row_scores(const int G, const float *q, int64_t hd,
                                                                           const loom_block_q8_0 *kb, int64_t nb,
                                                                           float scale, float *scores, int64_t ld) {
    __m256 acc[4];
    for (int a = 0; a < G; a++) acc[a] = _mm256_setzero_ps();
    for (int64_t b = 0; b < nb; b++) {
        __m256 kv[4];
        const __m256 d = q8_0_block(&kb[b], kv);
        for (int a = 0; a < G; a++) {
            const float *qb = q + a * hd + b * LOOM_QK8_0;
            __m256 bs = _mm256_mul_ps(_mm256_loadu_ps(qb), kv[0]);
            bs = _mm256_fmadd_ps(_mm256_loadu_ps(qb + 8), kv[1], bs);
            bs = _mm256_fmadd_ps(_mm256_loadu_ps(qb + 16), kv[2], bs);
            bs = _mm256_fmadd_ps(_mm256_loadu_ps(qb + 24), kv[3], bs);
            acc[a] = _mm256_fmadd_ps(d, bs, acc[a]);
        }
    }
    for (int a = 0; a < G; a++) scores[a * ld] = loom_hsum256(acc[a]) * scale;
}

static LOOM_AVX2 void scores_q8_0_avx2(const float *q, int64_t ng, const void *k, int kv_type, int64_t kv_stride,
                                       int64_t hd, int64_t n_kv, float scale, float *scores, int64_t ld, int64_t pf_bytes) {
    (void)pf_bytes;  // reads a row at a time; the hardware prefetcher follows
    (void)kv_type;
    const int64_t nb = hd / LOOM_QK8_0, row_blocks = kv_stride / LOOM_QK8_0;
    for (int64_t j = 0; j < n_kv; j++) {
        const loom_block_q8_0 *kb = (const loom_block_q8_0 *)k + j * row_blocks;
        for (int64_t a0 = 0; a0 < ng; a0 += 4) {
            // Heads four at a time (then the rest): every group size gets a loop with its
            // accumulators in registers.
            const float *qa = q + a0 * hd;
            float *sa = scores + a0 * ld + j;
            switch (ng - a0 < 4 ? ng - a0 : 4) {
            case 1: q8_0_row_scores(1, qa, hd, kb, nb, scale, sa, ld); break;
            case 2: q8_0_row_scores(2, qa, hd, kb, nb, scale, sa, ld); break;
            case 3: q8_0_row_scores(3, qa, hd, kb, nb, scale, sa, ld); break;
            default: q8_0_row_scores(4, qa, hd, kb, nb, scale, sa, ld); break;
            }
        }
    }
}

/// Block b's sums of G heads over a run's rows, kept in registers (G up to 2: eight sums, the
/// block's four vectors and a weight fit the 16 registers).
static LOOM_AVX2 inline __attribute__((always_inline)) void q8_0_block_values(const int G, float *out, int64_t out_ld,
                                                                             const loom_block_q8_0 *vb, int64_t row_blocks,
                                                                             int64_t n_kv, const float *p, int64_t ld) {
    __m256 acc[2][4];
    for (int a = 0; a < G; a++)
        for (int i = 0; i < 4; i++) acc[a][i] = _mm256_loadu_ps(out + a * out_ld + 8 * i);
    for (int64_t j = 0; j < n_kv; j++) {
        const loom_block_q8_0 *x = vb + j * row_blocks;
        __m256 vv[4];
        for (int i = 0; i < 4; i++) vv[i] = load8_q8(x->qs + 8 * i);
        const float d = loom_fp16_to_fp32(x->d);
        for (int a = 0; a < G; a++) {
            const float w = p[a * ld + j];
            if (w == 0.0f) continue;
            const __m256 wd = _mm256_set1_ps(w * d);
            for (int i = 0; i < 4; i++) acc[a][i] = _mm256_fmadd_ps(wd, vv[i], acc[a][i]);
        }
    }
    for (int a = 0; a < G; a++)
        for (int i = 0; i < 4; i++) _mm256_storeu_ps(out + a * out_ld + 8 * i, acc[a][i]);
}

static LOOM_AVX2 void accum_q8_0_avx2(float *out, int64_t out_ld, int64_t ng, const void *v, int kv_type,
                                      int64_t kv_stride, int64_t hd, int64_t n_kv, const float *p, int64_t ld,
                                      int64_t pf_bytes) {
    (void)pf_bytes;  // reads a row at a time; the hardware prefetcher follows
    (void)kv_type;
    const int64_t nb = hd / LOOM_QK8_0, row_blocks = kv_stride / LOOM_QK8_0;
    for (int64_t b = 0; b < nb; b++) {
        for (int64_t a0 = 0; a0 < ng; a0 += 2) {
            float *o = out + a0 * out_ld + b * LOOM_QK8_0;
            const loom_block_q8_0 *vb = (const loom_block_q8_0 *)v + b;
            if (ng - a0 >= 2) q8_0_block_values(2, o, out_ld, vb, row_blocks, n_kv, p + a0 * ld, ld);
            else q8_0_block_values(1, o, out_ld, vb, row_blocks, n_kv, p + a0 * ld, ld);
        }
    }
}

static LOOM_AVX512 inline __m512 load16(const void *base, int kv_type, int64_t i) {
    if (kv_type == KV_F16) return _mm512_cvtph_ps(_mm256_loadu_si256((const __m256i *)((const loom_fp16 *)base + i)));
    return _mm512_loadu_ps((const float *)base + i);
}

/// Lane sums of four vectors by halving, the tree of _mm512_reduce_add_ps: element r of the
/// result is the sum of v[r]'s lanes.
static LOOM_AVX512 inline __m128 hsum4_512(__m512 v0, __m512 v1, __m512 v2, __m512 v3) {
    // Level 1, lane i + lane i+8: [v0.lo + v0.hi | v1.lo + v1.hi] (256-bit halves).
    __m512 a = _mm512_add_ps(_mm512_shuffle_f32x4(v0, v1, 0x44), _mm512_shuffle_f32x4(v0, v1, 0xEE));
    __m512 b = _mm512_add_ps(_mm512_shuffle_f32x4(v2, v3, 0x44), _mm512_shuffle_f32x4(v2, v3, 0xEE));
    // Level 2, i + i+4: 128-bit quarters 0 + 1 of each source: [v0 | v1 | v2 | v3], 4 lanes each.
    __m512 c = _mm512_add_ps(_mm512_shuffle_f32x4(a, b, 0x88), _mm512_shuffle_f32x4(a, b, 0xDD));
    // Levels 3 and 4 inside each quarter: i + i+2, then i + i+1.
    c = _mm512_add_ps(c, _mm512_shuffle_ps(c, c, _MM_SHUFFLE(1, 0, 3, 2)));
    c = _mm512_add_ps(c, _mm512_shuffle_ps(c, c, _MM_SHUFFLE(2, 3, 0, 1)));
    return _mm512_castps512_ps128(_mm512_permutexvar_ps(_mm512_setr_epi32(0, 4, 8, 12, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0), c));
}

/// The vector sums of G heads' scores (queries hd apart from q) against the four K rows from
/// k0 (row_bytes apart): each K vector is loaded, and from an F16 cache widened, once for all G
/// heads. G is 1 to 4: sixteen accumulators, four K vectors and a query within the 32 registers.
static LOOM_AVX512 inline __attribute__((always_inline)) void scores_rows4_avx512(const int G, const float *q,
                                                                                 const char *k0, const int kv_type,
                                                                                 int64_t row_bytes, int64_t hd,
                                                                                 int64_t hd16, __m128 sums[4]) {
    SCORES_ROWS4(__m512, load16, _mm512_loadu_ps, _mm512_fmadd_ps, _mm512_setzero_ps, hsum4_512, 16, 4, hd16);
}

static LOOM_AVX512 inline void scores_avx512_typed(const float *q, int64_t ng, const void *k, const int kv_type,
                                                   int64_t kv_stride, int64_t hd, int64_t n_kv, float scale,
                                                   float *scores, int64_t ld, int64_t pf_bytes) {
    const int64_t hd16 = hd & ~(int64_t)15, row_bytes = kv_elem_bytes(kv_type) * kv_stride;
    for (int64_t j0 = 0; j0 < n_kv; j0 += 4) {
        const int64_t nr = n_kv - j0 < 4 ? n_kv - j0 : 4;
        for (int64_t r = 0; r < nr; r++) {
            if (j0 + r + KV_PREFETCH_ROWS < n_kv)
                prefetch_head((const char *)k + (j0 + r + KV_PREFETCH_ROWS) * row_bytes, pf_bytes);
        }
        const char *k0 = (const char *)k + j0 * row_bytes;
        if (nr == 4) {
            // Heads four at a time, each K row widened once for them (over SmolLM2's groups of
            // three heads in L2, widening every row once per head took about 5% longer).
            for (int64_t a0 = 0; a0 < ng; a0 += 4) {
                const int g = ng - a0 < 4 ? (int)(ng - a0) : 4;
                __m128 sums[4];
                switch (g) {
                case 1: scores_rows4_avx512(1, q + a0 * hd, k0, kv_type, row_bytes, hd, hd16, sums); break;
                case 2: scores_rows4_avx512(2, q + a0 * hd, k0, kv_type, row_bytes, hd, hd16, sums); break;
                case 3: scores_rows4_avx512(3, q + a0 * hd, k0, kv_type, row_bytes, hd, hd16, sums); break;
                default: scores_rows4_avx512(4, q + a0 * hd, k0, kv_type, row_bytes, hd, hd16, sums); break;
                }
                for (int a = 0; a < g; a++)
                    scores_finish(q + (a0 + a) * hd, k, kv_type, kv_stride, hd, hd16, j0, 4, scale, sums[a],
                                  scores + (a0 + a) * ld + j0);
            }
            continue;
        }
        // The last rows of a run, head by head.
        for (int64_t a = 0; a < ng; a++) {
            const float *qa = q + a * hd;
            __m512 acc[4] = {_mm512_setzero_ps(), _mm512_setzero_ps(), _mm512_setzero_ps(), _mm512_setzero_ps()};
            for (int64_t i = 0; i < hd16; i += 16) {
                const __m512 qv = _mm512_loadu_ps(qa + i);
                for (int64_t r = 0; r < nr; r++) acc[r] = _mm512_fmadd_ps(qv, load16(k0 + r * row_bytes, kv_type, i), acc[r]);
            }
            scores_finish(qa, k, kv_type, kv_stride, hd, hd16, j0, nr, scale, hsum4_512(acc[0], acc[1], acc[2], acc[3]),
                          scores + a * ld + j0);
        }
    }
}

static LOOM_AVX512 inline __m512 load16_out(const float *p) { return _mm512_loadu_ps(p); }

#define AVX512_CHUNK(G, W) \
    ACCUM_CHUNK(load16, __m512, _mm512_fmadd_ps, _mm512_storeu_ps, _mm512_set1_ps, 16, G, W)

static LOOM_AVX512 inline void accum_avx512_typed(float *out, int64_t out_ld, int64_t ng, const void *v,
                                                  const int kv_type, int64_t kv_stride, int64_t hd, int64_t n_kv,
                                                  const float *p, int64_t ld, int64_t pf_bytes) {
    const int64_t hd16 = hd & ~(int64_t)15;
    const int64_t row_bytes = kv_elem_bytes(kv_type) * kv_stride;
    for (int64_t j = 0; j < KV_PREFETCH_ROWS && j < n_kv; j++)
        prefetch_head((const char *)v + j * row_bytes, pf_bytes);
    // Heads in groups of up to 6 and the head dimension in chunks of 4 vectors: at most 24
    // accumulators, 4 loaded values and a weight, within the 32 registers.
    for (int64_t a0 = 0; a0 < ng; a0 += 6) {
        const int64_t g = ng - a0 < 6 ? ng - a0 : 6;
        for (int64_t i0 = 0; i0 < hd16;) {
            if (hd16 - i0 >= 64) {
                switch (g) {
                case 1: AVX512_CHUNK(1, 4); break;
                case 2: AVX512_CHUNK(2, 4); break;
                case 3: AVX512_CHUNK(3, 4); break;
                case 4: AVX512_CHUNK(4, 4); break;
                case 5: AVX512_CHUNK(5, 4); break;
                default: AVX512_CHUNK(6, 4); break;
                }
                i0 += 64;
            } else {
                switch (g) {
                case 1: AVX512_CHUNK(1, 1); break;
                case 2: AVX512_CHUNK(2, 1); break;
                case 3: AVX512_CHUNK(3, 1); break;
                case 4: AVX512_CHUNK(4, 1); break;
                case 5: AVX512_CHUNK(5, 1); break;
                default: AVX512_CHUNK(6, 1); break;
                }
                i0 += 16;
            }
        }
    }
    accum_tail(out, out_ld, ng, v, kv_type, kv_stride, hd, hd16, n_kv, p, ld);
}

KV_TYPED_KERNELS(avx512, LOOM_AVX512)
#endif

size_t loom_attention_scratch_floats(const loom_attention_desc *d, int64_t n_kv) {
    if (!loom_attention_valid(d) || n_kv <= 0) return 0;
    // Every query head's row: whole KV groups are walked together (loom_attention).
    return (size_t)d->n_head * (size_t)n_kv;
}

/// The active tier's kernels for a cache of `kv_type`.
static void attention_kernels(int kv_type, scores_fn *scores, accum_fn *accum) {
    *scores = scores_scalar;
    *accum = accum_scalar;
#if LOOM_X86
    switch (loom_isa_active()) {
    case LOOM_ISA_AVX512: *scores = scores_avx512; *accum = accum_avx512; break;
    case LOOM_ISA_AVX2: *scores = scores_avx2; *accum = accum_avx2; break;
    default: break;
    }
#endif
    if (kv_type == KV_Q8_0) {
        *scores = scores_q8_0_scalar;
        *accum = accum_q8_0_scalar;
#if LOOM_X86
        // The AVX-512 tier reads Q8_0 with the AVX2 kernels: no 512-bit form of them has been
        // measured against them, and no SIMD tier ships unmeasured (as in quant_dispatch.c).
        if (loom_isa_active() >= LOOM_ISA_AVX2) {
            *scores = scores_q8_0_avx2;
            *accum = accum_q8_0_avx2;
        }
#endif
    }
}

// A paged cache is walked block by block in position order, so every score and every
// accumulation step is the one the contiguous layout performs: the result is bit-identical.
// The contiguous layout is one run.

/// Rows of one block run from position j: up to the end of j's block (or, contiguous, to `end`).
static inline int64_t run_rows(const loom_attention_desc *d, int64_t j, int64_t end) {
    if (!d->block_table) return end - j;
    const int64_t left = d->block_size - j % d->block_size;
    return left < end - j ? left : end - j;
}

// A paged cache's blocks lie anywhere in the pool. A decode step over several sequences reads
// each one's rows from memory (the step's weights have evicted them), and at every block
// boundary the hardware prefetcher loses the stream while the kernels' few rows of prefetch
// land too late to hide the miss. So the block walks ask for the rows KV_LOOKAHEAD positions
// ahead, across blocks: with 8 sequences of 300 positions SmolLM2's attention took 0.90 of
// the time in process, and 8 streams' inter-token p50 fell 4-11% end to end. A contiguous
// cache is one stream the hardware prefetcher follows, and is left to it.
#define KV_LOOKAHEAD 32

/// A walk over the K or V rows of positions [j, end) in position order, one run of contiguous
/// rows (a block's, or the whole span of a contiguous cache) at a time, asking for bytes
/// [offset, offset + pf) of the rows KV_LOOKAHEAD positions ahead of each run. Every block walk
/// of the kernels below is one of these, so the lookahead is in one place.
typedef struct {
    const loom_attention_desc *d;
    const char *base;
    size_t row_bytes, offset;
    int64_t pf, j, end;
} kv_walk;

/// Asks for the walk's bytes of the rows of positions [from, to) (clipped to its end) of a
/// paged cache; nothing for a contiguous one.
static void kv_walk_ahead(const kv_walk *w, int64_t from, int64_t to) {
    if (!w->d->block_table) return;
    if (to > w->end) to = w->end;
    for (int64_t j = from; j < to; j++)
        prefetch_head(w->base + (size_t)loom_attention_row(w->d, j) * w->row_bytes + w->offset, w->pf);
}

static inline kv_walk kv_walk_start(const loom_attention_desc *d, const void *base, size_t offset, int64_t pf,
                                    int64_t from, int64_t end) {
    const kv_walk w = {d, (const char *)base, (size_t)loom_kv_row_bytes(d->kv_type, d->kv_stride), offset, pf, from,
                       end};
    kv_walk_ahead(&w, from, from + KV_LOOKAHEAD);
    return w;
}

/// The next run's first row, its first position in *j and its row count in *cnt; NULL when the
/// walk is done.
static inline const char *kv_walk_next(kv_walk *w, int64_t *j, int64_t *cnt) {
    if (w->j >= w->end) return NULL;
    *j = w->j;
    *cnt = run_rows(w->d, w->j, w->end);
    kv_walk_ahead(w, w->j + KV_LOOKAHEAD, w->j + *cnt + KV_LOOKAHEAD);
    w->j += *cnt;
    return w->base + (size_t)loom_attention_row(w->d, *j) * w->row_bytes;
}

/// Scores of query heads [h, h + ng) (one KV group's), and of the same heads of the `groups` - 1
/// groups after it, against positions [lo + p0, lo + p1): group i's head a's score of position j
/// at s[i * group_ld + a * m + j - lo]. Block-major: each block's rows serve every group while
/// they are in cache. `pf`: bytes of each row ahead to prefetch from the first group's slice
/// (the later groups' calls prefetch their own slice).
static void scores_span(const loom_attention_desc *d, scores_fn scores, const float *q, int64_t h, int64_t ng,
                        int64_t groups, int64_t group_ld, int64_t lo, int64_t m, int64_t p0, int64_t p1, float *s,
                        int64_t pf) {
    const int64_t hd = d->head_dim, g = d->n_head / d->n_kv_head, kvh = h / g;
    const int64_t slice = loom_kv_row_bytes(d->kv_type, hd);
    kv_walk walk = kv_walk_start(d, d->k, (size_t)loom_kv_row_bytes(d->kv_type, kvh * hd), pf, lo + p0, lo + p1);
    int64_t j, cnt;
    for (const char *row; (row = kv_walk_next(&walk, &j, &cnt));) {
        for (int64_t i = 0; i < groups; i++) {
            const void *k = row + loom_kv_row_bytes(d->kv_type, (kvh + i) * hd);
            scores(q + (h + i * g) * hd, ng, k, d->kv_type, d->kv_stride, hd, cnt, d->scale, s + i * group_ld + (j - lo), m,
                   i == 0 ? pf : slice);
        }
    }
}

/// Results of query heads [h, h + ng) (one KV group's), and of the same heads of the `groups` - 1
/// groups after it: group i's head a's result, at out + (h + i * g + a) * head_dim, is
/// Σ_j p[i * group_ld + a * m + j - lo] · V_j over positions [lo, lo + m), rows in order (the
/// results are zeroed first). One walk for all the groups, block-major as the scores: each
/// block's rows serve every group while they are in cache. `pf`: bytes of each row ahead to
/// prefetch from the first group's slice (the later groups' calls prefetch their own slice).
static void values_span(const loom_attention_desc *d, accum_fn accum, const float *p, int64_t group_ld, float *out,
                        int64_t h, int64_t ng, int64_t groups, int64_t lo, int64_t m, int64_t pf) {
    const int64_t hd = d->head_dim, g = d->n_head / d->n_kv_head, kvh = h / g;
    const size_t first = (size_t)loom_kv_row_bytes(d->kv_type, kvh * hd), slice = (size_t)loom_kv_row_bytes(d->kv_type, hd);
    for (int64_t i = 0; i < groups; i++) memset(out + (h + i * g) * hd, 0, (size_t)(ng * hd) * sizeof(float));
    kv_walk walk = kv_walk_start(d, d->v, first, pf, lo, lo + m);
    int64_t j, cnt;
    for (const char *row; (row = kv_walk_next(&walk, &j, &cnt));) {
        for (int64_t i = 0; i < groups; i++)
            accum(out + (h + i * g) * hd, hd, ng, row + first + i * slice, d->kv_type, d->kv_stride, hd, cnt,
                  p + i * group_ld + (j - lo), m, i == 0 ? pf : (int64_t)slice);
    }
}

int loom_attention(const loom_attention_desc *d, const float *q, float *out, int64_t n_kv, int64_t h_begin,
                   int64_t h_end, float *scratch) {
    if (!loom_attention_valid(d) || n_kv < 0 || h_begin < 0 || h_end > d->n_head || h_begin > h_end) return -1;
    const int64_t hd = d->head_dim, g = d->n_head / d->n_kv_head;
    scores_fn scores;
    accum_fn accum;
    attention_kernels(d->kv_type, &scores, &accum);
    // A sliding window drops the keys before `lo`; the query sits at position n_kv - 1.
    const int64_t lo = loom_attention_first_seen(d, n_kv);
    const int64_t m = n_kv - lo;
    const int64_t row_bytes = loom_kv_row_bytes(d->kv_type, d->kv_stride);
    for (int64_t h = h_begin; h < h_end;) {
        const int64_t kvh = h / g;
        // Whole groups side by side take one walk of the K rows and one of the V rows for all of
        // them, each row prefetched once, whole (a walk per group reads a slice of every row and
        // asks for each line again); a range that starts or ends inside a group takes that
        // group's heads alone.
        const int64_t whole = h % g == 0 ? (h_end - h) / g : 0;
        const int64_t groups = whole > 0 ? whole : 1;
        const int64_t ng = whole > 0 ? g : ((kvh + 1) * g < h_end ? (kvh + 1) * g : h_end) - h;
        if (m > 0) {
            // The first group of the call prefetches the rest of each row, the slices of the
            // groups after it too: one stream through whole rows.
            const int64_t pf = h == h_begin ? row_bytes - loom_kv_row_bytes(d->kv_type, kvh * hd)
                                            : loom_kv_row_bytes(d->kv_type, groups * hd);
            scores_span(d, scores, q, h, ng, groups, g * m, lo, m, 0, m, scratch, pf);
            for (int64_t i = 0; i < groups; i++)
                for (int64_t a = 0; a < ng; a++) loom_softmax(scratch + (i * g + a) * m, m);
            values_span(d, accum, scratch, g * m, out, h, ng, groups, lo, m, pf);
        } else {
            memset(out + h * hd, 0, (size_t)(((groups - 1) * g + ng) * hd) * sizeof(float));
        }
        h += (groups - 1) * g + ng;
    }
    return 0;
}

int64_t loom_attention_value_parts(const loom_attention_desc *d) {
    if (!loom_attention_valid(d)) return 0;
    return d->head_dim >= 2 * LOOM_ATTENTION_VALUE_PART ? d->head_dim / LOOM_ATTENTION_VALUE_PART : 1;
}

int loom_attention_scores_part(const loom_attention_desc *d, const float *q, int64_t n_kv, int64_t kvh0, int64_t kvh1,
                               int64_t p0, int64_t p1, float *scores, int64_t group_ld) {
    if (!loom_attention_valid(d) || n_kv < 0 || kvh0 < 0 || kvh1 > d->n_kv_head || kvh0 > kvh1) return -1;
    const int64_t lo = loom_attention_first_seen(d, n_kv), m = n_kv - lo, g = d->n_head / d->n_kv_head;
    if (p0 < 0 || p1 > m || p0 > p1 || (d->n_kv_head > 1 && group_ld < g * m)) return -1;
    scores_fn scores_kernel;
    accum_fn accum;
    attention_kernels(d->kv_type, &scores_kernel, &accum);
    // One walk for all the groups: a thread reads its span once, whole rows at a time, rather
    // than once per group a third at a time.
    scores_span(d, scores_kernel, q, kvh0 * g, g, kvh1 - kvh0, group_ld, lo, m, p0, p1, scores + kvh0 * group_ld,
                loom_kv_row_bytes(d->kv_type, (kvh1 - kvh0) * d->head_dim));
    return 0;
}

/// First head element of value part i (parts per KV group), in its group's head.
static inline int64_t part_begin(int64_t parts, int64_t i) { return i % parts * LOOM_ATTENTION_VALUE_PART; }

/// One past the last head element of value part i: the group's last part takes the remainder.
static inline int64_t part_end(const loom_attention_desc *d, int64_t parts, int64_t i) {
    return i % parts == parts - 1 ? d->head_dim : part_begin(parts, i) + LOOM_ATTENTION_VALUE_PART;
}

int loom_attention_values_part(const loom_attention_desc *d, const float *p, float *out, int64_t n_kv, int64_t part0,
                               int64_t part1, int64_t group_ld) {
    const int64_t parts = loom_attention_value_parts(d);
    if (parts == 0 || n_kv < 0 || part0 < 0 || part1 > parts * d->n_kv_head || part0 > part1) return -1;
    const int64_t lo = loom_attention_first_seen(d, n_kv), m = n_kv - lo, g = d->n_head / d->n_kv_head;
    if (d->n_kv_head > 1 && group_ld < g * m) return -1;
    if (part0 == part1) return 0;
    scores_fn scores;
    accum_fn accum;
    attention_kernels(d->kv_type, &scores, &accum);
    const int64_t hd = d->head_dim;
    for (int64_t i = part0; i < part1; i++) {
        float *o = out + (i / parts) * g * hd + part_begin(parts, i);
        const int64_t width = part_end(d, parts, i) - part_begin(parts, i);
        for (int64_t a = 0; a < g; a++) memset(o + a * hd, 0, (size_t)width * sizeof(float));
    }
    // Block-major, as the scores: each block's rows serve all the parts while they are in cache,
    // and the first call of a block prefetches all the parts' bytes of the rows ahead.
    const int64_t first = loom_kv_row_bytes(d->kv_type, part0 / parts * hd + part_begin(parts, part0));
    const int64_t range = loom_kv_row_bytes(d->kv_type, (part1 - 1) / parts * hd + part_end(d, parts, part1 - 1)) - first;
    kv_walk walk = kv_walk_start(d, d->v, (size_t)first, range, lo, lo + m);
    int64_t j, cnt;
    for (const char *row; (row = kv_walk_next(&walk, &j, &cnt));) {
        for (int64_t i = part0; i < part1;) {
            // A group's consecutive parts go to the kernel as one range: its element chunks walk
            // the rows one after another, so the bits are those of one part at a time.
            const int64_t kvh = i / parts, e0 = part_begin(parts, i);
            int64_t last = i;
            while (last + 1 < part1 && (last + 1) / parts == kvh) last++;
            const int64_t e1 = part_end(d, parts, last);
            const void *v = row + loom_kv_row_bytes(d->kv_type, kvh * hd + e0);
            accum(out + kvh * g * hd + e0, hd, g, v, d->kv_type, d->kv_stride, e1 - e0, cnt, p + kvh * group_ld + (j - lo),
                  m, i == part0 ? range : loom_kv_row_bytes(d->kv_type, e1 - e0));
            i = last + 1;
        }
    }
    return 0;
}

int loom_attention_prefill(const loom_attention_desc *d, const float *q, int64_t q_stride, float *out,
                           int64_t out_stride, int64_t n_tokens, int64_t pos0, int64_t t_begin, int64_t t_step,
                           float *scratch) {
    if (!loom_attention_valid(d) || n_tokens < 0 || pos0 < 0 || t_begin < 0 || t_step <= 0) return -1;
    for (int64_t t = t_begin; t < n_tokens; t += t_step) {
        int rc = loom_attention(d, q + t * q_stride, out + t * out_stride, pos0 + t + 1, 0, d->n_head, scratch);
        if (rc != 0) return rc;
    }
    return 0;
}
