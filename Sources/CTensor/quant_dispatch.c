// quant_dispatch.c — one traits table per tier, and the public entry points of loom_quant.h.
//
// ACCURACY vs SPEED: how activations meet quantized weights.
//   ggml quantizes activations to int8 (Q8_0 per 32, Q8_K per 256) and multiplies with
//   maddubs; that rounding is what costs llama.cpp up to 2.1 logits on SmolLM2-Q4_1 against
//   the exact float64 reference (shared/reference/README.md). Loom quantizes activations to
//   int16 per 32 (A16, quant_blocks.h) and multiplies with vpmaddwd, then one f32 FMA per 32
//   weights; the min terms of Q4_1/Q5_1/Q2_K/Q4_K/Q5_K use the exact f32 sums of x.
//
//   Measured (Zen 3 VM, 256 random rows x 2048, Gaussian x with 20x outliers every 97th
//   element; error of the dot product against float64 on the same dequantized weights):
//       type   mean |y|   A16 mean err (max)     int8-per-32 mean err (max)   int8/A16
//       Q4_0     8.5      3.9e-4 (1.6e-3)        1.1e-1 (4.1e-1)              269x
//       Q4_1    23.6      6.0e-4 (1.7e-3)        1.2e-1 (4.2e-1)              203x
//       Q5_0    15.9      6.5e-4 (2.5e-3)        1.8e-1 (7.8e-1)              275x
//       Q8_0   136.5      5.7e-3 (1.7e-2)        1.5e+0 (5.3e+0)              270x
//       Q2_K     7.2      4.0e-4 (1.6e-3)        9.5e-2 (3.6e-1)              239x
//       Q3_K    19.8      9.0e-4 (3.2e-3)        2.4e-1 (9.9e-1)              266x
//       Q4_K   106.4      5.9e-3 (3.0e-2)        1.4e+0 (6.5e+0)              241x
//       Q5_K   251.6      1.6e-2 (5.5e-2)        3.7e+0 (1.5e+1)              228x
//       Q6_K   698.1      3.0e-2 (1.2e-1)        8.5e+0 (4.1e+1)              280x
//   i.e. A16 errs ~1e-5 relative: indistinguishable from f32 accumulation noise at the logit
//   level, where int8 costs ~1e-2 relative. F32 activations with in-register dequantization
//   would be exact but cost a convert and 4 FMAs per 32 weights instead of 2 vpmaddwd + 1 FMA.
//
//   Speed, single thread, weights in L2 (pure compute cost, ns per 32 weights, AVX2):
//       Q8_0 1.35  Q4_0 1.85  Q4_1 1.8  Q4_K 1.85  Q5_K 2.4  Q5_0/Q5_1 2.7  Q6_K 2.6
//       Q2_K 2.4   Q3_K 2.8   F16/BF16/F32 2.5
//   so one core decodes Q4_K at ~9-10 GB/s of weights and Q8_0 at ~24 GB/s, and two cores
//   reach the memory bandwidth for the common formats: on a less busy moment of the shared
//   dev host (2-thread read 15.5 GB/s) 2-thread matvec ran Q8_0 14.9, Q6_K 15.2, Q5_0 13.3,
//   Q4_1 13.2, Q4_K 11.2 GB/s (llama.cpp: ~9 GB/s). `loom bench kernels` measures this.
//   Where a Q4_K chunk's time goes (in L2): decode and group set-up ~60%, vpmaddwd ~10%,
//   the f32 convert + scaled FMA ~30%; a per-256 activation scale with int16 pre-scaled
//   weights would remove most of the last part, at some accuracy and an overflow margin.
//
// Tiers: `ref` is portable C (the reference every other tier is tested against), `avx2` needs
// AVX2+FMA+F16C. The AVX-512 tier (with VNNI) has its own kernels for the interleaved layouts
// (loom_repack_x8), where vpdpwssd and 32 registers pay, and for the row-major split-scale
// K-quants (quant_k_avx512.c: one 512-bit step serves a chunk's two separately scaled halves,
// 1.7-1.9x the AVX2 loops' rate on a Zen 5 EPYC); for the other row-major formats it runs the
// AVX2 kernels, which measured as fast on Zen 4 (512-bit operations issue as two halves).
#include "quant_blocks.h"
#include "loom_cpu.h"

#define TRAITS(t, tier, isf) { loom_dequantize_row_##t##_##tier, loom_product_##t##_##tier, isf }

// Indexed by loom_type_slot(). Interleaved layouts have no row of their own to dequantize
// (loom_dequantize_rows reads them), so their slots carry a product only; `x8` names the tier
// whose interleaved kernels a table uses.
// `ks` names the tier whose products serve the split-scale K-quants (Q2_K, Q3_K, Q6_K).
#define TRAITS_FROM(t, tier, product_tier) { loom_dequantize_row_##t##_##tier, loom_product_##t##_##product_tier, 0 }
#define TIER_TABLE(tier, ks, x8)                                                                   \
    {                                                                                              \
        TRAITS(f32, tier, 1), TRAITS(f16, tier, 1), TRAITS(bf16, tier, 1),                         \
        TRAITS(q4_0, tier, 0), TRAITS(q4_1, tier, 0), TRAITS(q5_0, tier, 0), TRAITS(q5_1, tier, 0), \
        TRAITS(q8_0, tier, 0), TRAITS(q8_1, tier, 0), TRAITS_FROM(q2_K, tier, ks),                 \
        TRAITS_FROM(q3_K, tier, ks), TRAITS(q4_K, tier, 0), TRAITS(q5_K, tier, 0),                 \
        TRAITS_FROM(q6_K, tier, ks), TRAITS(q8_K, tier, 0),                                        \
        { 0, loom_product_q4_0x8_##x8, 0 }, { 0, loom_product_q4_1x8_##x8, 0 },                    \
        { 0, loom_product_q5_0x8_##x8, 0 }, { 0, loom_product_q5_1x8_##x8, 0 },                    \
        { 0, loom_product_q8_0x8_##x8, 0 }, { 0, loom_product_q4_Kx8_##x8, 0 },                    \
        { 0, loom_product_q5_Kx8_##x8, 0 }, { 0, loom_product_q6_Kx8_##x8, 0 },                    \
        { 0, loom_product_q2_Kx8_##x8, 0 }, { 0, loom_product_q3_Kx8_##x8, 0 },                    \
    }

#define N_SLOTS 25
// Slots from here on hold the interleaved layouts.
#define FIRST_X8_SLOT 15

static const loom_quant_traits table_ref[N_SLOTS] = TIER_TABLE(ref, ref, ref);
#if defined(__x86_64__)
static const loom_quant_traits table_avx2[N_SLOTS] = TIER_TABLE(avx2, avx2, avx2);
// AVX-512 replaces only the kernels it runs faster: the interleaved products (VNNI) and the
// split-scale K-quants' products.
static const loom_quant_traits table_avx512[N_SLOTS] = TIER_TABLE(avx2, avx512, avx512);
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
    case LOOM_TYPE_Q4_0_X8: return 15;
    case LOOM_TYPE_Q4_1_X8: return 16;
    case LOOM_TYPE_Q5_0_X8: return 17;
    case LOOM_TYPE_Q5_1_X8: return 18;
    case LOOM_TYPE_Q8_0_X8: return 19;
    case LOOM_TYPE_Q4_K_X8: return 20;
    case LOOM_TYPE_Q5_K_X8: return 21;
    case LOOM_TYPE_Q6_K_X8: return 22;
    case LOOM_TYPE_Q2_K_X8: return 23;
    case LOOM_TYPE_Q3_K_X8: return 24;
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
    if (usable(isa) >= LOOM_ISA_AVX512 && loom_cpu_features_get()->avx512vnni) return table_avx512;
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

// A call the kernels cannot serve (unknown type, a row that is not whole blocks) must not
// return plausible numbers: its outputs become NaN, which every later check notices. Callers
// validate types and shapes when a model loads (loom_type_supported, loom_row_bytes != 0).
static bool shape_ok(int type, int64_t n) {
    int64_t qk = loom_type_block_elems(type);
    return qk > 0 && n >= 0 && n % qk == 0;
}

static void poison(float *y, int64_t ldy, int64_t n_batch, int64_t r_begin, int64_t r_end) {
    for (int64_t b = 0; b < n_batch; b++)
        for (int64_t r = r_begin; r < r_end; r++) y[b * ldy + r] = __builtin_nanf("");
}

bool loom_type_is_interleaved(int type) { return type_slot(type) >= FIRST_X8_SLOT; }

bool loom_matmul_beats_sgemm(int type) {
#if defined(__x86_64__)
    return loom_type_is_interleaved(type) && tier_table(loom_isa_active()) == table_avx512;
#else
    (void)type;
    return false;
#endif
}

bool loom_type_is_float(int type) {
    return type == LOOM_TYPE_F32 || type == LOOM_TYPE_F16 || type == LOOM_TYPE_BF16;
}

size_t loom_activation_bytes(int64_t n) { return loom_a16_bytes(n); }

void loom_quantize_activation_isa(loom_isa isa, const float *x, int64_t n, void *dst) {
    if (n % 32 != 0 || n < 0) return;
    quantizer(isa)(x, dst, n);
}

void loom_quantize_activation(const float *x, int64_t n, void *dst) {
    loom_quantize_activation_isa(loom_isa_active(), x, n, dst);
}

void loom_dequantize_row_isa(loom_isa isa, int type, const void *src, float *dst, int64_t n) {
    const loom_quant_traits *t = traits_for(isa, type);
    if (t && t->dequantize && shape_ok(type, n)) t->dequantize(src, dst, n);
    else poison(dst, 0, 1, 0, n);
}

void loom_dequantize_row(int type, const void *src, float *dst, int64_t n) {
    loom_dequantize_row_isa(loom_isa_active(), type, src, dst, n);
}

// The default entry points quantize x on the stack, a column chunk at a time, so they never
// allocate and never need a caller's scratch. 24 KB of A16 cover rows of up to 8192 columns
// in one pass for a matvec; longer rows (and batches) accumulate chunk by chunk.
#define STACK_A16_COLS 8192

void loom_matmul_isa(loom_isa isa, int type, const void *w, size_t row_bytes, int64_t n_cols,
                     const float *x, int64_t ldx, float *y, int64_t ldy, int64_t n_batch,
                     int64_t r_begin, int64_t r_end) {
    const loom_quant_traits *t = traits_for(isa, type);
    if (r_end <= r_begin || n_batch <= 0) return;
    if (!t || !shape_ok(type, n_cols)) {
        poison(y, ldy, n_batch, r_begin, r_end);
        return;
    }
    if (t->float_activations) {
        t->product(w, row_bytes, n_cols, x, ldx, 0, 0, y, ldy, n_batch, r_begin, r_end, 0);
        return;
    }
    // float storage keeps the buffer 4-byte aligned for the A16 scale and sum arrays
    // (loom_a16_bytes: 2.875 bytes per column, within 3).
    float stack[STACK_A16_COLS * 3 / 4];
    loom_quant_act_fn quantize = quantizer(isa);
    int64_t qk = loom_type_block_elems(type);
    // A column chunk starts this many bytes into each row (into each group of eight, for the
    // interleaved layouts, whose blocks hold eight rows' blocks).
    size_t block_bytes = loom_type_block_bytes(type) * (loom_type_is_interleaved(type) ? 8 : 1);
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

static void matmul_q(loom_isa isa, int type, const void *w, size_t row_bytes, int64_t n_cols, const float *x,
                     int64_t ldx, const void *xq, size_t xq_stride, float *y, int64_t ldy, int64_t n_batch,
                     int64_t r_begin, int64_t r_end, int accumulate) {
    const loom_quant_traits *t = traits_for(isa, type);
    if (r_end <= r_begin || n_batch <= 0) return;
    if (!t || !shape_ok(type, n_cols)) {
        poison(y, ldy, n_batch, r_begin, r_end);
        return;
    }
    t->product(w, row_bytes, n_cols, x, ldx, xq, xq_stride, y, ldy, n_batch, r_begin, r_end, accumulate);
}

void loom_matmul_q_isa(loom_isa isa, int type, const void *w, size_t row_bytes, int64_t n_cols,
                       const float *x, int64_t ldx, const void *xq, size_t xq_stride,
                       float *y, int64_t ldy, int64_t n_batch, int64_t r_begin, int64_t r_end) {
    matmul_q(isa, type, w, row_bytes, n_cols, x, ldx, xq, xq_stride, y, ldy, n_batch, r_begin, r_end, 0);
}

void loom_matmul_q(int type, const void *w, size_t row_bytes, int64_t n_cols,
                   const float *x, int64_t ldx, const void *xq, size_t xq_stride,
                   float *y, int64_t ldy, int64_t n_batch, int64_t r_begin, int64_t r_end) {
    loom_matmul_q_isa(loom_isa_active(), type, w, row_bytes, n_cols, x, ldx, xq, xq_stride, y, ldy, n_batch,
                      r_begin, r_end);
}

void loom_matmul_q_accumulate(int type, const void *w, size_t row_bytes, int64_t n_cols,
                              const float *x, int64_t ldx, const void *xq, size_t xq_stride,
                              float *y, int64_t ldy, int64_t n_batch, int64_t r_begin, int64_t r_end) {
    matmul_q(loom_isa_active(), type, w, row_bytes, n_cols, x, ldx, xq, xq_stride, y, ldy, n_batch, r_begin, r_end,
             1);
}

void loom_matvec_q(int type, const void *w, size_t row_bytes, int64_t n_cols,
                   const float *x, const void *xq, float *y, int64_t r_begin, int64_t r_end) {
    loom_matmul_q_isa(loom_isa_active(), type, w, row_bytes, n_cols, x, n_cols, xq, loom_a16_bytes(n_cols), y, 0, 1,
                      r_begin, r_end);
}

void loom_matvec_q_accumulate(int type, const void *w, size_t row_bytes, int64_t n_cols,
                              const float *x, const void *xq, float *y, int64_t r_begin, int64_t r_end) {
    matmul_q(loom_isa_active(), type, w, row_bytes, n_cols, x, n_cols, xq, loom_a16_bytes(n_cols), y, 0, 1,
             r_begin, r_end, 1);
}
