// quant_dispatch.c — one traits table per tier, and the public entry points of loom_quant.h.
//
// ACCURACY vs SPEED: how activations meet quantized weights.
//   ggml quantizes activations to int8 (Q8_0 / Q8_K) and multiplies with maddubs; that int8
//   rounding is what costs llama.cpp up to 2.1 logits on SmolLM2-Q4_1 (shared/reference).
//   Loom quantizes activations to int16 per 32 elements (A16, quant_blocks.h) and multiplies
//   with vpmaddwd: 256x finer than int8, and the min terms of Q4_1/Q5_1/Q2_K/Q4_K/Q5_K use the
//   exact f32 sums of x, so they carry no activation rounding at all.
//   MEASURED_NUMBERS_PLACEHOLDER
//
// Tiers: `ref` is portable C (the reference every other tier is tested against), `avx2` needs
// AVX2+FMA+F16C. The AVX-512 tier currently reuses the AVX2 kernels: the development machine
// (AMD Zen 3) has no AVX-512, and SIMD code that has never run is not shipped.
#include "quant_blocks.h"
#include "loom_cpu.h"

#define TRAITS(t, tier, isf) { loom_dequantize_row_##t##_##tier, loom_product_##t##_##tier, isf }

// Indexed by loom_type_slot().
#define TIER_TABLE(tier)                                                                           \
    {                                                                                              \
        TRAITS(f32, tier, 1), TRAITS(f16, tier, 1), TRAITS(bf16, tier, 1),                         \
        TRAITS(q4_0, tier, 0), TRAITS(q4_1, tier, 0), TRAITS(q5_0, tier, 0), TRAITS(q5_1, tier, 0), \
        TRAITS(q8_0, tier, 0), TRAITS(q8_1, tier, 0), TRAITS(q2_K, tier, 0), TRAITS(q3_K, tier, 0), \
        TRAITS(q4_K, tier, 0), TRAITS(q5_K, tier, 0), TRAITS(q6_K, tier, 0), TRAITS(q8_K, tier, 0), \
    }

#define N_SLOTS 15

static const loom_quant_traits table_ref[N_SLOTS] = TIER_TABLE(ref);
#if defined(__x86_64__)
static const loom_quant_traits table_avx2[N_SLOTS] = TIER_TABLE(avx2);
#endif

static int type_slot(int type) {
    switch (type) {
    case LOOM_TYPE_F32: return 0;
    case LOOM_TYPE_F16: return 1;
    case LOOM_TYPE_BF16: return 2;
    case LOOM_TYPE_Q4_0: return 3;
    case LOOM_TYPE_Q4_1: return 4;
    case LOOM_TYPE_Q5_0: return 5;
    case LOOM_TYPE_Q5_1: return 6;
    case LOOM_TYPE_Q8_0: return 7;
    case LOOM_TYPE_Q8_1: return 8;
    case LOOM_TYPE_Q2_K: return 9;
    case LOOM_TYPE_Q3_K: return 10;
    case LOOM_TYPE_Q4_K: return 11;
    case LOOM_TYPE_Q5_K: return 12;
    case LOOM_TYPE_Q6_K: return 13;
    case LOOM_TYPE_Q8_K: return 14;
    default: return -1;
    }
}

// Tiers above what the machine runs are clamped, so a tier-explicit call is always safe.
static loom_isa usable(loom_isa isa) {
    loom_isa best = loom_isa_best();
    return isa < best ? isa : best;
}

static const loom_quant_traits *tier_table(loom_isa isa) {
#if defined(__x86_64__)
    if (usable(isa) >= LOOM_ISA_AVX2) return table_avx2;
#else
    (void)isa;
#endif
    return table_ref;
}

static loom_quant_act_fn quantizer(loom_isa isa) {
#if defined(__x86_64__)
    if (usable(isa) >= LOOM_ISA_AVX2) return loom_quantize_a16_avx2;
#else
    (void)isa;
#endif
    return loom_quantize_a16_ref;
}

static const loom_quant_traits *traits_for(loom_isa isa, int type) {
    int s = type_slot(type);
    return s < 0 ? 0 : &tier_table(isa)[s];
}

bool loom_type_is_float(int type) {
    return type == LOOM_TYPE_F32 || type == LOOM_TYPE_F16 || type == LOOM_TYPE_BF16;
}

size_t loom_activation_bytes(int64_t n) { return loom_a16_bytes(n); }

void loom_quantize_activation_isa(loom_isa isa, const float *x, int64_t n, void *dst) {
    quantizer(isa)(x, dst, n);
}

void loom_quantize_activation(const float *x, int64_t n, void *dst) {
    loom_quantize_activation_isa(loom_isa_active(), x, n, dst);
}

void loom_dequantize_row_isa(loom_isa isa, int type, const void *src, float *dst, int64_t n) {
    const loom_quant_traits *t = traits_for(isa, type);
    if (t) t->dequantize(src, dst, n);
}

void loom_dequantize_row(int type, const void *src, float *dst, int64_t n) {
    loom_dequantize_row_isa(loom_isa_active(), type, src, dst, n);
}

// The default entry points quantize x on the stack, a column chunk at a time, so they never
// allocate and never need a caller's scratch. 20 KB of A16 cover rows of up to 8192 columns
// in one pass for a matvec; longer rows (and batches) accumulate chunk by chunk.
#define STACK_A16_COLS 8192

void loom_matmul_isa(loom_isa isa, int type, const void *w, size_t row_bytes, int64_t n_cols,
                     const float *x, int64_t ldx, float *y, int64_t ldy, int64_t n_batch,
                     int64_t r_begin, int64_t r_end) {
    const loom_quant_traits *t = traits_for(isa, type);
    if (!t || r_end <= r_begin || n_batch <= 0) return;
    if (t->float_activations) {
        t->product(w, row_bytes, n_cols, x, ldx, 0, 0, y, ldy, n_batch, r_begin, r_end, 0);
        return;
    }
    // float storage keeps the buffer 4-byte aligned for the A16 scale and sum arrays.
    float stack[STACK_A16_COLS * 5 / 8];
    loom_quant_act_fn quantize = quantizer(isa);
    int64_t qk = loom_type_block_elems(type);
    size_t block_bytes = loom_type_block_bytes(type);
    for (int64_t b0 = 0; b0 < n_batch; b0 += 32) {
        int64_t nbg = n_batch - b0 < 32 ? n_batch - b0 : 32;
        // Chunk width: as wide as the stack allows, in whole 256-column steps (K-quant blocks).
        int64_t chunk = STACK_A16_COLS / nbg;
        chunk -= chunk % 256;
        for (int64_t c0 = 0; c0 < n_cols; c0 += chunk) {
            int64_t cn = n_cols - c0 < chunk ? n_cols - c0 : chunk;
            size_t stride = loom_a16_bytes(cn);
            for (int64_t b = 0; b < nbg; b++) quantize(x + (b0 + b) * ldx + c0, (char *)stack + b * stride, cn);
            const char *wc = (const char *)w + (size_t)(c0 / qk) * block_bytes;
            t->product(wc, row_bytes, cn, 0, 0, stack, stride, y + b0 * ldy, ldy, nbg, r_begin, r_end, c0 > 0);
        }
    }
}

void loom_matmul(int type, const void *w, size_t row_bytes, int64_t n_cols,
                 const float *x, int64_t ldx, float *y, int64_t ldy, int64_t n_batch,
                 int64_t r_begin, int64_t r_end) {
    loom_matmul_isa(loom_isa_active(), type, w, row_bytes, n_cols, x, ldx, y, ldy, n_batch, r_begin, r_end);
}

void loom_matvec(int type, const void *w, size_t row_bytes, int64_t n_cols,
                 const float *x, float *y, int64_t r_begin, int64_t r_end) {
    loom_matmul_isa(loom_isa_active(), type, w, row_bytes, n_cols, x, n_cols, y, 0, 1, r_begin, r_end);
}

void loom_matmul_q_isa(loom_isa isa, int type, const void *w, size_t row_bytes, int64_t n_cols,
                       const float *x, int64_t ldx, const void *xq, size_t xq_stride,
                       float *y, int64_t ldy, int64_t n_batch, int64_t r_begin, int64_t r_end) {
    const loom_quant_traits *t = traits_for(isa, type);
    if (!t || r_end <= r_begin || n_batch <= 0) return;
    t->product(w, row_bytes, n_cols, x, ldx, xq, xq_stride, y, ldy, n_batch, r_begin, r_end, 0);
}

void loom_matmul_q(int type, const void *w, size_t row_bytes, int64_t n_cols,
                   const float *x, int64_t ldx, const void *xq, size_t xq_stride,
                   float *y, int64_t ldy, int64_t n_batch, int64_t r_begin, int64_t r_end) {
    loom_matmul_q_isa(loom_isa_active(), type, w, row_bytes, n_cols, x, ldx, xq, xq_stride, y, ldy, n_batch,
                      r_begin, r_end);
}

void loom_matvec_q(int type, const void *w, size_t row_bytes, int64_t n_cols,
                   const float *x, const void *xq, float *y, int64_t r_begin, int64_t r_end) {
    loom_matmul_q_isa(loom_isa_active(), type, w, row_bytes, n_cols, x, n_cols, xq, loom_a16_bytes(n_cols), y, 0, 1,
                      r_begin, r_end);
}
