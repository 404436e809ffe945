// Causal attention of a prompt chunk, a tile of queries at a time.
//
// loom_attention serves one query token: each key row it reads meets only the query heads of
// one KV group, and each score needs a horizontal sum. A prompt chunk has many queries over the
// same keys, so here a tile of up to TILE_QUERIES query vectors (consecutive tokens × the heads
// of one KV group) shares every key and value row: a block of KEYS rows is converted to F32 once
// (F16 with F16C, Q8_0 blocks scaled in place) and transposed, and the scores of eight query
// vectors against its eight keys are eight FMAs per head dimension, with no horizontal sum. Then
// each query's row is softmaxed as loom_attention does (loom_softmax over exactly the positions
// it sees), masked positions are zero, and the values accumulate eight query vectors per loaded
// value vector.
//
// Sums run in a different order from loom_attention's, so results agree with it to rounding, not
// to the bit. A query's result depends only on its own row and the keys it sees: not on which
// tile or batch it shares, nor on the thread count.
#include "loom_ops.h"
#include "loom_cpu.h"
#include "loom_half.h"
#include "loom_quant.h"
#include "ops_attention_geometry.h"
#include "simd_math.h"

#include <string.h>

/// Query vectors per tile (three groups of eight accumulators): every key and value row a tile
/// converts serves this many queries (twice as many measured no faster on SmolLM2 pp512 and
/// pp1024: the larger scores block leaves the cache closest to the core).
#define TILE_QUERIES 24
/// Key rows per block: one vector of scores per query.
#define KEYS 8

static inline int64_t round8(int64_t n) { return (n + 7) & ~(int64_t)7; }

int64_t loom_attention_tile_tokens(const loom_attention_desc *d) {
    if (!loom_attention_valid(d)) return 0;
    int64_t ng = d->n_head / d->n_kv_head;
    return ng >= TILE_QUERIES ? 1 : TILE_QUERIES / ng;
}

/// Query vectors of a tile, rounded up to whole groups of eight.
static int64_t tile_rows(const loom_attention_desc *d) {
    return round8(loom_attention_tile_tokens(d) * (d->n_head / d->n_kv_head));
}

int loom_attention_tiles_supported(const loom_attention_desc *d) {
#if LOOM_X86
    return loom_attention_valid(d) && loom_isa_active() >= LOOM_ISA_AVX2 && d->head_dim % 8 == 0;
#else
    (void)d;
    return 0;
#endif
}

size_t loom_attention_tile_scratch_floats(const loom_attention_desc *d, int64_t n_kv) {
    if (!loom_attention_valid(d) || n_kv <= 0) return 0;
    const int64_t nq = tile_rows(d), hd = d->head_dim;
    // Scores [nq][round8(n_kv) + 8] | outputs [nq][hd] | rows [KEYS][hd] | transposed [hd][KEYS].
    return (size_t)(nq * (round8(n_kv) + 8) + nq * hd + 2 * KEYS * hd);
}

#if LOOM_X86

/// Rows j0 … j0+cnt-1 of KV head kvh as F32 (rows past cnt zero).
static LOOM_AVX2 void load_rows(const loom_attention_desc *d, const void *base, int64_t kvh, int64_t j0, int64_t cnt,
                      float *rows) {
    const int64_t hd = d->head_dim;
    const size_t row_bytes = (size_t)loom_kv_row_bytes(d->kv_type, d->kv_stride);
    const size_t head = (size_t)loom_kv_row_bytes(d->kv_type, kvh * hd);
    for (int64_t r = 0; r < KEYS; r++) {
        float *dst = rows + r * hd;
        if (r >= cnt) {
            memset(dst, 0, (size_t)hd * sizeof(float));
            continue;
        }
        const char *src = (const char *)base + (size_t)loom_attention_row(d, j0 + r) * row_bytes + head;
        if (d->kv_type == LOOM_TYPE_F32) {
            memcpy(dst, src, (size_t)hd * sizeof(float));
        } else if (d->kv_type == LOOM_TYPE_F16) {
            // Inline, as Q8_0 below: a call per row through the dequantizer's dispatch costs more
            // than the row.
            for (int64_t c = 0; c < hd; c += 8)
                _mm256_storeu_ps(dst + c, _mm256_cvtph_ps(_mm_loadu_si128((const __m128i *)(src + 2 * c))));
        } else {
            // Q8_0 blocks (an F16 scale, 32 int8): d·q, as loom_dequantize_row computes it.
            for (int64_t c = 0; c < hd; c += 32) {
                const char *blk = src + (c / 32) * 34;
                loom_fp16 h;
                memcpy(&h, blk, sizeof h);
                const __m256 scale = _mm256_set1_ps(loom_fp16_to_fp32(h));
                for (int i = 0; i < 32; i += 8) {
                    __m256i q = _mm256_cvtepi8_epi32(_mm_loadl_epi64((const __m128i *)(blk + 2 + i)));
                    _mm256_storeu_ps(dst + c + i, _mm256_mul_ps(_mm256_cvtepi32_ps(q), scale));
                }
            }
        }
    }
}

/// rows [KEYS][hd] → kt [hd][KEYS], eight columns at a time.
static LOOM_AVX2 void transpose_rows(const float *rows, int64_t hd, float *kt) {
    for (int64_t c = 0; c < hd; c += 8) {
        __m256 r[8];
        for (int i = 0; i < 8; i++) r[i] = _mm256_loadu_ps(rows + i * hd + c);
        loom_transpose8x8(r);
        for (int i = 0; i < 8; i++) _mm256_storeu_ps(kt + (c + i) * KEYS, r[i]);
    }
}

static LOOM_AVX2 void tile_avx2(const loom_attention_desc *d, const float *q, int64_t q_stride, float *out,
                                int64_t out_stride, int64_t pos0, int64_t t0, int64_t t1, int64_t kvh, float *scratch) {
    const int64_t hd = d->head_dim, ng = d->n_head / d->n_kv_head;
    const int64_t nq = (t1 - t0) * ng, nqpad = round8(nq);
    // Keys in blocks aligned to multiples of KEYS, so a query's sums run in the same order
    // whichever tile it is in.
    const int64_t jlo = loom_attention_first_seen(d, pos0 + t0 + 1) & ~(int64_t)(KEYS - 1), jhi = pos0 + t1;
    const int64_t ld = round8(jhi - jlo);
    float *scores = scratch, *acc = scores + nqpad * ld, *rows = acc + nqpad * hd, *kt = rows + KEYS * hd;
    // Query vector i: token t0 + i / ng, head kvh * ng + i % ng. Padding rows read query 0 and
    // are never stored.
    const float *qv[TILE_QUERIES + 8];
    for (int64_t i = 0; i < nqpad; i++) {
        int64_t k = i < nq ? i : 0;
        qv[i] = q + (t0 + k / ng) * q_stride + (kvh * ng + k % ng) * hd;
    }
    const __m256 scale = _mm256_set1_ps(d->scale);
    for (int64_t j0 = jlo; j0 < jhi; j0 += KEYS) {
        load_rows(d, d->k, kvh, j0, jhi - j0 < KEYS ? jhi - j0 : KEYS, rows);
        transpose_rows(rows, hd, kt);
        for (int64_t i0 = 0; i0 < nqpad; i0 += 8) {
            __m256 s[8];
            for (int a = 0; a < 8; a++) s[a] = _mm256_setzero_ps();
            for (int64_t c = 0; c < hd; c++) {
                const __m256 k = _mm256_loadu_ps(kt + c * KEYS);
                for (int a = 0; a < 8; a++) s[a] = _mm256_fmadd_ps(_mm256_broadcast_ss(qv[i0 + a] + c), k, s[a]);
            }
            for (int a = 0; a < 8; a++) _mm256_storeu_ps(scores + (i0 + a) * ld + (j0 - jlo), _mm256_mul_ps(s[a], scale));
        }
    }
    // Each query's softmax over exactly the positions it sees; every other weight is zero.
    for (int64_t i = 0; i < nqpad; i++) {
        float *row = scores + i * ld;
        if (i >= nq) {
            memset(row, 0, (size_t)ld * sizeof(float));
            continue;
        }
        int64_t t = t0 + i / ng, lo = loom_attention_first_seen(d, pos0 + t + 1) - jlo, hi = pos0 + t + 1 - jlo;
        memset(row, 0, (size_t)lo * sizeof(float));
        loom_softmax(row + lo, hi - lo);
        memset(row + hi, 0, (size_t)(ld - hi) * sizeof(float));
    }
    memset(acc, 0, (size_t)(nqpad * hd) * sizeof(float));
    for (int64_t j0 = jlo; j0 < jhi; j0 += KEYS) {
        load_rows(d, d->v, kvh, j0, jhi - j0 < KEYS ? jhi - j0 : KEYS, rows);
        for (int64_t i0 = 0; i0 < nqpad; i0 += 8) {
            const float *p = scores + i0 * ld + (j0 - jlo);
            for (int64_t c = 0; c < hd; c += 8) {
                __m256 o[8];
                for (int a = 0; a < 8; a++) o[a] = _mm256_loadu_ps(acc + (i0 + a) * hd + c);
                for (int r = 0; r < KEYS; r++) {
                    const __m256 v = _mm256_loadu_ps(rows + r * hd + c);
                    for (int a = 0; a < 8; a++) o[a] = _mm256_fmadd_ps(_mm256_broadcast_ss(p + a * ld + r), v, o[a]);
                }
                for (int a = 0; a < 8; a++) _mm256_storeu_ps(acc + (i0 + a) * hd + c, o[a]);
            }
        }
    }
    for (int64_t i = 0; i < nq; i++)
        memcpy(out + (t0 + i / ng) * out_stride + (kvh * ng + i % ng) * hd, acc + i * hd, (size_t)hd * sizeof(float));
}

#endif

int loom_attention_tile(const loom_attention_desc *d, const float *q, int64_t q_stride, float *out,
                        int64_t out_stride, int64_t pos0, int64_t t0, int64_t t1, int64_t kvh, float *scratch) {
    if (!loom_attention_tiles_supported(d) || kvh < 0 || kvh >= d->n_kv_head || t0 < 0 || t1 <= t0 || pos0 < 0)
        return -1;
    if (t1 - t0 > loom_attention_tile_tokens(d)) return -1;
#if LOOM_X86
    tile_avx2(d, q, q_stride, out, out_stride, pos0, t0, t1, kvh, scratch);
    return 0;
#else
    (void)q; (void)q_stride; (void)out; (void)out_stride; (void)scratch;
    return -1;
#endif
}
