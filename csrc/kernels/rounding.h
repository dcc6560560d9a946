/* Rounding an fp32 value to bfloat16 precision (python/opemu/core/rounding.py round_in_place is the reference):
 * the same integer steps on its bit pattern — add 0x7FFF plus the lowest kept bit, drop the low 16 bits. */
#ifndef OPEMU_KERNELS_ROUNDING_H
#define OPEMU_KERNELS_ROUNDING_H

#include <stdint.h>
#include <string.h>

static inline __attribute__((always_inline)) float opemu_round_bf16(float value)
{
    uint32_t bits;
    memcpy(&bits, &value, sizeof bits);
    bits += 0x7FFFu + ((bits >> 16) & 1u);
    bits &= 0xFFFF0000u;
    memcpy(&value, &bits, sizeof bits);
    return value;
}

#endif
