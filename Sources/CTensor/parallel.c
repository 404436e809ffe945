// Pool-parallel forms of the forward pass's operations (see loom_parallel.h).
#include "cpu_relax.h"
#include "loom_parallel.h"
#include "loom_blas.h"
#include "loom_quant.h"
#include "loom_profile.h"
#include "ops_attention_geometry.h"

#include <sched.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdlib.h>

// Weight rows dequantized per sgemm call. Each call re-packs the whole activation batch, so wide
// tiles amortise that; measured on Zen 3 (M=512, K=576, Q4_K): 64 rows 41 GFLOP/s, 128–256
// rows 62–65, 512 rows 41 (the tile leaves L2). A tile is about 1 MiB of floats: 256 rows for
// K <= 1024, fewer for longer rows, never below 64.
#define BLAS_TILE_FLOATS (1 << 18)
#define BLAS_TILE_MIN_ROWS 64
#define BLAS_TILE_MAX_ROWS 256

static int64_t blas_tile_rows(int64_t n_cols) {
    int64_t rows = n_cols > 0 ? (BLAS_TILE_FLOATS / n_cols) / 16 * 16 : BLAS_TILE_MAX_ROWS;
    if (rows > BLAS_TILE_MAX_ROWS) rows = BLAS_TILE_MAX_ROWS;
    if (rows < BLAS_TILE_MIN_ROWS) rows = BLAS_TILE_MIN_ROWS;
    return rows;
}

// Per-thread tile floats: at least blas_tile_rows(K) * K, and non-decreasing in K, so scratch
// sized for the longest rows serves every matrix.
static size_t blas_tile_floats(int64_t n_cols) {
    size_t by_min = (size_t)BLAS_TILE_MIN_ROWS * (size_t)(n_cols > 0 ? n_cols : 0);
    return by_min > BLAS_TILE_FLOATS ? by_min : BLAS_TILE_FLOATS;
}

// Crossover batch sizes, measured on AMD Zen 3 (AVX2) for SmolLM2-135M shapes (N=1536, K=576,
// Q4_K and Q8_0 weights, one thread): below them loom_matmul's fused dequantize-dot beats
// dequantizing a 64-row tile and running sgemm on it. OpenBLAS (Haswell kernels) overtakes at
// 16 rows; Loom's own sgemm (dot kernel for skinny products) at about 24.
#define BLAS_MIN_BATCH_OPENBLAS 16
#define BLAS_MIN_BATCH_OWN 24

// A prompt chunk shorter than this joins a batched step's fused products: they quantize each
// row once and read each weight once for every row of the step, where the prompt path reads the
// weights again for the chunk alone. Measured on AMD Zen 3 (AVX2, 2 threads, SmolLM2 Q4_1), the
// eight-row integer products evaluate prompt tokens about 1.4x as fast as dequantized tiles
// through sgemm at 32 rows, 1.15x at 128 and about as fast at 256. With 7 streams decoding
// beside a 1,000-token prompt read in 32-token chunks, the streams' inter-token p50 is 67-82 ms
// with the chunks fused against 110-136 ms through the prompt path, and the prompt's first
// token comes after 2.2-2.5 s against 3.4-4.3 s. On the AVX-512 tier the prompt path multiplies
// with the same integer products (loom_matmul_beats_sgemm), so sharing the step's pass can only
// save work there.
#define PROMPT_PATH_MIN_ROWS 256

void loom_split_range(int64_t n, int ith, int nth, int64_t align, int64_t *begin, int64_t *end) {
    if (nth < 1) nth = 1;
    if (align < 1) align = 1;
    int64_t units = (n + align - 1) / align;
    int64_t u0 = units * ith / nth, u1 = units * (ith + 1) / nth;
    int64_t b = u0 * align, e = u1 * align;
    *begin = b < n ? b : n;
    *end = e < n ? e : n;
}

// MARK: - Matrix-vector

typedef struct {
    int type;
    const void *w;
    size_t row_bytes;
    int64_t n_cols, n_rows;
    const float *x;
    float *y;
} matvec_task;

static void matvec_run(void *p, int ith, int nth) {
    const matvec_task *t = p;
    int64_t r0, r1;
    loom_split_range(t->n_rows, ith, nth, LOOM_PAR_ROW_ALIGN, &r0, &r1);
    if (r0 < r1) loom_matvec(t->type, t->w, t->row_bytes, t->n_cols, t->x, t->y, r0, r1);
}

void loom_par_matvec(loom_pool *pool, int type, const void *w, size_t row_bytes, int64_t n_cols, const float *x,
                     float *y, int64_t n_rows) {
    matvec_task t = {type, w, row_bytes, n_cols, n_rows, x, y};
    loom_pool_run_as(pool, LOOM_WORK_PRODUCTS, matvec_run, &t);
}

// MARK: - Matrix-matrix

int64_t loom_blas_min_batch(void) {
    // Idempotent: racing first calls compute the same value.
    static _Atomic int64_t cached = -1;
    int64_t v = atomic_load_explicit(&cached, memory_order_relaxed);
    if (v < 0) {
        const char *env = getenv("LOOM_BLAS_MIN_BATCH");
        long e = env ? strtol(env, NULL, 10) : 0;
        v = e > 0 ? e : 0;
        atomic_store_explicit(&cached, v, memory_order_relaxed);
    }
    if (v > 0) return v;
    return loom_blas_backend_active() == LOOM_BLAS_OPENBLAS ? BLAS_MIN_BATCH_OPENBLAS : BLAS_MIN_BATCH_OWN;
}

int64_t loom_prompt_path_min_rows(void) {
    int64_t b = loom_blas_min_batch();
    return b > PROMPT_PATH_MIN_ROWS ? b : PROMPT_PATH_MIN_ROWS;
}

size_t loom_par_matmul_scratch_floats(const loom_pool *pool, int64_t n_cols) {
    return (size_t)loom_pool_size(pool) * blas_tile_floats(n_cols);
}

typedef struct {
    int type;
    const void *w;
    size_t row_bytes;
    int64_t n_cols, n_rows;
    const float *x;
    int64_t ldx;
    float *y;
    int64_t ldy, n_batch;
    float *scratch;
} matmul_task;

static void matmul_run(void *p, int ith, int nth) {
    const matmul_task *t = p;
    int64_t r0, r1;
    loom_split_range(t->n_rows, ith, nth, LOOM_PAR_ROW_ALIGN, &r0, &r1);
    if (r0 < r1) loom_matmul(t->type, t->w, t->row_bytes, t->n_cols, t->x, t->ldx, t->y, t->ldy, t->n_batch, r0, r1);
}

static void matmul_blas_run(void *p, int ith, int nth) {
    const matmul_task *t = p;
    int64_t r0, r1;
    loom_split_range(t->n_rows, ith, nth, LOOM_PAR_ROW_ALIGN, &r0, &r1);
    if (r0 >= r1) return;
    if (t->type == LOOM_TYPE_F32 && t->row_bytes % sizeof(float) == 0) {
        // F32 weights are already sgemm's B operand.
        const float *b = (const float *)((const char *)t->w + (size_t)r0 * t->row_bytes);
        loom_sgemm(t->n_batch, r1 - r0, t->n_cols, t->x, t->ldx, b, (int64_t)(t->row_bytes / sizeof(float)),
                   t->y + r0, t->ldy);
        return;
    }
    // Slot stride from this matrix's K: blas_tile_floats is non-decreasing, so nth slots fit in
    // scratch sized for any K' >= K.
    float *tile = t->scratch + (size_t)ith * blas_tile_floats(t->n_cols);
    const int64_t tile_rows = blas_tile_rows(t->n_cols);
    for (int64_t r = r0; r < r1; r += tile_rows) {
        int64_t nr = r1 - r < tile_rows ? r1 - r : tile_rows;
        loom_dequantize_rows(t->type, t->w, t->row_bytes, t->n_cols, r, nr, tile);
        loom_sgemm(t->n_batch, nr, t->n_cols, t->x, t->ldx, tile, t->n_cols, t->y + r, t->ldy);
    }
}

void loom_par_matmul(loom_pool *pool, int type, const void *w, size_t row_bytes, int64_t n_cols, int64_t n_rows,
                     const float *x, int64_t ldx, float *y, int64_t ldy, int64_t n_batch, float *scratch) {
    matmul_task t = {type, w, row_bytes, n_cols, n_rows, x, ldx, y, ldy, n_batch, scratch};
    int blas = n_batch >= loom_blas_min_batch() && (scratch || type == LOOM_TYPE_F32) && !loom_matmul_beats_sgemm(type);
    loom_pool_run_as(pool, LOOM_WORK_PROMPT_PRODUCTS, blas ? matmul_blas_run : matmul_run, &t);
}

// MARK: - Claims

/// Work units (a fused product's row units, attention's query groups), taken in claims from one
/// counter by whichever shares are running: a share that runs faster, or alone while another
/// is descheduled, takes more of them.
typedef struct {
    _Atomic int64_t next;
    int64_t total, per_claim;
} unit_claims;

static void unit_claims_init(unit_claims *c, int64_t total, int64_t per_claim) {
    atomic_init(&c->next, 0);
    c->total = total;
    c->per_claim = per_claim > 0 ? per_claim : 1;
}

/// The next claim [*u0, *u1), or false when every unit is taken.
static bool claim_units(unit_claims *c, int64_t *u0, int64_t *u1) {
    const int64_t b = atomic_fetch_add_explicit(&c->next, c->per_claim, memory_order_relaxed);
    if (b >= c->total) return false;
    *u0 = b;
    *u1 = b + c->per_claim < c->total ? b + c->per_claim : c->total;
    return true;
}

// MARK: - Attention

/// One thread's scratch when the last query sees n_kv positions: room for two queries' scores
/// (the threads' shares together hold those of every query a thin batch spreads over them) and
/// for a tile of a prompt chunk's queries.
static size_t attention_scratch_per_thread(const loom_attention_desc *d, int64_t n_kv) {
    size_t row = 2 * loom_attention_scratch_floats(d, n_kv);
    if (row == 0) return 0;
    size_t tile = loom_attention_tile_scratch_floats(d, n_kv);
    return row > tile ? row : tile;
}

size_t loom_par_attention_scratch_floats(const loom_pool *pool, const loom_attention_desc *d, int64_t n_kv) {
    return (size_t)loom_pool_size(pool) * attention_scratch_per_thread(d, n_kv);
}

/// Tiles of a chunk of n_tokens queries.
static int64_t tile_count(const loom_attention_desc *d, int64_t n_tokens) {
    int64_t r = loom_attention_tile_tokens(d);
    return (n_tokens + r - 1) / r;
}

/// Tile `tile` of a chunk for KV head kvh.
static int attend_tile(const loom_attention_desc *d, const float *q, int64_t q_stride, float *out,
                       int64_t out_stride, int64_t n_tokens, int64_t pos0, int64_t tile, int64_t kvh,
                       float *scratch) {
    int64_t r = loom_attention_tile_tokens(d), t0 = tile * r, t1 = t0 + r < n_tokens ? t0 + r : n_tokens;
    return loom_attention_tile(d, q, q_stride, out, out_stride, pos0, t0, t1, kvh, scratch);
}

typedef struct {
    const loom_attention_desc *d;
    const float *q;
    int64_t q_stride;
    float *out;
    int64_t out_stride, n_tokens, pos0;
    float *scratch;
    size_t scratch_per_thread;
    _Atomic int failed;
} attention_task;

static void attention_run(void *p, int ith, int nth) {
    attention_task *t = p;
    float *scratch = t->scratch + (size_t)ith * t->scratch_per_thread;
    int rc;
    if (t->n_tokens == 1) {
        int64_t h0, h1;
        loom_split_range(t->d->n_head, ith, nth, 1, &h0, &h1);
        rc = h0 < h1 ? loom_attention(t->d, t->q, t->out, t->pos0 + 1, h0, h1, scratch) : 0;
    } else if (t->n_tokens >= loom_blas_min_batch() && loom_attention_tiles_supported(t->d)) {
        // (tile, KV head) units dealt round-robin: later tiles see more keys.
        rc = 0;
        const int64_t groups = t->d->n_kv_head, units = groups * tile_count(t->d, t->n_tokens);
        for (int64_t u = ith; u < units && rc == 0; u += nth)
            rc = attend_tile(t->d, t->q, t->q_stride, t->out, t->out_stride, t->n_tokens, t->pos0, u / groups,
                             u % groups, scratch);
    } else {
        rc = loom_attention_prefill(t->d, t->q, t->q_stride, t->out, t->out_stride, t->n_tokens, t->pos0, ith, nth,
                                    scratch);
    }
    if (rc != 0) t->failed = 1;
}

int loom_par_attention(loom_pool *pool, const loom_attention_desc *d, const float *q, int64_t q_stride, float *out,
                       int64_t out_stride, int64_t n_tokens, int64_t pos0, float *scratch) {
    if (!d || !scratch || n_tokens < 0 || pos0 < 0) return -1;
    if (n_tokens == 0) return 0;
    size_t per = attention_scratch_per_thread(d, pos0 + n_tokens);
    if (per == 0) return -1;
    attention_task t = {d, q, q_stride, out, out_stride, n_tokens, pos0, scratch, per, 0};
    loom_pool_run_as(pool, LOOM_WORK_ATTENTION, attention_run, &t);
    return t.failed ? -1 : 0;
}

// MARK: - Attention of a batch of sequences

typedef struct {
    const loom_attention_desc *d;
    const loom_attention_segment *segs;
    int n_segs, first_tiled;
    const float *q;
    int64_t q_stride;
    float *out;
    int64_t out_stride, units;
    float *scratch;
    size_t scratch_per_thread;
    unit_claims claims;
    _Atomic int failed;
    /// KV groups per unit of the segments before first_tiled: 1, or all of them (whole tokens).
    int64_t whole;
} attention_batch_task;

/// Whether the batch's query tokens (the segments before first_tiled) are units enough to share
/// out whole: a token's KV groups then go to one thread, which walks each cached row once for
/// all of them, whole, instead of once per group a slice at a time. Too few tokens to share
/// evenly keep (token, group) units, so that one or three sequences still spread over the
/// threads.
static int attention_whole_tokens(const loom_pool *pool, const attention_batch_task *t) {
    const int64_t nth = loom_pool_size(pool);
    int64_t tokens = 0;
    for (int i = 0; i < t->first_tiled; i++) tokens += t->segs[i].n_tokens > 0 ? t->segs[i].n_tokens : 0;
    return t->d->n_kv_head > 1 && tokens > 0 && (tokens % nth == 0 || tokens >= 4 * nth);
}

/// Work units of segment i: (token, KV head) before first_tiled, or (token) when the batch
/// shares out whole tokens; (tile, KV head) from it on.
static int64_t segment_units(const attention_batch_task *t, int i) {
    int64_t n = t->segs[i].n_tokens;
    return i < t->first_tiled ? (t->d->n_kv_head / t->whole) * n : t->d->n_kv_head * tile_count(t->d, n);
}

// Units in segment order, claimed one at a time: a unit's cost grows with its keys and a tile
// costs many tokens' worth, so fixed shares would leave one thread with the prompt chunks'
// tiles at the end of the order. A (token, KV head) unit is the query heads of one KV group for
// one token, so one decode token still spreads over the threads and a batch spreads by tokens;
// with tokens enough (attention_whole_tokens) a unit is a whole token.
// Claims only grow, so each share walks the segments forward.
static void attention_batch_run(void *p, int ith, int nth) {
    (void)nth;
    attention_batch_task *t = p;
    float *scratch = t->scratch + (size_t)ith * t->scratch_per_thread;
    const int64_t groups = t->d->n_kv_head, per_group = t->d->n_head / t->d->n_kv_head;
    int s = 0;
    int64_t seg_first = 0;
    for (int64_t u0, u1; claim_units(&t->claims, &u0, &u1);) {
        for (int64_t u = u0; u < u1; u++) {
            while (s < t->n_segs && u >= seg_first + segment_units(t, s)) {
                seg_first += segment_units(t, s);
                s++;
            }
            if (s >= t->n_segs) break;
            const loom_attention_segment *g = &t->segs[s];
            const int64_t per_token = s < t->first_tiled ? groups / t->whole : groups;
            int64_t local = u - seg_first, grp = local % per_token;
            loom_attention_desc d = *t->d;
            if (g->block_table) d.block_table = g->block_table;
            int rc;
            if (s >= t->first_tiled) {
                rc = attend_tile(&d, t->q + g->row * t->q_stride, t->q_stride, t->out + g->row * t->out_stride,
                                 t->out_stride, g->n_tokens, g->pos0, local / groups, grp, scratch);
            } else {
                int64_t row = g->row + local / per_token;
                rc = loom_attention(&d, t->q + row * t->q_stride, t->out + row * t->out_stride,
                                    g->pos0 + local / per_token + 1, grp * t->whole * per_group,
                                    (grp + 1) * t->whole * per_group, scratch);
            }
            if (rc != 0) t->failed = 1;
        }
    }
}

// MARK: - A thin batch's attention

// A batch of (query, KV group) units too few to share evenly among the threads (one sequence
// decoding on a model with three KV heads, or one KV head) would leave a thread idle for most
// of the attention, which dominates a decode step at long contexts. Such a batch runs in three
// dispatches that every thread shares instead: the scores over a split of each query's positions,
// the softmax of each head's row, then the values by parts of the head dimension. Each score,
// softmax and value element is computed as loom_attention computes it, so results are unchanged
// bit for bit; only the work is spread. A thread walks its positions (or its parts' elements)
// block by block for all the query's KV groups at once, so it reads its share of each cache
// block once, whole rows at a time: after a 2,048-token prompt on SmolLM2, where the cache no
// longer fits the last-level cache, that took 0.76 of the time of a walk per group.

/// Most units a thin batch holds, and the fewest positions its longest query must see for the
/// two extra dispatches to pay: on a 2-vCPU Zen 3 EPYC, from 160 positions the spread query
/// took 0.66-0.95 of the time with SmolLM2's and Gemma 3's heads in every run, while at 128
/// Gemma 3's took longer in two runs of three.
#define THIN_UNITS_MAX 8
#define THIN_MIN_POSITIONS 160

/// One query token of a thin batch, all its KV groups.
typedef struct {
    loom_attention_desc d;  // the token's segment's block table
    const float *q;
    float *out, *scores;    // group kvh's scores at scores + kvh * group_ld
    int64_t n_kv, m;
} thin_query;

typedef struct {
    thin_query queries[THIN_UNITS_MAX];
    int n_queries;
    int64_t heads, parts;  // query heads per group; value parts per query (all its groups')
    int64_t group_ld;
    _Atomic int failed;
} thin_task;

static void thin_scores_run(void *p, int ith, int nth) {
    thin_task *t = p;
    for (int u = 0; u < t->n_queries; u++) {
        const thin_query *x = &t->queries[u];
        int64_t p0, p1;
        // Spans in whole 16-row runs (the scheduler's default block), so no thread's span
        // starts a block's walk part-way unless a window does.
        loom_split_range(x->m, ith, nth, 16, &p0, &p1);
        if (p0 < p1 && loom_attention_scores_part(&x->d, x->q, x->n_kv, 0, x->d.n_kv_head, p0, p1, x->scores,
                                                  t->group_ld) != 0)
            t->failed = 1;
    }
}

static void thin_softmax_run(void *p, int ith, int nth) {
    thin_task *t = p;
    const int64_t rows = t->queries[0].d.n_head;  // softmax rows per query: one per head
    int64_t r0, r1;
    loom_split_range(t->n_queries * rows, ith, nth, 1, &r0, &r1);
    for (int64_t r = r0; r < r1; r++) {
        const thin_query *x = &t->queries[r / rows];
        const int64_t h = r % rows;
        loom_softmax(x->scores + (h / t->heads) * t->group_ld + (h % t->heads) * x->m, x->m);
    }
}

static void thin_values_run(void *p, int ith, int nth) {
    thin_task *t = p;
    int64_t i0, i1;
    loom_split_range(t->n_queries * t->parts, ith, nth, 1, &i0, &i1);
    // This thread's parts, query by query.
    for (int64_t i = i0; i < i1;) {
        const int64_t u = i / t->parts, end = (u + 1) * t->parts < i1 ? (u + 1) * t->parts : i1;
        const thin_query *x = &t->queries[u];
        if (loom_attention_values_part(&x->d, x->scores, x->out, x->n_kv, i - u * t->parts, end - u * t->parts,
                                       t->group_ld) != 0)
            t->failed = 1;
        i = end;
    }
}

int loom_par_attention_batch_is_thin(const loom_pool *pool, const loom_attention_desc *d,
                                     const loom_attention_segment *segs, int n_segs, int first_tiled) {
    if (!d || !segs || n_segs < 0 || !loom_attention_valid(d)) return 0;
    const int nth = loom_pool_size(pool);
    int64_t units = 0, longest = 0;
    for (int i = 0; i < n_segs; i++) {
        if (segs[i].n_tokens <= 0) continue;
        // A prompt chunk in tiles brings work enough of its own.
        if (i >= first_tiled && loom_attention_tiles_supported(d)) return 0;
        units += segs[i].n_tokens * d->n_kv_head;
        const int64_t n_kv = segs[i].pos0 + segs[i].n_tokens;
        const int64_t m = n_kv - loom_attention_first_seen(d, n_kv);
        if (m > longest) longest = m;
    }
    return nth >= 2 && units > 0 && units <= THIN_UNITS_MAX && units < 2 * nth && units % nth != 0 &&
           longest >= THIN_MIN_POSITIONS;
}

/// The thin batch's attention (loom_par_attention_batch_is_thin holds): 0, or -1 when a part
/// rejected its arguments.
static int thin_attention(loom_pool *pool, const loom_attention_desc *d, const loom_attention_segment *segs, int n_segs,
                          const float *q, int64_t q_stride, float *out, int64_t out_stride, int64_t max_kv,
                          float *scratch) {
    thin_task t = {.n_queries = 0};
    t.heads = d->n_head / d->n_kv_head;
    t.parts = loom_attention_value_parts(d) * d->n_kv_head;
    t.group_ld = t.heads * max_kv;
    for (int i = 0; i < n_segs; i++) {
        for (int64_t tok = 0; tok < segs[i].n_tokens; tok++) {
            thin_query *x = &t.queries[t.n_queries];
            x->d = *d;
            if (segs[i].block_table) x->d.block_table = segs[i].block_table;
            x->q = q + (segs[i].row + tok) * q_stride;
            x->out = out + (segs[i].row + tok) * out_stride;
            x->n_kv = segs[i].pos0 + tok + 1;
            x->m = x->n_kv - loom_attention_first_seen(d, x->n_kv);
            // A query's groups side by side: the scratch of `units` (token, group) pairs, as the
            // predicate counts them.
            x->scores = scratch + (size_t)t.n_queries * (size_t)(d->n_kv_head * t.group_ld);
            t.n_queries++;
        }
    }
    loom_pool_run_as(pool, LOOM_WORK_ATTENTION, thin_scores_run, &t);
    loom_pool_run_as(pool, LOOM_WORK_ATTENTION, thin_softmax_run, &t);
    loom_pool_run_as(pool, LOOM_WORK_ATTENTION, thin_values_run, &t);
    return t.failed ? -1 : 0;
}

int loom_par_attention_batch(loom_pool *pool, const loom_attention_desc *d, const loom_attention_segment *segs,
                             int n_segs, int first_tiled, const float *q, int64_t q_stride, float *out,
                             int64_t out_stride, int64_t max_kv, float *scratch) {
    if (!d || !segs || !scratch || n_segs < 0 || max_kv <= 0 || first_tiled < 0) return -1;
    size_t per = attention_scratch_per_thread(d, max_kv);
    if (per == 0) return -1;
    attention_batch_task t = {d, segs, n_segs, first_tiled, q, q_stride, out, out_stride, 0, scratch, per, {0}, 0, 1};
    if (t.first_tiled > n_segs || !loom_attention_tiles_supported(d)) t.first_tiled = n_segs;
    t.whole = attention_whole_tokens(pool, &t) ? d->n_kv_head : 1;
    for (int i = 0; i < n_segs; i++) {
        if (segs[i].n_tokens < 0 || segs[i].pos0 < 0 || segs[i].pos0 + segs[i].n_tokens > max_kv) return -1;
        t.units += segment_units(&t, i);
    }
    if (t.units == 0) return 0;
    if (loom_par_attention_batch_is_thin(pool, d, segs, n_segs, t.first_tiled))
        return thin_attention(pool, d, segs, n_segs, q, q_stride, out, out_stride, max_kv, scratch);
    unit_claims_init(&t.claims, t.units, 1);
    loom_pool_run_as(pool, LOOM_WORK_ATTENTION, attention_batch_run, &t);
    return t.failed ? -1 : 0;
}

// MARK: - Element-wise

typedef struct {
    float *y;
    const float *x, *w, *up;
    int64_t n, n_rows, stride;
    float eps;
} rows_task;

static void rmsnorm_run(void *p, int ith, int nth) {
    const rows_task *t = p;
    int64_t r0, r1;
    loom_split_range(t->n_rows, ith, nth, 1, &r0, &r1);
    for (int64_t r = r0; r < r1; r++) loom_rmsnorm(t->y + r * t->stride, t->x + r * t->stride, t->w, t->n, t->eps);
}

void loom_par_rmsnorm(loom_pool *pool, float *y, const float *x, const float *w, int64_t n, int64_t n_rows,
                      int64_t stride, float eps) {
    rows_task t = {y, x, w, NULL, n, n_rows, stride, eps};
    if (n_rows <= 1) {
        if (n_rows == 1) loom_rmsnorm(y, x, w, n, eps);
        return;
    }
    loom_pool_run_as(pool, LOOM_WORK_NORMS, rmsnorm_run, &t);
}

// A gated activation y = act(gate) * up, split across the pool in 64-element units.
typedef void (*gated_fn)(float *y, const float *gate, const float *up, int64_t n);

typedef struct {
    gated_fn fn;
    float *y;
    const float *gate, *up;
    int64_t n;
} gated_task;

static void gated_run(void *p, int ith, int nth) {
    const gated_task *t = p;
    int64_t i0, i1;
    loom_split_range(t->n, ith, nth, 64, &i0, &i1);
    if (i0 < i1) t->fn(t->y + i0, t->gate + i0, t->up + i0, i1 - i0);
}

// Below this many elements one thread finishes before a dispatch would wake the others.
#define PAR_ELEMENTWISE_MIN 4096

static void par_gated(loom_pool *pool, gated_fn fn, float *y, const float *gate, const float *up, int64_t n) {
    if (n < PAR_ELEMENTWISE_MIN) {
        fn(y, gate, up, n);
        return;
    }
    gated_task t = {fn, y, gate, up, n};
    loom_pool_run_as(pool, LOOM_WORK_NORMS, gated_run, &t);
}

void loom_par_swiglu(loom_pool *pool, float *y, const float *gate, const float *up, int64_t n) {
    par_gated(pool, loom_swiglu, y, gate, up, n);
}

void loom_par_geglu(loom_pool *pool, float *y, const float *gate, const float *up, int64_t n) {
    par_gated(pool, loom_geglu, y, gate, up, n);
}

// MARK: - Fused products (decode, one input row or a batch)

// Each thread's A16 row starts on its own cache line.
static size_t a16_slot_bytes(int64_t n_cols) {
    size_t b = loom_activation_bytes(n_cols > 0 ? n_cols : 0);
    return (b + 63) / 64 * 64;
}

size_t loom_par_matvec_scratch_bytes(const loom_pool *pool, int64_t n_cols) {
    return (size_t)loom_pool_size(pool) * a16_slot_bytes(n_cols);
}

size_t loom_par_matmul_fused_scratch_bytes(const loom_pool *pool, int64_t n_cols, int64_t n_batch) {
    int64_t threads = loom_pool_size(pool);
    return (size_t)(n_batch > threads ? n_batch : threads) * a16_slot_bytes(n_cols);
}

// Claims of work per thread for a batch's products: the cores of a shared machine do not run
// at one speed (on this project's 2-vCPU EPYCs one core often runs the same products 1.3-1.5x
// slower than the other), and with one fixed half each the faster core would wait for the
// slower at every product; with two claims each, a thread that runs faster takes three of the
// four. More claims cost more than they balance: every claim is an atomic on a line the cores
// pass back and forth and a new stream through the weights, and a SmolLM2 eight-row step took
// 1.10x the time with eight claims per thread on the AVX-512 EPYC (in process, alternating
// with two; 1.08x with a busy process sharing the cores). One row's products read the weights
// from memory and keep one claim per thread: each new claim starts a stream whose first lines
// arrive one miss at a time, which cost SmolLM2's one-row step on Zen 3 about 8% with eight
// claims per thread.
#define BATCH_CLAIMS_PER_THREAD 2

static int64_t row_units(int64_t n_rows) { return (n_rows + LOOM_PAR_ROW_ALIGN - 1) / LOOM_PAR_ROW_ALIGN; }

static bool parts_quantized(const loom_matvec_part *parts, int n_parts) {
    for (int i = 0; i < n_parts; i++)
        if (!loom_type_is_float(parts[i].type)) return true;
    return false;
}

/// A fused product of one input row (n_batch 1) or of a batch (row b at x + b*ldx).
typedef struct {
    const loom_matvec_part *parts;
    int n_parts;
    /// The SwiGLU form: parts are {gate, up}, and h = silu(gate) * up row by row.
    float *h;
    int64_t ldh;
    int64_t n_cols;
    const float *x;
    int64_t ldx, n_batch;
    void *scratch;
    unit_claims units;
    /// Batch input rows taken for quantization, and quantized.
    _Atomic int64_t rows_claimed, rows_quantized;
} fused_task;

// The batch's A16 rows, slot b for input row b. Rows are claimed one at a time by the running
// shares, each quantized with the one-row path's quantizer (so every row's A16 form is the one
// the one-row call makes); a share that finds none left waits only for rows other running
// shares are mid-way through (microseconds), spinning briefly and then yielding so that a
// thread descheduled on a busy machine gets its core back.
static void quantize_batch(fused_task *t) {
    const size_t slot = a16_slot_bytes(t->n_cols);
    for (int64_t b; (b = atomic_fetch_add_explicit(&t->rows_claimed, 1, memory_order_relaxed)) < t->n_batch;) {
        loom_quantize_activation(t->x + b * t->ldx, t->n_cols, (char *)t->scratch + (size_t)b * slot);
        atomic_fetch_add_explicit(&t->rows_quantized, 1, memory_order_release);
    }
    for (unsigned spins = 0; atomic_load_explicit(&t->rows_quantized, memory_order_acquire) < t->n_batch; spins++) {
        if (spins < 4096) loom_cpu_relax();
        else sched_yield();
    }
}

// x in the form the parts' kernels read, made when a share takes its first claim: NULL when
// every part has float weights (they read x itself); for one row, this share's own A16 copy
// (quantizing a copy each costs the same wall time as one thread doing it before the
// dispatch, without making the others wait for it); for a batch, the shared rows.
static const void *quantized_input(fused_task *t, int ith) {
    if (!parts_quantized(t->parts, t->n_parts)) return NULL;
    if (t->n_batch > 1) {
        quantize_batch(t);
        return t->scratch;
    }
    void *slot = (char *)t->scratch + (size_t)ith * a16_slot_bytes(t->n_cols);
    loom_quantize_activation(t->x, t->n_cols, slot);
    return slot;
}

/// Rows [r0, r1) of part p for every input row, then its bias: the kernels keep each input
/// row's arithmetic as for one row, and the bias is added row by row.
static void part_rows(const fused_task *t, const loom_matvec_part *p, const void *xq, int64_t r0, int64_t r1) {
    const int64_t n_cols = t->n_cols;
    if (t->n_batch == 1) {
        if (p->accumulate) loom_matvec_q_accumulate(p->type, p->w, p->row_bytes, n_cols, t->x, xq, p->y, r0, r1);
        else loom_matvec_q(p->type, p->w, p->row_bytes, n_cols, t->x, xq, p->y, r0, r1);
    } else {
        const size_t slot = a16_slot_bytes(n_cols);
        if (p->accumulate)
            loom_matmul_q_accumulate(p->type, p->w, p->row_bytes, n_cols, t->x, t->ldx, xq, slot, p->y, p->ldy,
                                     t->n_batch, r0, r1);
        else
            loom_matmul_q(p->type, p->w, p->row_bytes, n_cols, t->x, t->ldx, xq, slot, p->y, p->ldy, t->n_batch, r0,
                          r1);
    }
    if (p->bias)
        for (int64_t b = 0; b < t->n_batch; b++) {
            float *yb = p->y + b * p->ldy;
            loom_add(yb + r0, yb + r0, p->bias + r0, r1 - r0);
        }
}

// The parts' rows, in LOOM_PAR_ROW_ALIGN units counted per part (so every part's split stays
// aligned), as one range of units: a claim may span the end of one part and the start of the
// next.
static void fused_units(const fused_task *t, const void *xq, int64_t u0, int64_t u1) {
    int64_t base = 0;
    for (int i = 0; i < t->n_parts && base < u1; i++) {
        const loom_matvec_part *pt = &t->parts[i];
        const int64_t units = row_units(pt->n_rows);
        const int64_t lo = u0 > base ? u0 : base, hi = u1 < base + units ? u1 : base + units;
        if (lo < hi) {
            const int64_t r0 = (lo - base) * LOOM_PAR_ROW_ALIGN, r1 = (hi - base) * LOOM_PAR_ROW_ALIGN;
            part_rows(t, pt, xq, r0, r1 < pt->n_rows ? r1 : pt->n_rows);
        }
        base += units;
    }
}

// Gate and up rows [r0, r1) in one claim, so the thread that made them finishes h[r0, r1)
// with no further barrier. r0 stays a multiple of LOOM_PAR_ROW_ALIGN, so loom_swiglu puts
// every element in the same vector lane group as one call over all rows would.
static void swiglu_units(const fused_task *t, const void *xq, int64_t u0, int64_t u1) {
    const loom_matvec_part *gate = &t->parts[0], *up = &t->parts[1];
    const int64_t r0 = u0 * LOOM_PAR_ROW_ALIGN, r1e = u1 * LOOM_PAR_ROW_ALIGN;
    const int64_t r1 = r1e < gate->n_rows ? r1e : gate->n_rows;
    part_rows(t, gate, xq, r0, r1);
    part_rows(t, up, xq, r0, r1);
    for (int64_t b = 0; b < t->n_batch; b++)
        loom_swiglu(t->h + b * t->ldh + r0, gate->y + b * gate->ldy + r0, up->y + b * up->ldy + r0, r1 - r0);
}

static void fused_run(void *p, int ith, int nth) {
    (void)nth;
    fused_task *t = p;
    const void *xq = NULL;
    int quantized = 0;
    for (int64_t u0, u1; claim_units(&t->units, &u0, &u1);) {
        if (!quantized) {
            xq = quantized_input(t, ith);
            quantized = 1;
        }
        if (t->h) swiglu_units(t, xq, u0, u1);
        else fused_units(t, xq, u0, u1);
    }
}

static void fused_dispatch(loom_pool *pool, const loom_matvec_part *parts, int n_parts, float *h, int64_t ldh,
                           int64_t n_cols, const float *x, int64_t ldx, int64_t n_batch, void *scratch) {
    fused_task t = {parts, n_parts, h, ldh, n_cols, x, ldx, n_batch, scratch, {0}, 0, 0};
    int64_t total = 0;
    if (h) total = row_units(parts[0].n_rows);
    else
        for (int i = 0; i < n_parts; i++) total += row_units(parts[i].n_rows);
    const int64_t claims = (int64_t)loom_pool_size(pool) * (n_batch > 1 ? BATCH_CLAIMS_PER_THREAD : 1);
    unit_claims_init(&t.units, total, (total + claims - 1) / claims);
    loom_pool_run_as(pool, LOOM_WORK_PRODUCTS, fused_run, &t);
}

void loom_par_matvec_fused(loom_pool *pool, const loom_matvec_part *parts, int n_parts, int64_t n_cols,
                           const float *x, void *scratch) {
    if (n_parts <= 0) return;
    fused_dispatch(pool, parts, n_parts, NULL, 0, n_cols, x, 0, 1, scratch);
}

int loom_par_matvec_swiglu(loom_pool *pool, const loom_matvec_part *gate, const loom_matvec_part *up,
                           int64_t n_cols, const float *x, float *h, void *scratch) {
    if (!gate || !up || gate->n_rows != up->n_rows) return -1;
    const loom_matvec_part pair[2] = {*gate, *up};
    fused_dispatch(pool, pair, 2, h, 0, n_cols, x, 0, 1, scratch);
    return 0;
}

// MARK: - Batched fused products (continuous batching)

void loom_par_matmul_fused(loom_pool *pool, const loom_matvec_part *parts, int n_parts, int64_t n_cols,
                           const float *x, int64_t ldx, int64_t n_batch, void *scratch) {
    if (n_parts <= 0 || n_batch <= 0) return;
    fused_dispatch(pool, parts, n_parts, NULL, 0, n_cols, x, ldx, n_batch, scratch);
}

int loom_par_matmul_swiglu(loom_pool *pool, const loom_matvec_part *gate, const loom_matvec_part *up,
                           int64_t n_cols, const float *x, int64_t ldx, int64_t n_batch, float *h, int64_t ldh,
                           void *scratch) {
    if (!gate || !up || gate->n_rows != up->n_rows) return -1;
    if (n_batch <= 0) return 0;
    const loom_matvec_part pair[2] = {*gate, *up};
    fused_dispatch(pool, pair, 2, h, ldh, n_cols, x, ldx, n_batch, scratch);
    return 0;
}
