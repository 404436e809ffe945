// quant_k_decode.h — the K-quant formats (Q2_K … Q8_K) decoded in plain C.
//
// `dec_<t>(block, c, q, s, b)`: chunk c (32 elements) of a super-block as integers q[32] with
// weight = s[h]*q + b[h] for the 16-element half h; see quant_blocks.h for which bits of which
// bytes make chunk c of each format. The one statement of each format's formula: the scalar
// reference tier (quant_k_scalar.c) and the interleaved repacking (quant_x8_scalar.c) read it.
#ifndef LOOM_QUANT_K_DECODE_H
#define LOOM_QUANT_K_DECODE_H

#include "quant_blocks.h"

static inline void dec_q2_K(const loom_block_q2_K *blk, int c, int16_t *q, float *s, float *b) {
    const uint8_t *qs = blk->qs + 32 * (c >> 2);
    int shift = 2 * (c & 3);
    for (int l = 0; l < 32; l++) q[l] = (int16_t)((qs[l] >> shift) & 3);
    float d = loom_fp16_to_fp32(blk->d), dmin = loom_fp16_to_fp32(blk->dmin);
    for (int h = 0; h < 2; h++) {
        uint8_t sc = blk->scales[2 * c + h];
        s[h] = d * (float)(sc & 0xF);
        b[h] = -(dmin * (float)(sc >> 4));
    }
}

static inline void dec_q3_K(const loom_block_q3_K *blk, int c, int16_t *q, float *s, float *b) {
    const uint8_t *qs = blk->qs + 32 * (c >> 2);
    int shift = 2 * (c & 3);
    for (int l = 0; l < 32; l++) {
        int hb = (blk->hmask[l] >> c) & 1;
        q[l] = (int16_t)(((qs[l] >> shift) & 3) - (hb ? 0 : 4));
    }
    float d = loom_fp16_to_fp32(blk->d);
    for (int h = 0; h < 2; h++) {
        s[h] = d * (float)(loom_q3k_scale(2 * c + h, blk->scales) - 32);
        b[h] = 0.0f;
    }
}

static inline void dec_q4_K(const loom_block_q4_K *blk, int c, int16_t *q, float *s, float *b) {
    const uint8_t *qs = blk->qs + 32 * (c >> 1);
    int shift = 4 * (c & 1);
    for (int l = 0; l < 32; l++) q[l] = (int16_t)((qs[l] >> shift) & 0xF);
    uint8_t sc, m;
    loom_k_scale_min(c, blk->scales, &sc, &m);
    s[0] = s[1] = loom_fp16_to_fp32(blk->d) * (float)sc;
    b[0] = b[1] = -(loom_fp16_to_fp32(blk->dmin) * (float)m);
}

static inline void dec_q5_K(const loom_block_q5_K *blk, int c, int16_t *q, float *s, float *b) {
    const uint8_t *qs = blk->qs + 32 * (c >> 1);
    int shift = 4 * (c & 1);
    for (int l = 0; l < 32; l++) q[l] = (int16_t)(((qs[l] >> shift) & 0xF) | (((blk->qh[l] >> c) & 1) << 4));
    uint8_t sc, m;
    loom_k_scale_min(c, blk->scales, &sc, &m);
    s[0] = s[1] = loom_fp16_to_fp32(blk->d) * (float)sc;
    b[0] = b[1] = -(loom_fp16_to_fp32(blk->dmin) * (float)m);
}

static inline void dec_q6_K(const loom_block_q6_K *blk, int c, int16_t *q, float *s, float *b) {
    int n = c >> 2, k = c & 3;
    const uint8_t *ql = blk->ql + 64 * n + 32 * (k & 1);
    const uint8_t *qh = blk->qh + 32 * n;
    int nshift = 4 * (k >> 1), hshift = 2 * k;
    for (int l = 0; l < 32; l++) q[l] = (int16_t)((((ql[l] >> nshift) & 0xF) | (((qh[l] >> hshift) & 3) << 4)) - 32);
    float d = loom_fp16_to_fp32(blk->d);
    s[0] = d * (float)blk->scales[2 * c];
    s[1] = d * (float)blk->scales[2 * c + 1];
    b[0] = b[1] = 0.0f;
}

static inline void dec_q8_K(const loom_block_q8_K *blk, int c, int16_t *q, float *s, float *b) {
    for (int l = 0; l < 32; l++) q[l] = blk->qs[32 * c + l];
    s[0] = s[1] = blk->d;
    b[0] = b[1] = 0.0f;
}

#endif
