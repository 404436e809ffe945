// ops_attention_geometry.h — what every attention kernel reads off a loom_attention_desc the
// same way: whether the desc is usable, the first position a query sees, and where a position's
// keys and values live in a contiguous or paged cache.
#ifndef LOOM_OPS_ATTENTION_GEOMETRY_H
#define LOOM_OPS_ATTENTION_GEOMETRY_H

#include "loom_ops.h"
#include "loom_quant.h"

/// True when the kernels can read the cache `d` describes.
static inline int loom_attention_valid(const loom_attention_desc *d) {
    if (!d || d->n_head <= 0 || d->n_kv_head <= 0 || d->head_dim <= 0) return 0;
    if (d->n_head % d->n_kv_head != 0) return 0;
    if (d->kv_type != LOOM_TYPE_F32 && d->kv_type != LOOM_TYPE_F16 && d->kv_type != LOOM_TYPE_Q8_0) return 0;
    if (d->kv_stride < d->n_kv_head * d->head_dim || !d->k || !d->v) return 0;
    // Q8_0 heads must be whole blocks, so a head starts at a block and is read block by block.
    if (d->kv_type == LOOM_TYPE_Q8_0 && (d->head_dim % 32 != 0 || d->kv_stride % 32 != 0)) return 0;
    if (d->block_table && d->block_size <= 0) return 0;
    if (d->window < 0) return 0;
    return 1;
}

/// The first position a query at position n_kv - 1 sees: its sliding window's start, or 0.
static inline int64_t loom_attention_first_seen(const loom_attention_desc *d, int64_t n_kv) {
    return d->window > 0 && n_kv > d->window ? n_kv - d->window : 0;
}

/// The cache row holding position j: through the block table when the cache is paged (rows of
/// one block are consecutive).
static inline int64_t loom_attention_row(const loom_attention_desc *d, int64_t j) {
    return d->block_table ? (int64_t)d->block_table[j / d->block_size] * d->block_size + j % d->block_size : j;
}

#endif
