/* Exact widening of fp16 and bf16 bit patterns to fp32, as NumPy (npy_halfbits_to_floatbits) and ml_dtypes
 * widen them: every half value, NaN payloads included, has an fp32 twin. */
#ifndef OPEMU_KERNELS_WIDEN_H
#define OPEMU_KERNELS_WIDEN_H

#include <stdint.h>
#include <string.h>

static inline __attribute__((always_inline)) float opemu_float_of_bits(uint32_t bits)
{
    float value;
    memcpy(&value, &bits, sizeof value);
    return value;
}

static inline __attribute__((always_inline)) float opemu_half_to_float(uint16_t h)
{
    uint32_t sign = (uint32_t)(h & 0x8000u) << 16, exp = h & 0x7c00u, sig = h & 0x03ffu;
    if (exp == 0x7c00u)
        return opemu_float_of_bits(sign | 0x7f800000u | (sig << 13));
    if (exp == 0) {
        if (sig == 0)
            return opemu_float_of_bits(sign);
        int shift = 0;
        while (!(sig & 0x0400u)) { sig <<= 1; shift++; }
        return opemu_float_of_bits(sign | ((uint32_t)(127 - 15 - shift + 1) << 23) | ((sig & 0x03ffu) << 13));
    }
    return opemu_float_of_bits(sign | (((exp >> 10) + 112u) << 23) | (sig << 13));
}

static inline __attribute__((always_inline)) float opemu_bf16_to_float(uint16_t h)
{
    return opemu_float_of_bits((uint32_t)h << 16);
}

#endif
