// Activation quantization to A16 blocks (see quant_blocks.h): scalar reference tier.
// The AVX2 tier computes the same scale and the same round-to-nearest-even integers, so both
// tiers feed identical q values to the products; only the f32 half sums may differ in the
// last bit (summation order).
#include <math.h>
#include "quant_blocks.h"

void loom_quantize_a16_ref(const float *x, loom_block_a16 *dst, int64_t n) {
    for (int64_t i = 0; i < n / 32; i++) {
        const float *xb = x + 32 * i;
        loom_block_a16 *o = dst + i;
        float amax = 0.0f;
        for (int l = 0; l < 32; l++) amax = fmaxf(amax, fabsf(xb[l]));
        float id = amax > 0.0f ? LOOM_A16_MAX / amax : 0.0f;
        o->d = amax / LOOM_A16_MAX;
        o->pad = 0.0f;
        for (int h = 0; h < 2; h++) {
            float s = 0.0f;
            for (int l = 16 * h; l < 16 * h + 16; l++) {
                s += xb[l];
                o->q[l] = (int16_t)lrintf(xb[l] * id);
            }
            o->sum[h] = s;
        }
    }
}
