/* Row sums as NumPy's add.reduce forms them (numpy/_core/src/umath/loops_utils.h: pairwise summation), for
 * the kernels that fuse a row sum with other work and must give NumPy's bits (csrc/kernels/norms.c), and
 * for plain row sums (opemu_kernel_row_sums: eight rows walked together, prefetched ahead; NumPy's loop
 * waits on memory, 2.3x slower on 4096x4096; four rows were 1.3x slower than eight).
 *
 * NumPy (2.x) adds the pairwise sum of a whole row to +0: below 8 elements a plain running sum from +0;
 * up to 128 eight running sums (element i into sum i mod 8), combined as ((s0+s1)+(s2+s3))+((s4+s5)+(s6+s7)),
 * then the tail in order; longer runs split in two halves (the first a multiple of 8 long) summed apart
 * and added. The eight running sums are one vector register: the leaves have a path per level (isa.h). */
#include "isa.h"
#include "pairwise.h"

#define PAIRWISE_BLOCK 128

/* The eight running sums of a leaf of n >= 8 terms, then the tail: NumPy's order. */
#define LEAF_START(r, a)                                                                   \
    for (int j = 0; j < 8; j++)                                                            \
        r[j] = a[j];
#define LEAF_ADD(r, a, i)                                                                  \
    for (int j = 0; j < 8; j++)                                                            \
        r[j] += a[(i) + j];
#define LEAF_END(type, r, a, n, sum)                                                       \
    type sum = ((r[0] + r[1]) + (r[2] + r[3])) + ((r[4] + r[5]) + (r[6] + r[7]));         \
    for (int64_t k = (n) - (n) % 8; k < (n); k++)                                          \
        sum += a[k];

/* A leaf's eight sums form one add chain; two sibling leaves (a node of 129..256 terms) may walk together,
 * two independent chains, each in its own order: the bits of two separate walks. One path per level (isa.h). */
#define DEFINE_PAIRWISE(name, type, ISA, TARGET)                                           \
    TARGET static type name##_leaf_##ISA(const type *a, int64_t n)                         \
    {                                                                                      \
        if (n < 8) {                                                                       \
            type sum = 0;                                                                  \
            for (int64_t i = 0; i < n; i++)                                                \
                sum += a[i];                                                               \
            return sum;                                                                    \
        }                                                                                  \
        type r[8];                                                                         \
        LEAF_START(r, a)                                                                   \
        for (int64_t i = 8; i < n - n % 8; i += 8) {                                       \
            LEAF_ADD(r, a, i)                                                              \
        }                                                                                  \
        LEAF_END(type, r, a, n, sum)                                                       \
        return sum;                                                                        \
    }                                                                                      \
    TARGET static type name##_leaves_##ISA(const type *a, int64_t n, const type *b, int64_t m) \
    {                                                                                      \
        type r[8], t[8];                                                                   \
        LEAF_START(r, a)                                                                   \
        LEAF_START(t, b)                                                                   \
        int64_t a_end = n - n % 8, b_end = m - m % 8, i = 8;                               \
        for (; i < a_end && i < b_end; i += 8) {                                           \
            LEAF_ADD(r, a, i)                                                              \
            LEAF_ADD(t, b, i)                                                              \
        }                                                                                  \
        for (int64_t k = i; k < a_end; k += 8) {                                           \
            LEAF_ADD(r, a, k)                                                              \
        }                                                                                  \
        for (int64_t k = i; k < b_end; k += 8) {                                           \
            LEAF_ADD(t, b, k)                                                              \
        }                                                                                  \
        LEAF_END(type, r, a, n, first)                                                     \
        LEAF_END(type, t, b, m, second)                                                    \
        return first + second;                                                             \
    }                                                                                      \
    /* siblings: two sibling leaves walk together (two chains in flight: rows in cache, the fused kernels'); \
     * else leaf after leaf, one stream (rows streamed from memory, opemu_kernel_row_sums). */        \
    static type name##_node_##ISA(const type *a, int64_t n, int siblings)                  \
    {                                                                                      \
        if (n <= PAIRWISE_BLOCK)                                                           \
            return name##_leaf_##ISA(a, n);                                                \
        int64_t half = n / 2;                                                              \
        half -= half % 8;                                                                  \
        if (siblings && n - half <= PAIRWISE_BLOCK) /* both halves leaves of >= 64 terms */ \
            return name##_leaves_##ISA(a, half, a + half, n - half);                       \
        return name##_node_##ISA(a, half, siblings) + name##_node_##ISA(a + half, n - half, siblings); \
    }

OPEMU_FOR_EACH_ISA(DEFINE_PAIRWISE, opemu_pairwise_float, float)
OPEMU_FOR_EACH_ISA(DEFINE_PAIRWISE, opemu_pairwise_double, double)

float opemu_pairwise_float(const float *a, int64_t n)
{
    return OPEMU_BY_ISA(opemu_pairwise_float_node_)(a, n, 1);
}

double opemu_pairwise_double(const double *a, int64_t n)
{
    return OPEMU_BY_ISA(opemu_pairwise_double_node_)(a, n, 1);
}

/* Row after row, leaf after leaf: one stream. On this host's EPYC (4096x4096, two threads) that took
 * 1.6 ms; eight rows walked together with software prefetch 2.6 ms (2.3 without the prefetch), sibling
 * leaves together 2.9 ms, a row's eight leaves of a 1024-term node together 2.9 ms: more streams than
 * one per core slowed every walk that had them, where an earlier host's needed them to hide latency. */
struct row_sums_job {
    int64_t n, stride;
    const float *x;
    float *out;
};

static void row_sums_piece(const void *job, int index, int64_t lo, int64_t hi)
{
    const struct row_sums_job *j = job;
    float (*const node)(const float *, int64_t, int) = OPEMU_BY_ISA(opemu_pairwise_float_node_);
    for (int64_t r = lo; r < hi; r++)
        j->out[r] = 0.0f + node(j->x + r * j->stride, j->n, 0);
}

void opemu_kernel_row_sums(int pieces, int64_t rows, int64_t n, const float *x, int64_t stride, float *out)
{
    struct row_sums_job job = {n, stride, x, out};
    opemu_pool_split(pieces, rows, row_sums_piece, &job);
}
