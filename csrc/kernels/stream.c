/* The streaming floor of a memory-bound op (bench/): the fewest instructions that read `inputs` float
 * arrays and write `outputs`, one pass over n elements, so that an op's time over this loop's time on
 * the same bytes and threads says how far it is from the memory system's limit. */
#include "kernels.h"

void opemu_kernel_stream(uintptr_t const *arrays, int inputs, int outputs, int64_t n)
{
    enum { BLOCK = 1024 };
    float sum[BLOCK];
    for (int64_t lo = 0; lo < n; lo += BLOCK) {
        int64_t count = n - lo < BLOCK ? n - lo : BLOCK;
        for (int64_t i = 0; i < count; i++)
            sum[i] = 0;
        for (int a = 0; a < inputs; a++) {
            const float *in = (const float *)arrays[a] + lo;
            for (int64_t i = 0; i < count; i++)
                sum[i] += in[i];
        }
        for (int a = 0; a < outputs; a++) {
            float *out = (float *)arrays[inputs + a] + lo;
            for (int64_t i = 0; i < count; i++)
                out[i] = sum[i];
        }
    }
}
