// Activation quantization to A16 rows (see quant_blocks.h): scalar reference tier.
// The AVX2 tier computes the same scale and the same round-to-nearest-even integers, so both
// tiers feed identical q values to the products; only the f32 sums may differ in the last bit
// (summation order).
#include <math.h>
#include "quant_blocks.h"

void loom_quantize_a16_ref(const float *x, void *dst, int64_t n) {
    loom_a16_mut a = loom_a16_view_mut(dst, n);
    for (int64_t i = 0; i < n / 32; i++) {
        const float *xb = x + 32 * i;
        float amax = 0.0f;
        for (int l = 0; l < 32; l++) amax = fmaxf(amax, fabsf(xb[l]));
        float id = amax > 0.0f ? LOOM_A16_MAX / amax : 0.0f;
        a.d[i] = amax / LOOM_A16_MAX;
        for (int h = 0; h < 2; h++) {
            float s = 0.0f;
            int32_t qs = 0;
            for (int l = 16 * h; l < 16 * h + 16; l++) {
                s += xb[l];
                a.q[32 * i + l] = (int16_t)lrintf(xb[l] * id);
                qs += a.q[32 * i + l];
            }
            a.sum16[2 * i + h] = s;
            a.qsum16[2 * i + h] = (float)qs;
        }
        a.sum32[i] = a.sum16[2 * i] + a.sum16[2 * i + 1];
        a.qsum32[i] = a.qsum16[2 * i] + a.qsum16[2 * i + 1];
        // A NaN or infinity would otherwise vanish into integer rounding; a NaN scale makes
        // every product that reads this group NaN, as a float dot product would be.
        if (!(fabsf(a.sum32[i]) <= 3.4028235e38f)) a.d[i] = __builtin_nanf("");
    }
}
