// quant_x8_layout.h — the interleaved formats' geometry, as functions of the type id, for the
// scalar reference and the SIMD tiers alike (each a switch on a compile-time constant where
// the kernels inline it).
#ifndef LOOM_QUANT_X8_LAYOUT_H
#define LOOM_QUANT_X8_LAYOUT_H

#include <stddef.h>
#include "quant_blocks.h"

#define LOOM_X8_INLINE static inline __attribute__((always_inline, unused))

/// Bytes of one interleaved block (eight of the format's blocks).
LOOM_X8_INLINE size_t x8_block_bytes(int T) {
    switch (T) {
    case LOOM_TYPE_Q4_0_X8: return sizeof(loom_block_q4_0x8);
    case LOOM_TYPE_Q4_1_X8: return sizeof(loom_block_q4_1x8);
    case LOOM_TYPE_Q5_0_X8: return sizeof(loom_block_q5_0x8);
    case LOOM_TYPE_Q5_1_X8: return sizeof(loom_block_q5_1x8);
    default: return sizeof(loom_block_q8_0x8);
    }
}

/// Bits per stored value: 4 (nibbles), 5 (nibbles and a qh bit) or 8 (signed bytes).
LOOM_X8_INLINE int x8_bits(int T) {
    return T == LOOM_TYPE_Q8_0_X8 ? 8 : T == LOOM_TYPE_Q5_0_X8 || T == LOOM_TYPE_Q5_1_X8 ? 5 : 4;
}

/// The constant subtracted from every stored value (Q4_0: 8, Q5_0: 16).
LOOM_X8_INLINE int x8_offset(int T) { return T == LOOM_TYPE_Q4_0_X8 ? 8 : T == LOOM_TYPE_Q5_0_X8 ? 16 : 0; }

/// True when the weights carry a min term (weight = d*q + m).
LOOM_X8_INLINE int x8_has_min(int T) { return T == LOOM_TYPE_Q4_1_X8 || T == LOOM_TYPE_Q5_1_X8; }

/// Byte offsets of the lane-ordered mins, the fifth bits, and the values in a block.
LOOM_X8_INLINE size_t x8_m_offset(int T) { (void)T; return offsetof(loom_block_q4_1x8, m); }
LOOM_X8_INLINE size_t x8_qh_offset(int T) {
    return T == LOOM_TYPE_Q5_1_X8 ? offsetof(loom_block_q5_1x8, qh) : offsetof(loom_block_q5_0x8, qh);
}
LOOM_X8_INLINE size_t x8_qs_offset(int T) {
    switch (T) {
    case LOOM_TYPE_Q4_0_X8: return offsetof(loom_block_q4_0x8, qs);
    case LOOM_TYPE_Q4_1_X8: return offsetof(loom_block_q4_1x8, qs);
    case LOOM_TYPE_Q5_0_X8: return offsetof(loom_block_q5_0x8, qs);
    case LOOM_TYPE_Q5_1_X8: return offsetof(loom_block_q5_1x8, qs);
    default: return offsetof(loom_block_q8_0x8, qs);
    }
}

#endif
