// quant_x8_layout.h — the interleaved formats' geometry, as functions of the type id, for the
// scalar reference and the SIMD tiers alike (each a switch on a compile-time constant where
// the kernels inline it).
#ifndef LOOM_QUANT_X8_LAYOUT_H
#define LOOM_QUANT_X8_LAYOUT_H

#include <stddef.h>
#include "quant_blocks.h"
#include "loom_half.h"

#define LOOM_X8_INLINE static inline __attribute__((always_inline, unused))

/// True for the K-quant layouts: a block is a super-block of 8 chunks of 32 columns, each with
/// its own scale and min (d·sc and -dmin·m, from the row's packed 6-bit scales).
LOOM_X8_INLINE int x8_is_k(int T) { return T == LOOM_TYPE_Q4_K_X8 || T == LOOM_TYPE_Q5_K_X8; }

/// True for Q2_K, Q3_K and Q6_K: a super-block of 8 chunks whose two 16-column halves each have
/// their own scale (and Q2_K its own additive term).
LOOM_X8_INLINE int x8_split(int T) { return T == LOOM_TYPE_Q2_K_X8 || T == LOOM_TYPE_Q3_K_X8 || T == LOOM_TYPE_Q6_K_X8; }

/// Bytes of one interleaved block (eight of the format's blocks).
LOOM_X8_INLINE size_t x8_block_bytes(int T) {
    switch (T) {
    case LOOM_TYPE_Q4_0_X8: return sizeof(loom_block_q4_0x8);
    case LOOM_TYPE_Q4_1_X8: return sizeof(loom_block_q4_1x8);
    case LOOM_TYPE_Q5_0_X8: return sizeof(loom_block_q5_0x8);
    case LOOM_TYPE_Q5_1_X8: return sizeof(loom_block_q5_1x8);
    case LOOM_TYPE_Q4_K_X8: return sizeof(loom_block_q4_Kx8);
    case LOOM_TYPE_Q5_K_X8: return sizeof(loom_block_q5_Kx8);
    case LOOM_TYPE_Q6_K_X8: return sizeof(loom_block_q6_Kx8);
    case LOOM_TYPE_Q2_K_X8: return sizeof(loom_block_q2_Kx8);
    case LOOM_TYPE_Q3_K_X8: return sizeof(loom_block_q3_Kx8);
    default: return sizeof(loom_block_q8_0x8);
    }
}

/// Columns per block: 32, or 256 for the K-quant super-blocks.
LOOM_X8_INLINE int x8_block_cols(int T) { return x8_is_k(T) || x8_split(T) ? 256 : 32; }

/// Bits per stored value: 2 (bit pairs), 3 (bit pairs and a qh bit), 4 (nibbles), 5 (nibbles
/// and a qh bit), 6 (nibbles and a qh bit pair) or 8 (signed bytes).
LOOM_X8_INLINE int x8_bits(int T) {
    switch (T) {
    case LOOM_TYPE_Q8_0_X8: return 8;
    case LOOM_TYPE_Q6_K_X8: return 6;
    case LOOM_TYPE_Q5_0_X8: case LOOM_TYPE_Q5_1_X8: case LOOM_TYPE_Q5_K_X8: return 5;
    case LOOM_TYPE_Q3_K_X8: return 3;
    case LOOM_TYPE_Q2_K_X8: return 2;
    default: return 4;
    }
}

/// True for the 5-bit formats, whose fifth bits are laid out as Q5_0x8's (one per value, in
/// vector element order).
LOOM_X8_INLINE int x8_fifth(int T) { return x8_bits(T) == 5; }

/// True for the formats that keep high bits beside their low ones (qh): Q3_K's third bits
/// (loom_block_q3_Kx8), the fifth bits, and Q6_K's top bit pairs.
LOOM_X8_INLINE int x8_has_qh(int T) { return x8_bits(T) == 3 || x8_bits(T) == 5 || x8_bits(T) == 6; }

/// The constant subtracted from every stored value (Q4_0: 8, Q5_0: 16, Q3_K: 4, Q6_K: 32).
LOOM_X8_INLINE int x8_offset(int T) {
    switch (T) {
    case LOOM_TYPE_Q4_0_X8: return 8;
    case LOOM_TYPE_Q5_0_X8: return 16;
    case LOOM_TYPE_Q3_K_X8: return 4;
    case LOOM_TYPE_Q6_K_X8: return 32;
    default: return 0;
    }
}

/// True when the weights carry an additive term (weight = d*q + m; the K-quants' -dmin*m).
LOOM_X8_INLINE int x8_has_min(int T) {
    return T == LOOM_TYPE_Q4_1_X8 || T == LOOM_TYPE_Q5_1_X8 || x8_is_k(T) || T == LOOM_TYPE_Q2_K_X8;
}

/// Byte offsets of the lane-ordered mins (legacy formats), the fifth bits, and the values in a
/// block; for the K-quants, of chunk 0's (chunk c's follow at c times their size).
LOOM_X8_INLINE size_t x8_m_offset(int T) { (void)T; return offsetof(loom_block_q4_1x8, m); }
LOOM_X8_INLINE size_t x8_qh_offset(int T) {
    switch (T) {
    case LOOM_TYPE_Q5_1_X8: return offsetof(loom_block_q5_1x8, qh);
    case LOOM_TYPE_Q5_K_X8: return offsetof(loom_block_q5_Kx8, qh);
    case LOOM_TYPE_Q6_K_X8: return offsetof(loom_block_q6_Kx8, qh);
    case LOOM_TYPE_Q3_K_X8: return offsetof(loom_block_q3_Kx8, qh);
    default: return offsetof(loom_block_q5_0x8, qh);
    }
}
LOOM_X8_INLINE size_t x8_qs_offset(int T) {
    switch (T) {
    case LOOM_TYPE_Q4_0_X8: return offsetof(loom_block_q4_0x8, qs);
    case LOOM_TYPE_Q4_1_X8: return offsetof(loom_block_q4_1x8, qs);
    case LOOM_TYPE_Q5_0_X8: return offsetof(loom_block_q5_0x8, qs);
    case LOOM_TYPE_Q5_1_X8: return offsetof(loom_block_q5_1x8, qs);
    case LOOM_TYPE_Q4_K_X8: return offsetof(loom_block_q4_Kx8, qs);
    case LOOM_TYPE_Q5_K_X8: return offsetof(loom_block_q5_Kx8, qs);
    case LOOM_TYPE_Q6_K_X8: return offsetof(loom_block_q6_Kx8, qs);
    case LOOM_TYPE_Q2_K_X8: return offsetof(loom_block_q2_Kx8, qs);
    case LOOM_TYPE_Q3_K_X8: return offsetof(loom_block_q3_Kx8, qs);
    default: return offsetof(loom_block_q8_0x8, qs);
    }
}

/// The interleaved block holding chunk c (32 columns) of a group, given the group's first block,
/// and the chunk's index within it (0 for the legacy formats, whose blocks are one chunk).
LOOM_X8_INLINE const uint8_t *x8_chunk_block(int T, const uint8_t *group, int64_t c) {
    return group + (size_t)(c / (x8_block_cols(T) / 32)) * x8_block_bytes(T);
}
LOOM_X8_INLINE int x8_chunk_in_block(int T, int64_t c) { return (int)(c % (x8_block_cols(T) / 32)); }

/// Chunk c's values (128 bytes of nibbles or bytes, 64 of bit pairs) and high bits (32 bytes
/// of single bits, or 64 of bit pairs).
LOOM_X8_INLINE const uint8_t *x8_chunk_qs(int T, const uint8_t *group, int64_t c) {
    return x8_chunk_block(T, group, c) + x8_qs_offset(T) + (size_t)x8_chunk_in_block(T, c) * (x8_bits(T) <= 3 ? 64 : 128);
}
LOOM_X8_INLINE const uint8_t *x8_chunk_qh(int T, const uint8_t *group, int64_t c) {
    return x8_chunk_block(T, group, c) + x8_qh_offset(T) + (size_t)x8_chunk_in_block(T, c) * (x8_bits(T) == 6 ? 64 : 32);
}

#endif
