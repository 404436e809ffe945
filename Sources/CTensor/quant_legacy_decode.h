// quant_legacy_decode.h — the legacy 32-element formats (Q4_0 … Q8_1) decoded in plain C.
//
// `dec_<t>(block, c, q, s, b)`: the block's 32 values as integers q[32] with
// weight = s[h]*q + b[h] for the 16-element half h (a legacy block is one chunk, so c is 0 and
// both halves share s and b). The one statement of each format's formula: the scalar reference
// tier (quant_legacy_scalar.c) and the interleaved repacking (quant_x8_scalar.c) read it.
#ifndef LOOM_QUANT_LEGACY_DECODE_H
#define LOOM_QUANT_LEGACY_DECODE_H

#include "quant_blocks.h"

static inline void dec_q4_0(const loom_block_q4_0 *blk, int c, int16_t *q, float *s, float *b) {
    (void)c;
    for (int j = 0; j < 16; j++) {
        q[j] = (int16_t)((blk->qs[j] & 0xF) - 8);
        q[j + 16] = (int16_t)((blk->qs[j] >> 4) - 8);
    }
    s[0] = s[1] = loom_fp16_to_fp32(blk->d);
    b[0] = b[1] = 0.0f;
}

static inline void dec_q4_1(const loom_block_q4_1 *blk, int c, int16_t *q, float *s, float *b) {
    (void)c;
    for (int j = 0; j < 16; j++) {
        q[j] = (int16_t)(blk->qs[j] & 0xF);
        q[j + 16] = (int16_t)(blk->qs[j] >> 4);
    }
    s[0] = s[1] = loom_fp16_to_fp32(blk->d);
    b[0] = b[1] = loom_fp16_to_fp32(blk->m);
}

static inline uint32_t qh_bits(const uint8_t *qh) {
    return (uint32_t)qh[0] | (uint32_t)qh[1] << 8 | (uint32_t)qh[2] << 16 | (uint32_t)qh[3] << 24;
}

static inline void dec_q5_0(const loom_block_q5_0 *blk, int c, int16_t *q, float *s, float *b) {
    (void)c;
    uint32_t qh = qh_bits(blk->qh);
    for (int j = 0; j < 16; j++) {
        q[j] = (int16_t)(((blk->qs[j] & 0xF) | (((qh >> j) & 1) << 4)) - 16);
        q[j + 16] = (int16_t)(((blk->qs[j] >> 4) | (((qh >> (j + 16)) & 1) << 4)) - 16);
    }
    s[0] = s[1] = loom_fp16_to_fp32(blk->d);
    b[0] = b[1] = 0.0f;
}

static inline void dec_q5_1(const loom_block_q5_1 *blk, int c, int16_t *q, float *s, float *b) {
    (void)c;
    uint32_t qh = qh_bits(blk->qh);
    for (int j = 0; j < 16; j++) {
        q[j] = (int16_t)((blk->qs[j] & 0xF) | (((qh >> j) & 1) << 4));
        q[j + 16] = (int16_t)((blk->qs[j] >> 4) | (((qh >> (j + 16)) & 1) << 4));
    }
    s[0] = s[1] = loom_fp16_to_fp32(blk->d);
    b[0] = b[1] = loom_fp16_to_fp32(blk->m);
}

static inline void dec_q8_0(const loom_block_q8_0 *blk, int c, int16_t *q, float *s, float *b) {
    (void)c;
    for (int j = 0; j < 32; j++) q[j] = blk->qs[j];
    s[0] = s[1] = loom_fp16_to_fp32(blk->d);
    b[0] = b[1] = 0.0f;
}

static inline void dec_q8_1(const loom_block_q8_1 *blk, int c, int16_t *q, float *s, float *b) {
    (void)c;
    for (int j = 0; j < 32; j++) q[j] = blk->qs[j];
    s[0] = s[1] = loom_fp16_to_fp32(blk->d);
    b[0] = b[1] = 0.0f;
}

#endif
