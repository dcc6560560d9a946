/* Sums of GEMM products as NumPy's BLAS forms them, in one pass (python/opemu/core/blas.py, chain_sums).
 *
 * The grid convolutions (python/opemu/ops/mcdnn/conv_kernel.py) add up one GEMM product per window
 * element, or per block of the grid; BLAS rereads and rewrites the whole result for each. Here a tile of
 * the result stays in registers while one term's products are summed, and in L1 while the terms are added.
 *
 * The bundled OpenBLAS (the NumPy twin's matmul) forms each element of a product whose inner dimension
 * fits its K block as one chain of fused multiply-adds from +0 in k order; this kernel forms the same
 * chain, so the two agree to the bit. Whether that holds for the BLAS at hand is a measured fact, not an
 * assumption: opemu.core.blas compares the two on a probe before the kernel is used (OpenBLAS's Haswell kernels
 * split most tiles' sums over two accumulators, so on them the convolutions keep BLAS). The kernel's own twin
 * is blas.chain_reference, each step an exact fused multiply-add in NumPy.
 *
 * Paths: AVX-512 (below) and the baseline's AVX2 (chain_avx2.c); in plain C there is none (-1: BLAS runs). */
#include "chain.h"
#include "transpose16.h"

#if OPEMU_X86
#include <immintrin.h>

#define LANES 16
#define UNROLLED _Pragma("GCC unroll 8")   /* the tile's accumulators stay in registers only if fully unrolled */

/* One tile: TILE_ROWS rows by VECS vectors of columns. Term t's chain is formed in registers, then written
 * (the first term of a fresh sum) or added. Only the last column tile of a row is MASKED (`mask`, the
 * columns of each vector that exist): a masked load costs the others about a tenth of their speed. */
#define DEFINE_TILE(NAME, TILE_ROWS, VECS, MASKED)                                                        \
    __attribute__((target("avx512f"), always_inline)) static inline void NAME(                           \
        const float *a, const int64_t *a_row, int64_t a_at, const float *b, int64_t ldb, int64_t inner,  \
        int write, float *c, int64_t ldc, const __mmask16 *mask)                                          \
    {                                                                                                     \
        __m512 acc[TILE_ROWS][VECS];                                                                      \
        const float *ar[TILE_ROWS];                                                                       \
        UNROLLED for (int r = 0; r < TILE_ROWS; r++) {                                                    \
            ar[r] = a + a_row[r] + a_at;                                                                  \
            UNROLLED for (int v = 0; v < VECS; v++)                                                       \
                acc[r][v] = _mm512_setzero_ps();                                                          \
        }                                                                                                 \
        for (int64_t k = 0; k < inner; k++, b += ldb) {                                                   \
            __m512 bv[VECS];                                                                              \
            UNROLLED for (int v = 0; v < VECS; v++)                                                       \
                bv[v] = MASKED ? _mm512_maskz_loadu_ps(mask[v], b + v * LANES) : _mm512_loadu_ps(b + v * LANES); \
            UNROLLED for (int r = 0; r < TILE_ROWS; r++) {                                                \
                __m512 av = _mm512_set1_ps(ar[r][k]);                                                     \
                UNROLLED for (int v = 0; v < VECS; v++)                                                   \
                    acc[r][v] = _mm512_fmadd_ps(av, bv[v], acc[r][v]);                                    \
            }                                                                                             \
        }                                                                                                 \
        UNROLLED for (int r = 0; r < TILE_ROWS; r++)                                                      \
            UNROLLED for (int v = 0; v < VECS; v++) {                                                     \
                float *cv = c + r * ldc + v * LANES;                                                      \
                if (!write)                                                                               \
                    acc[r][v] = _mm512_add_ps(_mm512_maskz_loadu_ps(mask[v], cv), acc[r][v]);             \
                _mm512_mask_storeu_ps(cv, mask[v], acc[r][v]);                                            \
            }                                                                                             \
    }

/* The next column tile's share of b, into L2: the rows of b are far apart (a grid's channels), too many
 * streams for the hardware's prefetchers. The first and last terms span what the others read (their
 * offsets grow term by term); 21% faster on one core, 5-10% on two. */
__attribute__((target("avx512f"))) static inline void prefetch_next(const float *b, int64_t ldb, int64_t inner,
                                                                    int vecs)
{
    for (int64_t k = 0; k < inner; k++)
        for (int v = 0; v <= vecs; v++)
            _mm_prefetch((const char *)(b + k * ldb + (vecs + v) * LANES), _MM_HINT_T1);
}

/* b given transposed (a 1x1 filter gradient reads dy as it lies, positions innermost): a term's share of the
 * column tile, inner rows by `cols` columns, packed row-major `width` apart into L1 first, in 16 x 16
 * register tiles, so the tiles read it as they read b. The chains are the same either way. */
#define PACKED_INNER OPEMU_CHAIN_PACKED_INNER
#define PACKED_WIDTH 64    /* the widest column tile */

__attribute__((target("avx512f"))) static void pack_transposed(const float *bt, int64_t ldb, int64_t inner,
                                                              int64_t cols, float *packed, int64_t width)
{
    int64_t n0 = 0;
    for (; n0 + LANES <= cols; n0 += LANES) {
        int64_t k0 = 0;
        for (; k0 + LANES <= inner; k0 += LANES) {
            __m512i r[LANES];
            for (int i = 0; i < LANES; i++)
                r[i] = _mm512_loadu_si512(bt + (n0 + i) * ldb + k0);
            opemu_transpose16_store(r, packed + k0 * width + n0, width);
        }
        for (; k0 < inner; k0++)
            for (int64_t n = n0; n < n0 + LANES; n++)
                packed[k0 * width + n] = bt[n * ldb + k0];
    }
    for (; n0 < cols; n0++)
        for (int64_t k = 0; k < inner; k++)
            packed[k * width + n0] = bt[n0 * ldb + k];
}

/* A column tile, every term for every block of rows: the tile's share of b for one term stays in L1 while
 * the row blocks run over it; `ahead`, another column tile follows. */
#define DEFINE_COLUMN_TILE(NAME, TILE_ROWS, VECS, MASKED)                                                 \
    DEFINE_TILE(NAME##_block, TILE_ROWS, VECS, MASKED)                                                    \
    DEFINE_TILE(NAME##_row, 1, VECS, MASKED)                                                              \
    __attribute__((target("avx512f"))) static void NAME(                                                 \
        int64_t rows, int64_t cols, int64_t terms, const int64_t *inner, const float *a,                  \
        const int64_t *a_row, const int64_t *a_at, const float *b, const int64_t *b_at, int64_t ldb,      \
        float *packed, float *c, int64_t ldc, int accumulate, int ahead)                                  \
    {                                                                                                     \
        __mmask16 mask[VECS];                                                                             \
        for (int v = 0; v < VECS; v++) {                                                                  \
            int64_t left = cols - (int64_t)v * LANES;                                                     \
            mask[v] = left >= LANES ? (__mmask16)0xFFFF : left <= 0 ? 0 : (__mmask16)((1u << left) - 1);  \
        }                                                                                                 \
        for (int64_t t = 0; t < terms; t++) {                                                             \
            int write = t == 0 && !accumulate;                                                            \
            const float *bt = b + b_at[t];                                                                \
            int64_t ld = ldb;                                                                             \
            if (packed) {                                                                                 \
                pack_transposed(bt, ldb, inner[t], cols, packed, VECS * LANES);                           \
                bt = packed;                                                                              \
                ld = VECS * LANES;                                                                        \
            } else if (ahead && (t == 0 || t == terms - 1)) {                                             \
                prefetch_next(bt, ldb, inner[t], VECS);                                                   \
            }                                                                                             \
            int64_t r = 0;                                                                                \
            for (; r + TILE_ROWS <= rows; r += TILE_ROWS)                                                 \
                NAME##_block(a, a_row + r, a_at[t], bt, ld, inner[t], write, c + r * ldc, ldc, mask);     \
            for (; r < rows; r++)                                                                         \
                NAME##_row(a, a_row + r, a_at[t], bt, ld, inner[t], write, c + r * ldc, ldc, mask);       \
        }                                                                                                 \
    }

DEFINE_COLUMN_TILE(columns_48, 8, 3, 0)
DEFINE_COLUMN_TILE(columns_48_masked, 8, 3, 1)
DEFINE_COLUMN_TILE(columns_64, 6, 4, 0)
DEFINE_COLUMN_TILE(columns_64_masked, 6, 4, 1)

void opemu_chain_sums_avx512(int64_t rows, int64_t cols, int64_t terms, const int64_t *inner, const float *a,
                             const int64_t *a_row, const int64_t *a_at, const float *b, const int64_t *b_at,
                             int64_t ldb, int b_transposed, float *c, int64_t ldc, int accumulate)
{
    float packed[PACKED_INNER * PACKED_WIDTH] __attribute__((aligned(64)));
    /* 8 rows by 48 columns, or 6 by 64 where that wastes fewer lanes (a 64-wide filter gradient) */
    int wide = (cols + 63) / 64 * 64 < (cols + 47) / 48 * 48;
    int64_t width = wide ? 64 : 48, n = 0;
    float *pack = b_transposed ? packed : NULL;
    for (; n + width <= cols; n += width)
        (wide ? columns_64 : columns_48)(rows, width, terms, inner, a, a_row, a_at, b + n * (b_transposed ? ldb : 1),
                                         b_at, ldb, pack, c + n, ldc, accumulate, n + width < cols);
    if (n < cols)
        (wide ? columns_64_masked : columns_48_masked)(rows, cols - n, terms, inner, a, a_row, a_at,
                                                       b + n * (b_transposed ? ldb : 1), b_at, ldb, pack, c + n,
                                                       ldc, accumulate, 0);
}
#endif

void opemu_chain_pack_transposed(const float *bt, int64_t ldb, int64_t inner, int64_t cols, float *packed,
                                 int64_t width)
{
    for (int64_t n = 0; n < cols; n++)
        for (int64_t k = 0; k < inner; k++)
            packed[k * width + n] = bt[n * ldb + k];
}

int opemu_kernel_chain_sums(int64_t rows, int64_t cols, int64_t terms, const int64_t *inner, const float *a,
                            const int64_t *a_row, const int64_t *a_at, const float *b, const int64_t *b_at,
                            int64_t ldb, int b_transposed, float *c, int64_t ldc, int accumulate)
{
    if (opemu_isa() < OPEMU_ISA_BASELINE)
        return -1;
    for (int64_t t = 0; b_transposed && t < terms; t++)
        if (inner[t] > OPEMU_CHAIN_PACKED_INNER)
            return -2;
#if OPEMU_X86
    if (opemu_isa() >= OPEMU_ISA_AVX512)
        opemu_chain_sums_avx512(rows, cols, terms, inner, a, a_row, a_at, b, b_at, ldb, b_transposed, c, ldc,
                                accumulate);
    else
        opemu_chain_sums_baseline(rows, cols, terms, inner, a, a_row, a_at, b, b_at, ldb, b_transposed, c, ldc,
                                  accumulate);
#endif
    return 0;
}
