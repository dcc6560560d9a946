/* Row sums as NumPy's add.reduce forms them (numpy/_core/src/umath/loops_utils.h: pairwise summation),
 * so a reduction over a row's last axis gives NumPy's bits in one pass on the caller's threads.
 *
 * NumPy (2.x) adds the pairwise sum of a whole row to +0: below 8 elements a plain running sum from +0;
 * up to 128 eight running sums (element i into sum i mod 8), combined as ((s0+s1)+(s2+s3))+((s4+s5)+(s6+s7)),
 * then the tail in order; longer runs split in two halves (the first a multiple of 8 long) summed apart
 * and added. The eight running sums are one vector register: the leaf is cloned for AVX2 and AVX-512. */
#include "kernels.h"

#define PAIRWISE_BLOCK 128

#define DEFINE_PAIRWISE(name, type)                                                        \
    __attribute__((target_clones("avx512f", "avx2", "default")))                           \
    static type name##_leaf(const type *a, int64_t n)                                      \
    {                                                                                      \
        if (n < 8) {                                                                       \
            type sum = 0;                                                                  \
            for (int64_t i = 0; i < n; i++)                                                \
                sum += a[i];                                                               \
            return sum;                                                                    \
        }                                                                                  \
        {                                                                                  \
            type r[8];                                                                     \
            for (int j = 0; j < 8; j++)                                                    \
                r[j] = a[j];                                                               \
            int64_t i = 8;                                                                 \
            for (; i < n - (n % 8); i += 8)                                                \
                for (int j = 0; j < 8; j++)                                                \
                    r[j] += a[i + j];                                                      \
            type sum = ((r[0] + r[1]) + (r[2] + r[3])) + ((r[4] + r[5]) + (r[6] + r[7]));  \
            for (; i < n; i++)                                                             \
                sum += a[i];                                                               \
            return sum;                                                                    \
        }                                                                                  \
    }                                                                                      \
    static type name(const type *a, int64_t n)                                             \
    {                                                                                      \
        if (n <= PAIRWISE_BLOCK)                                                           \
            return name##_leaf(a, n);                                                      \
        int64_t half = n / 2;                                                              \
        half -= half % 8;                                                                  \
        return name(a, half) + name(a + half, n - half);                                   \
    }

DEFINE_PAIRWISE(pairwise_float, float)
DEFINE_PAIRWISE(pairwise_double, double)

int opemu_kernel_row_sum(int size, const void *x, int64_t row_stride, int64_t rows, int64_t cols, void *out)
{
    if (cols < 0 || (size != 4 && size != 8))
        return -1;
    for (int64_t r = 0; r < rows; r++) {
        if (size == 4) {
            const float *row = (const float *)x + r * row_stride;
            ((float *)out)[r] = 0.0f + pairwise_float(row, cols);
        } else {
            const double *row = (const double *)x + r * row_stride;
            ((double *)out)[r] = 0.0 + pairwise_double(row, cols);
        }
    }
    return 0;
}
