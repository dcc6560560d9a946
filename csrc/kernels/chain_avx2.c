/* The baseline (x86-64-v3: AVX2, FMA) path of the sums of GEMM products (chain.c says what they are): tiles of
 * 6 rows by 16 columns, 12 accumulators of the 16 registers, one chain of fused multiply-adds from +0 per
 * element, as the AVX-512 path forms them. */
#include "chain.h"

#if OPEMU_X86
#include <immintrin.h>

/* The tiles' vector operations (chain.h) */
#define V256_VEC __m256
#define V256_MASK __m256i
#define V256_LANES 8
#define V256_TARGET OPEMU_TARGET_BASELINE
#define V256_ZERO() _mm256_setzero_ps()
#define V256_LOAD(p) _mm256_loadu_ps(p)
#define V256_LOAD_MASKED(p, m) _mm256_maskload_ps((p), (m))
#define V256_BROADCAST(p) _mm256_broadcast_ss(p)
#define V256_FMA(a, b, c) _mm256_fmadd_ps((a), (b), (c))
#define V256_ADD(a, b) _mm256_add_ps((a), (b))
#define V256_STORE(p, v) _mm256_storeu_ps((p), (v))
#define V256_STORE_MASKED(p, m, v) _mm256_maskstore_ps((p), (m), (v))
#define V256_MASKS(mask, vecs, cols)                                                                      \
    for (int v = 0; v < (vecs); v++)                                                                      \
        mask[v] = _mm256_cmpgt_epi32(_mm256_set1_epi32((int)((cols) - (int64_t)v * V256_LANES)),          \
                                     _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7));
#define WIDTH (2 * V256_LANES)

/* The next column tile's share of b, into L2 (chain.c's AVX-512 path says why) */
V256_TARGET static inline void prefetch_next(const float *b, int64_t ldb, int64_t inner, int vecs)
{
    for (int64_t k = 0; k < inner; k++)
        for (int v = 0; v <= vecs; v += 2) /* a line is two vectors */
            _mm_prefetch((const char *)(b + k * ldb + (vecs + v) * V256_LANES), _MM_HINT_T1);
}

/* A term's share of b given transposed, `inner` rows by `cols` columns, packed row-major `width` apart */
static void pack_transposed(const float *bt, int64_t ldb, int64_t inner, int64_t cols, float *packed, int64_t width)
{
    for (int64_t n = 0; n < cols; n++)
        for (int64_t k = 0; k < inner; k++)
            packed[k * width + n] = bt[n * ldb + k];
}

OPEMU_CHAIN_COLUMN_TILE(V256, columns_16, 6, 2, 0)
OPEMU_CHAIN_COLUMN_TILE(V256, columns_16_masked, 6, 2, 1)

V256_TARGET void opemu_chain_sums_baseline(int64_t rows, int64_t cols, int64_t terms, const int64_t *inner, const float *a,
                               const int64_t *a_row, const int64_t *a_at, const float *b, const int64_t *b_at,
                               int64_t ldb, int b_transposed, float *c, int64_t ldc, int accumulate)
{
    float packed[OPEMU_CHAIN_PACKED_INNER * WIDTH] __attribute__((aligned(32)));
    float *pack = b_transposed ? packed : NULL;
    int64_t n = 0;
    for (; n + WIDTH <= cols; n += WIDTH)
        columns_16(rows, WIDTH, terms, inner, a, a_row, a_at, b + n * (b_transposed ? ldb : 1), b_at, ldb, pack, c + n,
                   ldc, accumulate, n + WIDTH < cols);
    if (n < cols)
        columns_16_masked(rows, cols - n, terms, inner, a, a_row, a_at, b + n * (b_transposed ? ldb : 1), b_at, ldb,
                          pack, c + n, ldc, accumulate, 0);
}
#endif
