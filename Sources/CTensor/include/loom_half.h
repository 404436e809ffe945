// loom_half.h — IEEE half (F16) and bfloat16 conversions, exact and portable.
// Inline so every kernel file can use them; SIMD files use F16C/AVX-512 instructions instead.
#ifndef LOOM_HALF_H
#define LOOM_HALF_H

#include <stdint.h>
#include <string.h>

typedef uint16_t loom_fp16;
typedef uint16_t loom_bf16;

static inline float loom_bits_to_f32(uint32_t u) { float f; memcpy(&f, &u, 4); return f; }
static inline uint32_t loom_f32_to_bits(float f) { uint32_t u; memcpy(&u, &f, 4); return u; }

/// F16 → F32, exact for every input (subnormals, infinities, NaN payloads).
static inline float loom_fp16_to_fp32(loom_fp16 h) {
    uint32_t sign = (uint32_t)(h & 0x8000) << 16;
    uint32_t exp = (h >> 10) & 0x1F;
    uint32_t mant = h & 0x3FF;
    if (exp == 0x1F) return loom_bits_to_f32(sign | 0x7F800000u | (mant << 13));
    if (exp == 0) {
        if (mant == 0) return loom_bits_to_f32(sign);
        // Subnormal: value = mant * 2^-24.
        float v = (float)mant * (1.0f / 16777216.0f);
        return sign ? -v : v;
    }
    return loom_bits_to_f32(sign | ((exp + 112) << 23) | (mant << 13));
}

/// F32 → F16 with round-to-nearest-even, as the hardware conversion does.
static inline loom_fp16 loom_fp32_to_fp16(float f) {
    uint32_t x = loom_f32_to_bits(f);
    uint32_t sign = (x >> 16) & 0x8000;
    uint32_t absx = x & 0x7FFFFFFFu;
    if (absx > 0x7F800000u) return (loom_fp16)(sign | 0x7E00 | ((absx >> 13) & 0x3FF));  // NaN
    if (absx >= 0x477FF000u) return (loom_fp16)(sign | 0x7C00);                           // overflow → inf
    if (absx < 0x38800000u) {
        // Subnormal or zero in F16: round absx * 2^24 to an integer, ties to even.
        float a = loom_bits_to_f32(absx) * 16777216.0f;
        uint32_t q = (uint32_t)a;
        float rem = a - (float)q;
        if (rem > 0.5f || (rem == 0.5f && (q & 1))) q++;
        return (loom_fp16)(sign | q);
    }
    uint32_t mant = absx & 0x7FFFFF;
    uint32_t exp = (absx >> 23) - 112;
    uint32_t h = (exp << 10) | (mant >> 13);
    uint32_t round = mant & 0x1FFF;
    if (round > 0x1000 || (round == 0x1000 && (h & 1))) h++;
    return (loom_fp16)(sign | h);
}

/// BF16 → F32 (exact: bf16 is the top half of an f32).
static inline float loom_bf16_to_fp32(loom_bf16 b) { return loom_bits_to_f32((uint32_t)b << 16); }

/// F32 → BF16 with round-to-nearest-even (NaN kept quiet).
static inline loom_bf16 loom_fp32_to_bf16(float f) {
    uint32_t x = loom_f32_to_bits(f);
    if ((x & 0x7FFFFFFFu) > 0x7F800000u) return (loom_bf16)((x >> 16) | 0x40);
    return (loom_bf16)((x + 0x7FFF + ((x >> 16) & 1)) >> 16);
}

#endif
