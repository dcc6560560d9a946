/* The baseline (x86-64-v3: AVX2, FMA) path of the sums of GEMM products (chain.c says what they are): tiles of
 * 6 rows by 16 columns, 12 accumulators of the 16 registers, one chain of fused multiply-adds from +0 per
 * element, as the AVX-512 path forms them. */
#include "chain.h"

#if OPEMU_X86
#include <immintrin.h>

#define TARGET OPEMU_TARGET_BASELINE
#define LANES 8
#define VECS 2
#define WIDTH (VECS * LANES)
#define UNROLLED _Pragma("GCC unroll 8") /* whole, so that the accumulators stay in registers */

/* One tile: TILE_ROWS rows by WIDTH columns of term t's chains, written (the first term of a fresh sum) or added
 * to c. Only the last column tile of a row is MASKED (`mask`: the columns of each vector that exist). */
#define DEFINE_TILE(NAME, TILE_ROWS, MASKED)                                                              \
    TARGET __attribute__((always_inline)) static inline void NAME(                                        \
        const float *a, const int64_t *a_row, int64_t a_at, const float *b, int64_t ldb, int64_t inner,  \
        int write, float *c, int64_t ldc, const __m256i *mask)                                            \
    {                                                                                                     \
        __m256 acc[TILE_ROWS][VECS];                                                                      \
        const float *ar[TILE_ROWS];                                                                       \
        UNROLLED for (int r = 0; r < TILE_ROWS; r++) {                                                    \
            ar[r] = a + a_row[r] + a_at;                                                                  \
            UNROLLED for (int v = 0; v < VECS; v++)                                                       \
                acc[r][v] = _mm256_setzero_ps();                                                          \
        }                                                                                                 \
        for (int64_t k = 0; k < inner; k++, b += ldb) {                                                   \
            __m256 bv[VECS];                                                                              \
            UNROLLED for (int v = 0; v < VECS; v++)                                                       \
                bv[v] = MASKED ? _mm256_maskload_ps(b + v * LANES, mask[v]) : _mm256_loadu_ps(b + v * LANES); \
            UNROLLED for (int r = 0; r < TILE_ROWS; r++) {                                                \
                const __m256 av = _mm256_broadcast_ss(ar[r] + k);                                         \
                UNROLLED for (int v = 0; v < VECS; v++)                                                   \
                    acc[r][v] = _mm256_fmadd_ps(av, bv[v], acc[r][v]);                                    \
            }                                                                                             \
        }                                                                                                 \
        UNROLLED for (int r = 0; r < TILE_ROWS; r++)                                                      \
            UNROLLED for (int v = 0; v < VECS; v++) {                                                     \
                float *cv = c + r * ldc + v * LANES;                                                      \
                if (MASKED) {                                                                             \
                    if (!write)                                                                           \
                        acc[r][v] = _mm256_add_ps(_mm256_maskload_ps(cv, mask[v]), acc[r][v]);            \
                    _mm256_maskstore_ps(cv, mask[v], acc[r][v]);                                          \
                } else {                                                                                  \
                    if (!write)                                                                           \
                        acc[r][v] = _mm256_add_ps(_mm256_loadu_ps(cv), acc[r][v]);                        \
                    _mm256_storeu_ps(cv, acc[r][v]);                                                      \
                }                                                                                         \
            }                                                                                             \
    }

/* The next column tile's share of b, into L2 (chain.c's AVX-512 path says why) */
TARGET static inline void prefetch_next(const float *b, int64_t ldb, int64_t inner)
{
    for (int64_t k = 0; k < inner; k++)
        for (int v = 0; v <= 2 * VECS; v += 2) /* a line is two vectors */
            _mm_prefetch((const char *)(b + k * ldb + WIDTH + v * LANES), _MM_HINT_T1);
}

/* A column tile, every term for every block of rows (the AVX-512 path's walk, 16 columns wide) */
#define DEFINE_COLUMN_TILE(NAME, MASKED)                                                                  \
    DEFINE_TILE(NAME##_block, 6, MASKED)                                                                  \
    DEFINE_TILE(NAME##_row, 1, MASKED)                                                                    \
    TARGET static void NAME(int64_t rows, int64_t cols, int64_t terms, const int64_t *inner, const float *a, \
                            const int64_t *a_row, const int64_t *a_at, const float *b, const int64_t *b_at, \
                            int64_t ldb, float *packed, float *c, int64_t ldc, int accumulate, int ahead) \
    {                                                                                                     \
        __m256i mask[VECS];                                                                               \
        for (int v = 0; v < VECS; v++)                                                                    \
            mask[v] = _mm256_cmpgt_epi32(_mm256_set1_epi32((int)(cols - (int64_t)v * LANES)),            \
                                         _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7));                      \
        for (int64_t t = 0; t < terms; t++) {                                                             \
            int write = t == 0 && !accumulate;                                                            \
            const float *bt = b + b_at[t];                                                                \
            int64_t ld = ldb;                                                                             \
            if (packed) {                                                                                 \
                opemu_chain_pack_transposed(bt, ldb, inner[t], cols, packed, WIDTH);                      \
                bt = packed;                                                                              \
                ld = WIDTH;                                                                               \
            } else if (ahead && (t == 0 || t == terms - 1)) {                                             \
                prefetch_next(bt, ldb, inner[t]);                                                         \
            }                                                                                             \
            int64_t r = 0;                                                                                \
            for (; r + 6 <= rows; r += 6)                                                                 \
                NAME##_block(a, a_row + r, a_at[t], bt, ld, inner[t], write, c + r * ldc, ldc, mask);     \
            for (; r < rows; r++)                                                                         \
                NAME##_row(a, a_row + r, a_at[t], bt, ld, inner[t], write, c + r * ldc, ldc, mask);       \
        }                                                                                                 \
    }

DEFINE_COLUMN_TILE(columns_16, 0)
DEFINE_COLUMN_TILE(columns_16_masked, 1)

void opemu_chain_sums_baseline(int64_t rows, int64_t cols, int64_t terms, const int64_t *inner, const float *a,
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
