/* What bf16_product.c shares with its vector paths (bf16_avx512.c, bf16_avx2.c): the panels' geometry, the tile
 * kernels' form and the packing steps each level provides. */
#ifndef OPEMU_KERNELS_BF16_PANELS_H
#define OPEMU_KERNELS_BF16_PANELS_H

#include "isa.h"
#include "rounding.h"

#include <string.h>

#define PANEL_ROWS OPEMU_BF16_PANEL_ROWS
#define PANEL_COLS OPEMU_BF16_PANEL_COLS
#define BLOCK_PAIRS OPEMU_BF16_BLOCK_PAIRS

/* One tile of c (rows × cols of a PANEL_ROWS × PANEL_COLS tile, row pitch ldc) plus the chains of one block of
 * `pairs` pairs of an A panel and a B panel, or those chains alone from +0 (`fresh`).
 */
typedef void (*opemu_bf16_tile)(int64_t pairs, const uint32_t *a, const uint32_t *b, float *c, int64_t ldc, int rows,
                                int cols, int fresh);

static inline uint32_t half_at(const void *src, int source, int64_t at)
{
    return source == OPEMU_BF16_FROM_FLOAT ? ((const uint32_t *)src)[at] >> 16 : ((const uint16_t *)src)[at];
}

/* Adds a tile's chains to c (rows × cols of it; c starts from +0 when `fresh`). */
static inline void add_tile(const float *tile, float *c, int64_t ldc, int rows, int cols, int fresh)
{
    for (int r = 0; r < rows; r++)
        for (int j = 0; j < cols; j++)
            c[r * ldc + j] = (fresh ? 0.0f : c[r * ldc + j]) + tile[r * PANEL_COLS + j];
}

/* The chains of an empty inner dimension */
static const float opemu_bf16_zeros[PANEL_ROWS * PANEL_COLS];

/* A tile's sums (rows × cols of it), rounded to bf16 (to nearest, ties to even) into c's bits */
static inline void opemu_bf16_store_rounded(const float *tile, int rows, int cols, uint16_t *c, int64_t ldc)
{
    for (int r = 0; r < rows; r++)
        for (int j = 0; j < cols; j++) {
            float value = opemu_round_bf16(tile[r * PANEL_COLS + j]);
            uint32_t bits;
            memcpy(&bits, &value, sizeof bits);
            c[r * ldc + j] = (uint16_t)(bits >> 16);
        }
}

/* Every panel's whole pairs where a panel's elements lie side by side (count_stride 1) and a pair's halves in two
 * rows, PAIR_BLOCK pairs at a time across all panels: the source's rows are read along their length while their
 * lines are in L1, where panel by panel they were read down a column, a row's line at a time. Written once for
 * the levels' vectors of LANES words: STORE(src, source, at, inner_stride, present, to, rows) packs the words of
 * one pair for `present` panel elements from element `at`, `rows` of them (zero past `present`) to `to`. */
enum { OPEMU_BF16_PAIR_BLOCK = 4 };
#define OPEMU_BF16_PACK_PAIR_ROWS(NAME, TARGET, LANES, STORE)                                             \
    TARGET void NAME(const void *src, int source, int64_t count, int64_t inner, int64_t inner_stride, int width, \
                     int64_t pairs, uint32_t *panels)                                                     \
    {                                                                                                     \
        const int64_t whole = inner / 2;                                                                  \
        for (int64_t p0 = 0; p0 < whole; p0 += OPEMU_BF16_PAIR_BLOCK) {                                   \
            const int64_t p1 = whole - p0 < OPEMU_BF16_PAIR_BLOCK ? whole : p0 + OPEMU_BF16_PAIR_BLOCK;   \
            for (int64_t j0 = 0; j0 < count; j0 += width) {                                               \
                uint32_t *panel = panels + (j0 / width) * pairs * width;                                  \
                const int64_t real = count - j0 < width ? count - j0 : width;                             \
                for (int64_t p = p0; p < p1; p++)                                                         \
                    for (int g = 0; g < width; g += (LANES)) {                                            \
                        const int rows = width - g < (LANES) ? width - g : (LANES);                       \
                        const int present = (int)(real - g < 0 ? 0 : real - g < rows ? real - g : rows);  \
                        STORE(src, source, j0 + g + 2 * p * inner_stride, inner_stride, present,          \
                              panel + p * width + g, rows);                                               \
                    }                                                                                     \
            }                                                                                             \
        }                                                                                                 \
    }

#if OPEMU_X86
/* Per level: the whole pairs of every panel where a panel's elements lie side by side (count_stride 1) and its
 * pairs across rows; and the pairs of one panel from pair 0 that vectors take where the inner elements lie side by
 * side (returns how many). pack_plainly packs the rest. */
void opemu_bf16_pack_pair_rows_avx512(const void *src, int source, int64_t count, int64_t inner, int64_t inner_stride,
                                      int width, int64_t pairs, uint32_t *panels);
int64_t opemu_bf16_pack_vectors_avx512(const void *src, int source, int64_t j0, int64_t real, int64_t inner,
                                       int64_t count_stride, int64_t inner_stride, int width, uint32_t *panel);
void opemu_bf16_pack_pair_rows_baseline(const void *src, int source, int64_t count, int64_t inner,
                                        int64_t inner_stride, int width, int64_t pairs, uint32_t *panels);
int64_t opemu_bf16_pack_vectors_baseline(const void *src, int source, int64_t j0, int64_t real, int64_t inner,
                                         int64_t count_stride, int64_t inner_stride, int width, uint32_t *panel);

void opemu_bf16_tile_dot(int64_t pairs, const uint32_t *a, const uint32_t *b, float *c, int64_t ldc, int rows,
                         int cols, int fresh);
void opemu_bf16_tile_avx512(int64_t pairs, const uint32_t *a, const uint32_t *b, float *c, int64_t ldc, int rows,
                            int cols, int fresh);
/* The whole product on the baseline level (bf16_avx2.c): opemu_kernel_bf16_product's and _rounded's work (c or
 * `rounded`); -1 when its scratch cannot be allocated. */
int opemu_bf16_walk_baseline(int64_t m, int64_t n, int64_t pairs, const uint32_t *a, const uint32_t *b, float *c,
                             int64_t ldc, int accumulate, uint16_t *rounded, int64_t ldr);
#endif

#endif
