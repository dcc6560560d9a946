/* Rounding fp32 values in place to bfloat16 precision (python/opemu/core/rounding.py round_in_place is the
 * reference): the same integer steps on each value's bit pattern — add 0x7FFF plus the lowest kept bit,
 * drop the low 16 bits — in one pass instead of five NumPy passes and a scratch array. */
#include <string.h>

#include "kernels.h"

void opemu_kernel_round_bf16(float *values, int64_t n)
{
    for (int64_t i = 0; i < n; i++) {
        uint32_t bits;
        memcpy(&bits, &values[i], sizeof bits);
        bits += 0x7FFFu + ((bits >> 16) & 1u);
        bits &= 0xFFFF0000u;
        memcpy(&values[i], &bits, sizeof bits);
    }
}
