/* The streaming floor of a memory-bound op (bench/): the least work that reads `inputs` float arrays
 * and writes `outputs` (which may be among the inputs: an in-place op), n elements each, in one pass,
 * so that an op's time over this loop's on the same bytes and threads says how far it is from what the
 * memory system allows. Work goes in blocks small enough to stay in L1, every array advancing together. */
#include "kernels.h"

enum { BLOCK = 256 };

static void accumulate(float *restrict sum, const float *restrict in, int64_t count)
{
    for (int64_t i = 0; i < count; i++)
        sum[i] += in[i];
}

static void store(float *restrict out, const float *restrict sum, int64_t count)
{
    for (int64_t i = 0; i < count; i++)
        out[i] = sum[i];
}

void opemu_kernel_stream(void *const *arrays, int inputs, int outputs, int64_t n)
{
    float sum[BLOCK];
    for (int64_t lo = 0; lo < n; lo += BLOCK) {
        int64_t count = n - lo < BLOCK ? n - lo : BLOCK;
        for (int64_t i = 0; i < count; i++)
            sum[i] = 0;
        for (int a = 0; a < inputs; a++)
            accumulate(sum, (const float *)arrays[a] + lo, count);
        for (int a = 0; a < outputs; a++)
            store((float *)arrays[inputs + a] + lo, sum, count);
    }
}
