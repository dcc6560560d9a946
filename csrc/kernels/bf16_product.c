/* Products of bf16 matrices summed in fp32: the vocab-parallel operators' GEMMs on bf16 operands
 * (python/opemu/core/bf16_product.py holds the NumPy reference and says what the sums are).
 *
 * Operands are first packed into panels of 32-bit words, each word one pair of elements along the
 * inner dimension (element 2p in the low half, 2p + 1 in the high half): the layout x86's bf16 dot
 * product instruction reads. An A panel holds PANEL_ROWS rows, a B panel PANEL_COLS columns, both
 * [pair][row or column], zero past the matrix. Every element of the product is, per block of
 * BLOCK_PAIRS pairs, a chain from +0 that takes each pair's odd product and then its even one, each
 * a fused multiply-add whose result is flushed to a zero of its sign below 2^-126; subnormal elements
 * count as zeros of their sign (packing makes them so); the blocks' chains are added to the total in
 * order (IEEE).
 *
 * That is VDPBF16PS's arithmetic (Intel's definition; on an AMD host with it 0 of 32 million steps near
 * 2^-126 differ from the emulation here), so where the CPU has it the tiles are that instruction, at
 * twice the fp32 FMA rate (bf16_avx512.c); elsewhere fp32 FMA tiles flush as it does (AVX-512 and the
 * baseline's AVX2, bf16_avx2.c), and plain C tiles below, whose loops vectorise where the CPU has fused
 * multiply-adds (arm64). This file packs and walks the tiles, on the path of the level in use (isa.h). */
#include "bf16_panels.h"

/* A word with each subnormal half made a zero of its sign: the instruction reads subnormals as zeros. */
static inline uint32_t flush_halves(uint32_t w)
{
    for (int shift = 0; shift < 32; shift += 16)
        if (((w >> shift) & 0x7F80u) == 0)
            w &= ~(0x7FFFu << shift);
    return w;
}

/* Pairs [from, here) of a panel, every row of it (zero past the matrix and past an odd inner's last element). */
static void pack_plainly(const void *src, int source, int64_t j0, int64_t real, int64_t inner, int64_t count_stride,
                         int64_t inner_stride, int width, int64_t from, uint32_t *panel)
{
    for (int64_t p = from; p < (inner + 1) / 2; p++)
        for (int64_t r = 0; r < width; r++) {
            uint32_t w = 0;
            if (r < real) {
                int64_t at = (j0 + r) * count_stride + 2 * p * inner_stride;
                w = half_at(src, source, at) | (2 * p + 1 < inner ? half_at(src, source, at + inner_stride) << 16 : 0);
            }
            panel[p * width + r] = flush_halves(w);
        }
}

typedef void (*pair_rows_packer)(const void *src, int source, int64_t count, int64_t inner, int64_t inner_stride,
                                 int width, int64_t pairs, uint32_t *panels);
typedef int64_t (*vector_packer)(const void *src, int source, int64_t j0, int64_t real, int64_t inner,
                                 int64_t count_stride, int64_t inner_stride, int width, uint32_t *panel);

int opemu_kernel_bf16_pack(const void *src, int source, int64_t count, int64_t inner, int64_t count_stride,
                           int64_t inner_stride, int width, int64_t pairs, int64_t first_pair, uint32_t *panels)
{
    if ((width != PANEL_ROWS && width != PANEL_COLS) || count < 0 || inner < 0 || first_pair < 0 ||
        first_pair + (inner + 1) / 2 > pairs)
        return -1;
    pair_rows_packer pair_rows = NULL;
    vector_packer vectors = NULL;
#if OPEMU_X86
    if (opemu_isa() >= OPEMU_ISA_AVX512)
        pair_rows = opemu_bf16_pack_pair_rows_avx512, vectors = opemu_bf16_pack_vectors_avx512;
    else if (opemu_isa() >= OPEMU_ISA_BASELINE)
        pair_rows = opemu_bf16_pack_pair_rows_baseline, vectors = opemu_bf16_pack_vectors_baseline;
#endif
    const int by_pair_rows = pair_rows && inner_stride != 1 && count_stride == 1;
    if (by_pair_rows)
        pair_rows(src, source, count, inner, inner_stride, width, pairs, panels + first_pair * width);
    for (int64_t j0 = 0; j0 < count; j0 += width) {
        uint32_t *panel = panels + (j0 / width) * pairs * width + first_pair * width;
        int64_t real = count - j0 < width ? count - j0 : width, from = by_pair_rows ? inner / 2 : 0;
        if (vectors && !by_pair_rows)
            from = vectors(src, source, j0, real, inner, count_stride, inner_stride, width, panel);
        pack_plainly(src, source, j0, real, inner, count_stride, inner_stride, width, from, panel);
    }
    return 0;
}

static inline float high_half(uint32_t word)
{
    uint32_t bits = word & 0xFFFF0000u;
    float value;
    memcpy(&value, &bits, sizeof value);
    return value;
}

static inline float low_half(uint32_t word)
{
    return high_half(word << 16);
}

/* A fused step's result as the instruction leaves it: below 2^-126, a zero of its sign. */
static inline float flushed(float value)
{
    return __builtin_fabsf(value) < 0x1p-126f ? __builtin_copysignf(0.0f, value) : value;
}

/* One PANEL_ROWS × PANEL_COLS tile over one block of pairs in plain C. */
static void tile_portable(int64_t pairs, const uint32_t *a, const uint32_t *b, float *c, int64_t ldc, int rows,
                          int cols, int fresh)
{
    float s[PANEL_ROWS][PANEL_COLS] = {{0}};
    for (int64_t p = 0; p < pairs; p++) {
        float odd[PANEL_COLS], even[PANEL_COLS];
        for (int j = 0; j < PANEL_COLS; j++) {
            odd[j] = high_half(b[p * PANEL_COLS + j]);
            even[j] = low_half(b[p * PANEL_COLS + j]);
        }
        for (int r = 0; r < PANEL_ROWS; r++) {
            float a_odd = high_half(a[p * PANEL_ROWS + r]), a_even = low_half(a[p * PANEL_ROWS + r]);
            for (int j = 0; j < PANEL_COLS; j++)
                s[r][j] = flushed(__builtin_fmaf(a_even, even[j], flushed(__builtin_fmaf(a_odd, odd[j], s[r][j]))));
        }
    }
    add_tile(&s[0][0], c, ldc, rows, cols, fresh);
}

/* Every tile of c through all its blocks: the tile stays in L1 from one block to the next and is read from
 * memory (accumulating) and written back once. With `rounded`, each tile's sums are made in a local tile and
 * stored to it rounded to bf16 instead (c unused). The baseline level walks in its own way (bf16_avx2.c);
 * returns -1 when that cannot allocate its scratch. */
static int walk_tiles(int64_t m, int64_t n, int64_t pairs, const uint32_t *a, const uint32_t *b, float *c,
                      int64_t ldc, int accumulate, uint16_t *rounded, int64_t ldr)
{
    opemu_bf16_tile tile = tile_portable;
#if OPEMU_X86
    if (opemu_isa() >= OPEMU_ISA_AVX512_BF16)
        tile = opemu_bf16_tile_dot;
    else if (opemu_isa() >= OPEMU_ISA_AVX512)
        tile = opemu_bf16_tile_avx512;
    else if (opemu_isa() >= OPEMU_ISA_BASELINE)
        return opemu_bf16_walk_baseline(m, n, pairs, a, b, c, ldc, accumulate, rounded, ldr);
#endif
    float local[PANEL_ROWS * PANEL_COLS];
    for (int64_t j0 = 0; j0 < n; j0 += PANEL_COLS) {
        const uint32_t *bp = b + (j0 / PANEL_COLS) * pairs * PANEL_COLS;
        int cols = n - j0 < PANEL_COLS ? (int)(n - j0) : PANEL_COLS;
        for (int64_t i0 = 0; i0 < m; i0 += PANEL_ROWS) {
            const uint32_t *ap = a + (i0 / PANEL_ROWS) * pairs * PANEL_ROWS;
            int rows = m - i0 < PANEL_ROWS ? (int)(m - i0) : PANEL_ROWS;
            float *at = rounded ? local : c + i0 * ldc + j0;
            int64_t ld = rounded ? PANEL_COLS : ldc;
            for (int64_t k0 = 0; k0 < pairs || (k0 == 0 && !accumulate); k0 += BLOCK_PAIRS) {
                int64_t block = pairs - k0 < BLOCK_PAIRS ? pairs - k0 : BLOCK_PAIRS;
                tile(block, ap + k0 * PANEL_ROWS, bp + k0 * PANEL_COLS, at, ld, rows, cols, k0 == 0 && !accumulate);
            }
            if (rounded)
                opemu_bf16_store_rounded(local, rows, cols, rounded + i0 * ldr + j0, ldr);
        }
    }
    return 0;
}

/* What both entries refuse: a negative size or rows of c that overlap. */
static int refused(int64_t m, int64_t n, int64_t pairs, int64_t ldc)
{
    return m < 0 || n < 0 || pairs < 0 || ldc < n;
}

int opemu_kernel_bf16_product(int64_t m, int64_t n, int64_t pairs, const uint32_t *a, const uint32_t *b, float *c,
                              int64_t ldc, int accumulate)
{
    if (refused(m, n, pairs, ldc))
        return -1;
    return walk_tiles(m, n, pairs, a, b, c, ldc, accumulate, NULL, 0) ? -2 : 0;
}

int opemu_kernel_bf16_product_rounded(int64_t m, int64_t n, int64_t pairs, const uint32_t *a, const uint32_t *b,
                                      uint16_t *c, int64_t ldc)
{
    if (refused(m, n, pairs, ldc))
        return -1;
    return walk_tiles(m, n, pairs, a, b, NULL, 0, 0, c, ldc) ? -2 : 0;
}
