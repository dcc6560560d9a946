/* Rounding fp32 values in place to bfloat16 precision (rounding.h's steps), in one pass instead of five
 * NumPy passes and a scratch array. */
#include "kernels.h"
#include "rounding.h"

void opemu_kernel_round_bf16(float *values, int64_t n)
{
    for (int64_t i = 0; i < n; i++)
        values[i] = opemu_round_bf16(values[i]);
}
