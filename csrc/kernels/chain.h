/* What chain.c shares with its baseline path (chain_avx2.c). */
#ifndef OPEMU_KERNELS_CHAIN_H
#define OPEMU_KERNELS_CHAIN_H

#include "isa.h"

#define OPEMU_CHAIN_PACKED_INNER 128 /* a transposed term's rows the packing holds: the callers' K blocks */

/* The kernel's tiles, written once with an instruction set's vector operations, named by V: V##_VEC (a register of
 * V##_LANES floats), V##_MASK (which of a vector's columns exist), V##_ZERO(), V##_LOAD(p), V##_LOAD_MASKED(p, m),
 * V##_BROADCAST(p), V##_FMA(a, b, c) (a * b + c, one rounding), V##_ADD(a, b), V##_STORE(p, v),
 * V##_STORE_MASKED(p, m, v), V##_MASKS(mask, vecs, cols) and V##_TARGET; the file also gives prefetch_next (the
 * next column tile's share of b) and pack_transposed (a term's share of a transposed b, row-major).
 *
 * One tile: TILE_ROWS rows by VECS vectors of columns. Term t's chain is formed in registers, then written (the
 * first term of a fresh sum) or added. Only the last column tile of a row is MASKED (`mask`: the columns of
 * each vector that exist): a masked load costs the others about a tenth of their speed. */
#define UNROLLED _Pragma("GCC unroll 8") /* the tile's accumulators stay in registers only if fully unrolled */
#define OPEMU_CHAIN_TILE(V, NAME, TILE_ROWS, VECS, MASKED)                                                \
    V##_TARGET __attribute__((always_inline)) static inline void NAME(                                    \
        const float *a, const int64_t *a_row, int64_t a_at, const float *b, int64_t ldb, int64_t inner,  \
        int write, float *c, int64_t ldc, const V##_MASK *mask)                                           \
    {                                                                                                     \
        V##_VEC acc[TILE_ROWS][VECS];                                                                     \
        const float *ar[TILE_ROWS];                                                                       \
        UNROLLED for (int r = 0; r < TILE_ROWS; r++) {                                                    \
            ar[r] = a + a_row[r] + a_at;                                                                  \
            UNROLLED for (int v = 0; v < VECS; v++)                                                       \
                acc[r][v] = V##_ZERO();                                                                   \
        }                                                                                                 \
        for (int64_t k = 0; k < inner; k++, b += ldb) {                                                   \
            V##_VEC bv[VECS];                                                                             \
            UNROLLED for (int v = 0; v < VECS; v++)                                                       \
                bv[v] = MASKED ? V##_LOAD_MASKED(b + v * V##_LANES, mask[v]) : V##_LOAD(b + v * V##_LANES); \
            UNROLLED for (int r = 0; r < TILE_ROWS; r++) {                                                \
                const V##_VEC av = V##_BROADCAST(ar[r] + k);                                              \
                UNROLLED for (int v = 0; v < VECS; v++)                                                   \
                    acc[r][v] = V##_FMA(av, bv[v], acc[r][v]);                                            \
            }                                                                                             \
        }                                                                                                 \
        UNROLLED for (int r = 0; r < TILE_ROWS; r++)                                                      \
            UNROLLED for (int v = 0; v < VECS; v++) {                                                     \
                float *cv = c + r * ldc + v * V##_LANES;                                                  \
                if (!write)                                                                               \
                    acc[r][v] = V##_ADD(MASKED ? V##_LOAD_MASKED(cv, mask[v]) : V##_LOAD(cv), acc[r][v]); \
                if (MASKED)                                                                               \
                    V##_STORE_MASKED(cv, mask[v], acc[r][v]);                                             \
                else                                                                                      \
                    V##_STORE(cv, acc[r][v]);                                                             \
            }                                                                                             \
    }

/* A column tile, every term for every block of rows: the tile's share of b for one term stays in L1 while the
 * row blocks run over it; `ahead`, another column tile follows. */
#define OPEMU_CHAIN_COLUMN_TILE(V, NAME, TILE_ROWS, VECS, MASKED)                                         \
    OPEMU_CHAIN_TILE(V, NAME##_block, TILE_ROWS, VECS, MASKED)                                            \
    OPEMU_CHAIN_TILE(V, NAME##_row, 1, VECS, MASKED)                                                      \
    V##_TARGET static void NAME(int64_t rows, int64_t cols, int64_t terms, const int64_t *inner, const float *a, \
                                const int64_t *a_row, const int64_t *a_at, const float *b, const int64_t *b_at, \
                                int64_t ldb, float *packed, float *c, int64_t ldc, int accumulate, int ahead) \
    {                                                                                                     \
        V##_MASK mask[VECS];                                                                              \
        V##_MASKS(mask, VECS, cols);                                                                      \
        for (int64_t t = 0; t < terms; t++) {                                                             \
            int write = t == 0 && !accumulate;                                                            \
            const float *bt = b + b_at[t];                                                                \
            int64_t ld = ldb;                                                                             \
            if (packed) {                                                                                 \
                pack_transposed(bt, ldb, inner[t], cols, packed, VECS * V##_LANES);                       \
                bt = packed;                                                                              \
                ld = VECS * V##_LANES;                                                                    \
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

#if OPEMU_X86
/* opemu_kernel_chain_sums on each level's instructions */
void opemu_chain_sums_avx512(int64_t rows, int64_t cols, int64_t terms, const int64_t *inner, const float *a,
                             const int64_t *a_row, const int64_t *a_at, const float *b, const int64_t *b_at,
                             int64_t ldb, int b_transposed, float *c, int64_t ldc, int accumulate);
void opemu_chain_sums_baseline(int64_t rows, int64_t cols, int64_t terms, const int64_t *inner, const float *a,
                               const int64_t *a_row, const int64_t *a_at, const float *b, const int64_t *b_at,
                               int64_t ldb, int b_transposed, float *c, int64_t ldc, int accumulate);
#endif

#endif
