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
                          int64_t hd, int64_t n_kv, float scale, float *scores, int64_t ld);
// out[a] += Σ_j p[a * ld + j] * V_j for `ng` heads.
typedef void (*accum_fn)(float *out, int64_t ng, const void *v, int kv_type, int64_t kv_stride,
                         int64_t hd, int64_t n_kv, const float *p, int64_t ld);

static inline float kv_at(const void *base, int kv_type, int64_t i) {
    return kv_type == KV_F16 ? loom_fp16_to_fp32(((const loom_fp16 *)base)[i]) : ((const float *)base)[i];
}

static void scores_scalar(const float *q, int64_t ng, const void *k, int kv_type, int64_t kv_stride,
                          int64_t hd, int64_t n_kv, float scale, float *scores, int64_t ld) {
    for (int64_t j = 0; j < n_kv; j++) {
        for (int64_t a = 0; a < ng; a++) {
            const float *qa = q + a * hd;
            float s = 0;
            for (int64_t i = 0; i < hd; i++) s += qa[i] * kv_at(k, kv_type, j * kv_stride + i);
            scores[a * ld + j] = s * scale;
        }
    }
}

static void accum_scalar(float *out, int64_t ng, const void *v, int kv_type, int64_t kv_stride, int64_t hd,
                         int64_t n_kv, const float *p, int64_t ld) {
    for (int64_t j = 0; j < n_kv; j++) {
        for (int64_t a = 0; a < ng; a++) {
            float w = p[a * ld + j];
            if (w == 0.0f) continue;
            float *oa = out + a * hd;
            for (int64_t i = 0; i < hd; i++) oa[i] += w * kv_at(v, kv_type, j * kv_stride + i);
        }
    }
}

// Q8_0: kv_stride / 32 blocks per row; k and v point at the head's first block.
static void scores_q8_0_scalar(const float *q, int64_t ng, const void *k, int kv_type, int64_t kv_stride,
                               int64_t hd, int64_t n_kv, float scale, float *scores, int64_t ld) {
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

static void accum_q8_0_scalar(float *out, int64_t ng, const void *v, int kv_type, int64_t kv_stride, int64_t hd,
                              int64_t n_kv, const float *p, int64_t ld) {
    (void)kv_type;
    const int64_t nb = hd / LOOM_QK8_0, row_blocks = kv_stride / LOOM_QK8_0;
    for (int64_t j = 0; j < n_kv; j++) {
        const loom_block_q8_0 *vb = (const loom_block_q8_0 *)v + j * row_blocks;
        for (int64_t a = 0; a < ng; a++) {
            float w = p[a * ld + j];
            if (w == 0.0f) continue;
            float *oa = out + a * hd;
            for (int64_t b = 0; b < nb; b++) {
                const float wd = w * loom_fp16_to_fp32(vb[b].d);
                for (int i = 0; i < LOOM_QK8_0; i++) oa[b * LOOM_QK8_0 + i] += wd * (float)vb[b].qs[i];
            }
        }
    }
}

#if LOOM_X86
// Rows ahead of the one being read: a head's slice of a cached row is a few cache lines at a
// stride of the whole row, so each row is a separate miss that the hardware prefetcher sees
// too late; a decode step over several sequences reads megabytes of cache this way.
#define KV_PREFETCH_ROWS 4

static inline void prefetch_row(const void *base, int kv_type, int64_t row, int64_t hd) {
    const char *p = (const char *)base + loom_kv_row_bytes(kv_type, row);
    for (int64_t off = 0; off < loom_kv_row_bytes(kv_type, hd); off += 64) _mm_prefetch(p + off, _MM_HINT_T0);
}

static LOOM_AVX2 inline __m256 load8(const void *base, int kv_type, int64_t i) {
    if (kv_type == KV_F16) return _mm256_cvtph_ps(_mm_loadu_si128((const __m128i *)((const loom_fp16 *)base + i)));
    return _mm256_loadu_ps((const float *)base + i);
}

static LOOM_AVX2 void scores_avx2(const float *q, int64_t ng, const void *k, int kv_type, int64_t kv_stride,
                                  int64_t hd, int64_t n_kv, float scale, float *scores, int64_t ld) {
    int64_t hd8 = hd & ~(int64_t)7;
    for (int64_t j = 0; j < n_kv; j++) {
        int64_t row = j * kv_stride;
        if (j + KV_PREFETCH_ROWS < n_kv) prefetch_row(k, kv_type, row + KV_PREFETCH_ROWS * kv_stride, hd);
        for (int64_t a = 0; a < ng; a++) {
            const float *qa = q + a * hd;
            __m256 acc = _mm256_setzero_ps();
            for (int64_t i = 0; i < hd8; i += 8) acc = _mm256_fmadd_ps(_mm256_loadu_ps(qa + i), load8(k, kv_type, row + i), acc);
            float s = loom_hsum256(acc);
            for (int64_t i = hd8; i < hd; i++) s += qa[i] * kv_at(k, kv_type, row + i);
            scores[a * ld + j] = s * scale;
        }
    }
}

static LOOM_AVX2 void accum_avx2(float *out, int64_t ng, const void *v, int kv_type, int64_t kv_stride, int64_t hd,
                                 int64_t n_kv, const float *p, int64_t ld) {
    int64_t hd8 = hd & ~(int64_t)7;
    for (int64_t j = 0; j < n_kv; j++) {
        int64_t row = j * kv_stride;
        if (j + KV_PREFETCH_ROWS < n_kv) prefetch_row(v, kv_type, row + KV_PREFETCH_ROWS * kv_stride, hd);
        for (int64_t a = 0; a < ng; a++) {
            float w = p[a * ld + j];
            if (w == 0.0f) continue;
            float *oa = out + a * hd;
            __m256 vw = _mm256_set1_ps(w);
            for (int64_t i = 0; i < hd8; i += 8)
                _mm256_storeu_ps(oa + i, _mm256_fmadd_ps(vw, load8(v, kv_type, row + i), _mm256_loadu_ps(oa + i)));
            for (int64_t i = hd8; i < hd; i++) oa[i] += w * kv_at(v, kv_type, row + i);
        }
    }
}

static LOOM_AVX2 inline __m256 load8_q8(const int8_t *qs) {
    return _mm256_cvtepi32_ps(_mm256_cvtepi8_epi32(_mm_loadl_epi64((const __m128i *)qs)));
}

static LOOM_AVX2 void scores_q8_0_avx2(const float *q, int64_t ng, const void *k, int kv_type, int64_t kv_stride,
                                       int64_t hd, int64_t n_kv, float scale, float *scores, int64_t ld) {
    (void)kv_type;
    const int64_t nb = hd / LOOM_QK8_0, row_blocks = kv_stride / LOOM_QK8_0;
    for (int64_t j = 0; j < n_kv; j++) {
        const loom_block_q8_0 *kb = (const loom_block_q8_0 *)k + j * row_blocks;
        for (int64_t a = 0; a < ng; a++) {
            const float *qa = q + a * hd;
            __m256 acc = _mm256_setzero_ps();
            for (int64_t b = 0; b < nb; b++) {
                const float *qb = qa + b * LOOM_QK8_0;
                const int8_t *qs = kb[b].qs;
                __m256 bs = _mm256_mul_ps(_mm256_loadu_ps(qb), load8_q8(qs));
                bs = _mm256_fmadd_ps(_mm256_loadu_ps(qb + 8), load8_q8(qs + 8), bs);
                bs = _mm256_fmadd_ps(_mm256_loadu_ps(qb + 16), load8_q8(qs + 16), bs);
                bs = _mm256_fmadd_ps(_mm256_loadu_ps(qb + 24), load8_q8(qs + 24), bs);
                acc = _mm256_fmadd_ps(_mm256_set1_ps(loom_fp16_to_fp32(kb[b].d)), bs, acc);
            }
            scores[a * ld + j] = loom_hsum256(acc) * scale;
        }
    }
}

static LOOM_AVX2 void accum_q8_0_avx2(float *out, int64_t ng, const void *v, int kv_type, int64_t kv_stride,
                                      int64_t hd, int64_t n_kv, const float *p, int64_t ld) {
    (void)kv_type;
    const int64_t nb = hd / LOOM_QK8_0, row_blocks = kv_stride / LOOM_QK8_0;
    for (int64_t j = 0; j < n_kv; j++) {
        const loom_block_q8_0 *vb = (const loom_block_q8_0 *)v + j * row_blocks;
        for (int64_t a = 0; a < ng; a++) {
            float w = p[a * ld + j];
            if (w == 0.0f) continue;
            float *oa = out + a * hd;
            for (int64_t b = 0; b < nb; b++) {
                const __m256 wd = _mm256_set1_ps(w * loom_fp16_to_fp32(vb[b].d));
                float *ob = oa + b * LOOM_QK8_0;
                const int8_t *qs = vb[b].qs;
                for (int i = 0; i < LOOM_QK8_0; i += 8)
                    _mm256_storeu_ps(ob + i, _mm256_fmadd_ps(wd, load8_q8(qs + i), _mm256_loadu_ps(ob + i)));
            }
        }
    }
}

static LOOM_AVX512 inline __m512 load16(const void *base, int kv_type, int64_t i) {
    if (kv_type == KV_F16) return _mm512_cvtph_ps(_mm256_loadu_si256((const __m256i *)((const loom_fp16 *)base + i)));
    return _mm512_loadu_ps((const float *)base + i);
}

static LOOM_AVX512 void scores_avx512(const float *q, int64_t ng, const void *k, int kv_type, int64_t kv_stride,
                                      int64_t hd, int64_t n_kv, float scale, float *scores, int64_t ld) {
    int64_t hd16 = hd & ~(int64_t)15;
    for (int64_t j = 0; j < n_kv; j++) {
        int64_t row = j * kv_stride;
        if (j + KV_PREFETCH_ROWS < n_kv) prefetch_row(k, kv_type, row + KV_PREFETCH_ROWS * kv_stride, hd);
        for (int64_t a = 0; a < ng; a++) {
            const float *qa = q + a * hd;
            __m512 acc = _mm512_setzero_ps();
            for (int64_t i = 0; i < hd16; i += 16)
                acc = _mm512_fmadd_ps(_mm512_loadu_ps(qa + i), load16(k, kv_type, row + i), acc);
            float s = _mm512_reduce_add_ps(acc);
            for (int64_t i = hd16; i < hd; i++) s += qa[i] * kv_at(k, kv_type, row + i);
            scores[a * ld + j] = s * scale;
        }
    }
}

static LOOM_AVX512 void accum_avx512(float *out, int64_t ng, const void *v, int kv_type, int64_t kv_stride,
                                     int64_t hd, int64_t n_kv, const float *p, int64_t ld) {
    int64_t hd16 = hd & ~(int64_t)15;
    for (int64_t j = 0; j < n_kv; j++) {
        int64_t row = j * kv_stride;
        if (j + KV_PREFETCH_ROWS < n_kv) prefetch_row(v, kv_type, row + KV_PREFETCH_ROWS * kv_stride, hd);
        for (int64_t a = 0; a < ng; a++) {
            float w = p[a * ld + j];
            if (w == 0.0f) continue;
            float *oa = out + a * hd;
            __m512 vw = _mm512_set1_ps(w);
            for (int64_t i = 0; i < hd16; i += 16)
                _mm512_storeu_ps(oa + i, _mm512_fmadd_ps(vw, load16(v, kv_type, row + i), _mm512_loadu_ps(oa + i)));
            for (int64_t i = hd16; i < hd; i++) oa[i] += w * kv_at(v, kv_type, row + i);
        }
    }
}
#endif

size_t loom_attention_scratch_floats(const loom_attention_desc *d, int64_t n_kv) {
    if (!loom_attention_valid(d) || n_kv <= 0) return 0;
    return (size_t)(d->n_head / d->n_kv_head) * (size_t)n_kv;
}

int loom_attention(const loom_attention_desc *d, const float *q, float *out, int64_t n_kv, int64_t h_begin,
                   int64_t h_end, float *scratch) {
    if (!loom_attention_valid(d) || n_kv < 0 || h_begin < 0 || h_end > d->n_head || h_begin > h_end) return -1;
    const int64_t hd = d->head_dim, g = d->n_head / d->n_kv_head;
    scores_fn scores = scores_scalar;
    accum_fn accum = accum_scalar;
#if LOOM_X86
    switch (loom_isa_active()) {
    case LOOM_ISA_AVX512: scores = scores_avx512; accum = accum_avx512; break;
    case LOOM_ISA_AVX2: scores = scores_avx2; accum = accum_avx2; break;
    default: break;
    }
#endif
    if (d->kv_type == KV_Q8_0) {
        scores = scores_q8_0_scalar;
        accum = accum_q8_0_scalar;
#if LOOM_X86
        // The AVX-512 tier reads Q8_0 with the AVX2 kernels: as in quant_dispatch.c, SIMD code
        // that has never run is not shipped, and the development machine has no AVX-512.
        if (loom_isa_active() >= LOOM_ISA_AVX2) {
            scores = scores_q8_0_avx2;
            accum = accum_q8_0_avx2;
        }
#endif
    }
    // A sliding window drops the keys before `lo`; the query sits at position n_kv - 1.
    const int64_t lo = loom_attention_first_seen(d, n_kv);
    const int64_t m = n_kv - lo;
    // A paged cache is walked block by block in position order, so every score and every
    // accumulation step is the one the contiguous layout performs: the result is bit-identical.
    // The contiguous layout is one run from `lo`.
    const int64_t bs = d->block_table ? d->block_size : (n_kv > 0 ? n_kv : 1);
    const size_t row_bytes = (size_t)loom_kv_row_bytes(d->kv_type, d->kv_stride);
    for (int64_t h = h_begin; h < h_end;) {
        int64_t kvh = h / g;
        int64_t run_end = (kvh + 1) * g < h_end ? (kvh + 1) * g : h_end;
        int64_t ng = run_end - h;
        memset(out + h * hd, 0, (size_t)(ng * hd) * sizeof(float));
        if (m > 0) {
            const size_t head = (size_t)loom_kv_row_bytes(d->kv_type, kvh * hd);
            for (int64_t j0 = lo; j0 < n_kv;) {
                int64_t off = j0 % bs, cnt = bs - off < n_kv - j0 ? bs - off : n_kv - j0;
                int64_t row0 = loom_attention_row(d, j0);
                const void *k = (const char *)d->k + (size_t)row0 * row_bytes + head;
                scores(q + h * hd, ng, k, d->kv_type, d->kv_stride, hd, cnt, d->scale, scratch + (j0 - lo), m);
                j0 += cnt;
            }
            for (int64_t a = 0; a < ng; a++) loom_softmax(scratch + a * m, m);
            for (int64_t j0 = lo; j0 < n_kv;) {
                int64_t off = j0 % bs, cnt = bs - off < n_kv - j0 ? bs - off : n_kv - j0;
                int64_t row0 = loom_attention_row(d, j0);
                const void *v = (const char *)d->v + (size_t)row0 * row_bytes + head;
                accum(out + h * hd, ng, v, d->kv_type, d->kv_stride, hd, cnt, scratch + (j0 - lo), m);
                j0 += cnt;
            }
        }
        h = run_end;
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
