// The type table: block geometry and names for every element type Loom knows.
// Block sizes follow ggml (ggml/src/ggml-common.h); quant_*.c define the block structs.
#include "loom_quant.h"

typedef struct {
    const char *name;
    int64_t block_elems;
    size_t block_bytes;
} loom_type_info;

#define QK 32
#define QKK 256

static const loom_type_info *info_for(int type) {
    static const loom_type_info f32  = {"F32", 1, 4};
    static const loom_type_info f16  = {"F16", 1, 2};
    static const loom_type_info bf16 = {"BF16", 1, 2};
    static const loom_type_info q4_0 = {"Q4_0", QK, 2 + QK / 2};
    static const loom_type_info q4_1 = {"Q4_1", QK, 4 + QK / 2};
    static const loom_type_info q5_0 = {"Q5_0", QK, 2 + 4 + QK / 2};
    static const loom_type_info q5_1 = {"Q5_1", QK, 4 + 4 + QK / 2};
    static const loom_type_info q8_0 = {"Q8_0", QK, 2 + QK};
    static const loom_type_info q8_1 = {"Q8_1", QK, 4 + QK};
    static const loom_type_info q2_k = {"Q2_K", QKK, QKK / 16 + QKK / 4 + 4};
    static const loom_type_info q3_k = {"Q3_K", QKK, QKK / 8 + QKK / 4 + 12 + 2};
    static const loom_type_info q4_k = {"Q4_K", QKK, 4 + 12 + QKK / 2};
    static const loom_type_info q5_k = {"Q5_K", QKK, 4 + 12 + QKK / 8 + QKK / 2};
    static const loom_type_info q6_k = {"Q6_K", QKK, QKK / 2 + QKK / 4 + QKK / 16 + 2};
    static const loom_type_info q8_k = {"Q8_K", QKK, 4 + QKK + QKK / 16 * 2};
    // Per row, as their formats: an interleaved block holds eight rows' blocks.
    static const loom_type_info q4_0x8 = {"Q4_0x8", QK, 2 + QK / 2};
    static const loom_type_info q4_1x8 = {"Q4_1x8", QK, 4 + QK / 2};
    static const loom_type_info q5_0x8 = {"Q5_0x8", QK, 2 + 4 + QK / 2};
    static const loom_type_info q5_1x8 = {"Q5_1x8", QK, 4 + 4 + QK / 2};
    static const loom_type_info q8_0x8 = {"Q8_0x8", QK, 2 + QK};
    static const loom_type_info q2_kx8 = {"Q2_Kx8", QKK, QKK / 16 + QKK / 4 + 4};
    static const loom_type_info q3_kx8 = {"Q3_Kx8", QKK, QKK / 8 + QKK / 4 + 12 + 2};
    static const loom_type_info q4_kx8 = {"Q4_Kx8", QKK, 4 + 12 + QKK / 2};
    static const loom_type_info q5_kx8 = {"Q5_Kx8", QKK, 4 + 12 + QKK / 8 + QKK / 2};
    static const loom_type_info q6_kx8 = {"Q6_Kx8", QKK, QKK / 2 + QKK / 4 + QKK / 16 + 2};
    switch (type) {
    case LOOM_TYPE_F32: return &f32;
    case LOOM_TYPE_F16: return &f16;
    case LOOM_TYPE_BF16: return &bf16;
    case LOOM_TYPE_Q4_0: return &q4_0;
    case LOOM_TYPE_Q4_1: return &q4_1;
    case LOOM_TYPE_Q5_0: return &q5_0;
    case LOOM_TYPE_Q5_1: return &q5_1;
    case LOOM_TYPE_Q8_0: return &q8_0;
    case LOOM_TYPE_Q8_1: return &q8_1;
    case LOOM_TYPE_Q2_K: return &q2_k;
    case LOOM_TYPE_Q3_K: return &q3_k;
    case LOOM_TYPE_Q4_K: return &q4_k;
    case LOOM_TYPE_Q5_K: return &q5_k;
    case LOOM_TYPE_Q6_K: return &q6_k;
    case LOOM_TYPE_Q8_K: return &q8_k;
    case LOOM_TYPE_Q4_0_X8: return &q4_0x8;
    case LOOM_TYPE_Q4_1_X8: return &q4_1x8;
    case LOOM_TYPE_Q5_0_X8: return &q5_0x8;
    case LOOM_TYPE_Q5_1_X8: return &q5_1x8;
    case LOOM_TYPE_Q8_0_X8: return &q8_0x8;
    case LOOM_TYPE_Q2_K_X8: return &q2_kx8;
    case LOOM_TYPE_Q3_K_X8: return &q3_kx8;
    case LOOM_TYPE_Q4_K_X8: return &q4_kx8;
    case LOOM_TYPE_Q5_K_X8: return &q5_kx8;
    case LOOM_TYPE_Q6_K_X8: return &q6_kx8;
    default: return 0;
    }
}

bool loom_type_supported(int type) { return type < 256 && info_for(type) != 0; }

const char *loom_type_name(int type) {
    const loom_type_info *i = info_for(type);
    return i ? i->name : 0;
}

int64_t loom_type_block_elems(int type) {
    const loom_type_info *i = info_for(type);
    return i ? i->block_elems : 0;
}

size_t loom_type_block_bytes(int type) {
    const loom_type_info *i = info_for(type);
    return i ? i->block_bytes : 0;
}

size_t loom_row_bytes(int type, int64_t n) {
    const loom_type_info *i = info_for(type);
    if (!i || n % i->block_elems != 0) return 0;
    return (size_t)(n / i->block_elems) * i->block_bytes;
}
