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
 * That is VDPBF16PS's arithmetic (Intel's definition; on this AMD host 0 of 32 million steps near
 * 2^-126 differ from the emulation here), so where the CPU has it the tiles are that instruction, at
 * twice the fp32 FMA rate; elsewhere fp32 FMA tiles and portable C tiles flush as it does. */
#include "kernels.h"
#include "rounding.h"

#include <string.h>

#define PANEL_ROWS OPEMU_BF16_PANEL_ROWS
#define PANEL_COLS OPEMU_BF16_PANEL_COLS
#define BLOCK_PAIRS OPEMU_BF16_BLOCK_PAIRS
#define LANES 16
#define VECS (PANEL_COLS / LANES)

static inline uint32_t half_at(const void *src, int source, int64_t at)
{
    return source == OPEMU_BF16_FROM_FLOAT ? ((const uint32_t *)src)[at] >> 16 : ((const uint16_t *)src)[at];
}

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

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#include <immintrin.h>
#include "transpose16.h"

#define PACK_TARGET __attribute__((target("avx512f,avx512bw,avx512vl")))

PACK_TARGET static inline __m512i flush_vector(__m512i w)
{
    __mmask32 subnormal = _mm512_testn_epi16_mask(w, _mm512_set1_epi16(0x7F80));
    __m512i keep = _mm512_mask_mov_epi16(_mm512_set1_epi16(-1), subnormal, _mm512_set1_epi16((short)0x8000));
    return _mm512_and_si512(w, keep);
}

/* Row r's words for pairs p .. p + 15, whose elements lie side by side along the row. */
PACK_TARGET static inline __m512i row_words(const void *src, int source, const __m512i high_halves, int64_t at)
{
    if (source == OPEMU_BF16_FROM_BF16)
        return _mm512_loadu_si512((const uint16_t *)src + at);
    const uint32_t *f = (const uint32_t *)src + at;
    return _mm512_permutex2var_epi16(_mm512_loadu_si512(f), high_halves, _mm512_loadu_si512(f + 16));
}

/* Words of pairs p (elements 2p and 2p + 1 in two rows along which the panel's elements run), `take` of them. */
PACK_TARGET static inline __m512i pair_words(const void *src, int source, int64_t at, int64_t inner_stride,
                                             __mmask16 take)
{
    if (source == OPEMU_BF16_FROM_BF16) {
        const uint16_t *h = (const uint16_t *)src + at;
        __m512i even = _mm512_cvtepu16_epi32(_mm256_maskz_loadu_epi16(take, h));
        __m512i odd = _mm512_cvtepu16_epi32(_mm256_maskz_loadu_epi16(take, h + inner_stride));
        return _mm512_or_si512(even, _mm512_slli_epi32(odd, 16));
    }
    const uint32_t *f = (const uint32_t *)src + at;
    __m512i even = _mm512_srli_epi32(_mm512_maskz_loadu_epi32(take, f), 16);
    __m512i odd = _mm512_and_si512(_mm512_maskz_loadu_epi32(take, f + inner_stride),
                                   _mm512_set1_epi32((int)0xFFFF0000u));
    return _mm512_or_si512(even, odd);
}

/* The pairs of a panel that vectors can take; returns how many (from pair 0). */
PACK_TARGET static int64_t pack_vectors(const void *src, int source, int64_t j0, int64_t real, int64_t inner,
                                        int64_t count_stride, int64_t inner_stride, int width, uint32_t *panel)
{
    int64_t whole = inner / 2, done = 0;
    if (inner_stride == 1) {
        /* 16 rows × 16 pairs at a time, transposed in registers; a group of 16 rows along their whole length
         * before the next group: 16 runs the hardware prefetcher follows. Both of a panel's groups at once
         * (32 rows, a line of each per step) read a cold 32000 × 1024 weight at half the speed: 11 -> 6 ms. */
        __m512i high_halves = _mm512_setzero_si512();
        if (source == OPEMU_BF16_FROM_FLOAT) {
            uint16_t index[32];
            for (int i = 0; i < 16; i++)
                index[2 * i] = (uint16_t)(4 * i + 1), index[2 * i + 1] = (uint16_t)(4 * i + 3);
            high_halves = _mm512_loadu_si512(index);
        }
        done = whole - whole % 16;
        for (int g = 0; g < width; g += 16) {
            int rows = width - g < 16 ? width - g : 16;
            for (int64_t p = 0; p < done; p += 16) {
                __m512i r[16], out[16];
                for (int i = 0; i < 16; i++)
                    r[i] = g + i < real ? row_words(src, source, high_halves, (j0 + g + i) * count_stride + 2 * p)
                                        : _mm512_setzero_si512();
                opemu_transpose16(r, out);
                for (int i = 0; i < 16; i++)
                    _mm512_mask_storeu_epi32(panel + (p + i) * width + g, (__mmask16)((1u << rows) - 1),
                                             flush_vector(out[i]));
            }
        }
    }
    return done;
}

/* Every panel's whole pairs where a panel's elements lie side by side (count_stride 1), PAIR_BLOCK pairs at a
 * time across all panels: the source's rows are read along their length while their lines are in L1, where
 * panel by panel they were read down a column, a row's line at a time. */
enum { PAIR_BLOCK = 4 };
PACK_TARGET static void pack_pair_rows(const void *src, int source, int64_t count, int64_t inner, int64_t inner_stride,
                                       int width, int64_t pairs, uint32_t *panels)
{
    const int64_t whole = inner / 2;
    for (int64_t p0 = 0; p0 < whole; p0 += PAIR_BLOCK) {
        const int64_t p1 = whole - p0 < PAIR_BLOCK ? whole : p0 + PAIR_BLOCK;
        for (int64_t j0 = 0; j0 < count; j0 += width) {
            uint32_t *panel = panels + (j0 / width) * pairs * width;
            const int64_t real = count - j0 < width ? count - j0 : width;
            for (int64_t p = p0; p < p1; p++)
                for (int g = 0; g < width; g += 16) {
                    int rows = width - g < 16 ? width - g : 16;
                    int64_t present = real - g < 0 ? 0 : real - g < rows ? real - g : rows;
                    __m512i w = flush_vector(pair_words(src, source, j0 + g + 2 * p * inner_stride, inner_stride,
                                                        (__mmask16)((1u << present) - 1)));
                    _mm512_mask_storeu_epi32(panel + p * width + g, (__mmask16)((1u << rows) - 1), w);
                }
        }
    }
}

static int vectors_pack(void)
{
    return __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512bw") &&
           __builtin_cpu_supports("avx512vl");
}
#endif

int opemu_kernel_bf16_pack(const void *src, int source, int64_t count, int64_t inner, int64_t count_stride,
                           int64_t inner_stride, int width, int64_t pairs, int64_t first_pair, uint32_t *panels)
{
    if ((width != PANEL_ROWS && width != PANEL_COLS) || count < 0 || inner < 0 || first_pair < 0 ||
        first_pair + (inner + 1) / 2 > pairs)
        return -1;
    int vectors = 0, pair_rows = 0;
#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
    vectors = vectors_pack();
    pair_rows = vectors && inner_stride != 1 && count_stride == 1;
    if (pair_rows)
        pack_pair_rows(src, source, count, inner, inner_stride, width, pairs, panels + first_pair * width);
#endif
    for (int64_t j0 = 0; j0 < count; j0 += width) {
        uint32_t *panel = panels + (j0 / width) * pairs * width + first_pair * width;
        int64_t real = count - j0 < width ? count - j0 : width, from = pair_rows ? inner / 2 : 0;
#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
        if (vectors && !pair_rows)
            from = pack_vectors(src, source, j0, real, inner, count_stride, inner_stride, width, panel);
#endif
        pack_plainly(src, source, j0, real, inner, count_stride, inner_stride, width, from, panel);
    }
    return 0;
}

/* Adds a tile's chains to c (rows × cols of it; c starts from +0 when `fresh`). */
static inline void add_tile(const float *tile, float *c, int64_t ldc, int rows, int cols, int fresh)
{
    for (int r = 0; r < rows; r++)
        for (int j = 0; j < cols; j++)
            c[r * ldc + j] = (fresh ? 0.0f : c[r * ldc + j]) + tile[r * PANEL_COLS + j];
}

typedef void (*tile_kernel)(int64_t pairs, const uint32_t *a, const uint32_t *b, float *c, int64_t ldc, int rows,
                            int cols, int fresh);

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

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#define PORTABLE_CLONES __attribute__((target_clones("arch=x86-64-v3", "default")))
#else
#define PORTABLE_CLONES
#endif

/* One PANEL_ROWS × PANEL_COLS tile over one block of pairs in plain C: what runs on a CPU without AVX-512 (its
 * column loops vectorise wherever the CPU has fused multiply-adds: AVX2 hosts, through the clone, and arm64), and
 * the tests' third witness. */
PORTABLE_CLONES static void tile_portable(int64_t pairs, const uint32_t *a, const uint32_t *b, float *c, int64_t ldc,
                                          int rows, int cols, int fresh)
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

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#define UNROLLED _Pragma("GCC unroll 16")

/* The vector tiles: PANEL_ROWS × VECS accumulators in registers. PREPARE_B turns a vector of B words into
 * what STEP takes; STEP adds one A word's pair of products into an accumulator. */
#define DEFINE_TILE(NAME, TARGET, B_PARTS, PREPARE_B, STEP)                                                   \
    __attribute__((target(TARGET))) static void NAME(int64_t pairs, const uint32_t *a, const uint32_t *b,     \
                                                     float *c, int64_t ldc, int rows, int cols, int fresh)   \
    {                                                                                                          \
        __m512 s[PANEL_ROWS][VECS];                                                                            \
        UNROLLED for (int r = 0; r < PANEL_ROWS; r++)                                                          \
            UNROLLED for (int v = 0; v < VECS; v++)                                                            \
                s[r][v] = _mm512_setzero_ps();                                                                 \
        for (int64_t p = 0; p < pairs; p++) {                                                                  \
            __m512i bp[VECS][B_PARTS];                                                                          \
            UNROLLED for (int v = 0; v < VECS; v++) {                                                          \
                __m512i bw = _mm512_loadu_si512(b + p * PANEL_COLS + v * LANES);                                \
                PREPARE_B(bp[v], bw);                                                                          \
            }                                                                                                  \
            UNROLLED for (int r = 0; r < PANEL_ROWS; r++) {                                                    \
                __m512i aw = _mm512_set1_epi32((int)a[p * PANEL_ROWS + r]);                                    \
                UNROLLED for (int v = 0; v < VECS; v++)                                                        \
                    s[r][v] = STEP(s[r][v], aw, bp[v]);                                                        \
            }                                                                                                  \
        }                                                                                                      \
        if (rows == PANEL_ROWS && cols == PANEL_COLS) {                                                        \
            UNROLLED for (int r = 0; r < PANEL_ROWS; r++)                                                      \
                UNROLLED for (int v = 0; v < VECS; v++) {                                                      \
                    float *at = c + r * ldc + v * LANES;                                                       \
                    __m512 start = fresh ? _mm512_setzero_ps() : _mm512_loadu_ps(at);                          \
                    _mm512_storeu_ps(at, _mm512_add_ps(start, s[r][v]));                                       \
                }                                                                                              \
            return;                                                                                            \
        }                                                                                                      \
        float tile[PANEL_ROWS * PANEL_COLS] __attribute__((aligned(64)));                                     \
        UNROLLED for (int r = 0; r < PANEL_ROWS; r++)                                                          \
            UNROLLED for (int v = 0; v < VECS; v++)                                                            \
                _mm512_store_ps(tile + r * PANEL_COLS + v * LANES, s[r][v]);                                   \
        add_tile(tile, c, ldc, rows, cols, fresh);                                                             \
    }

#define DOT_PREPARE(parts, bw) ((parts)[0] = (bw))
#define DOT_STEP(s, aw, parts) _mm512_dpbf16_ps((s), (__m512bh)(aw), (__m512bh)(parts)[0])

/* the pair's halves as fp32: the odd element is the word's high half, the even one its low half shifted up */
#define FMA_PREPARE(parts, bw) ((parts)[0] = _mm512_and_si512((bw), _mm512_set1_epi32((int)0xFFFF0000u)),         \
                                (parts)[1] = _mm512_slli_epi32((bw), 16))
#define FMA_STEP(s, aw, parts)                                                                                    \
    flush_ps(_mm512_fmadd_ps(_mm512_castsi512_ps(_mm512_slli_epi32((aw), 16)), _mm512_castsi512_ps((parts)[1]),  \
                             flush_ps(_mm512_fmadd_ps(                                                               \
                                 _mm512_castsi512_ps(_mm512_and_si512((aw), _mm512_set1_epi32((int)0xFFFF0000u))), \
                                 _mm512_castsi512_ps((parts)[0]), (s)))))

/* flushed(), sixteen at a time */
__attribute__((target("avx512f"), always_inline)) static inline __m512 flush_ps(__m512 v)
{
    __mmask16 tiny = _mm512_cmp_ps_mask(_mm512_castsi512_ps(_mm512_and_si512(_mm512_castps_si512(v),
                                                                             _mm512_set1_epi32(0x7FFFFFFF))),
                                        _mm512_set1_ps(0x1p-126f), _CMP_LT_OQ);
    return _mm512_castsi512_ps(_mm512_mask_and_epi32(_mm512_castps_si512(v), tiny, _mm512_castps_si512(v),
                                                     _mm512_set1_epi32((int)0x80000000u)));
}

DEFINE_TILE(tile_dot, "avx512f,avx512bf16", 1, DOT_PREPARE, DOT_STEP)
DEFINE_TILE(tile_fma, "avx512f", 2, FMA_PREPARE, FMA_STEP)

static tile_kernel choose(int tiles)
{
    if (tiles == OPEMU_BF16_TILES_BEST && __builtin_cpu_supports("avx512bf16"))
        return tile_dot;
    if (tiles != OPEMU_BF16_TILES_PORTABLE && __builtin_cpu_supports("avx512f"))
        return tile_fma;
    return tile_portable;
}

int opemu_kernel_bf16_dot_available(void)
{
    return __builtin_cpu_supports("avx512bf16") != 0;
}

#else

static tile_kernel choose(int tiles)
{
    return tile_portable;
}

int opemu_kernel_bf16_dot_available(void)
{
    return 0;
}

#endif

/* Every tile of c through all its blocks: the tile stays in L1 from one block to the next and is read from
 * memory (accumulating) and written back once. With `rounded`, each tile's sums are made in a local tile and
 * stored to it rounded to bf16 instead (c unused). */
static void walk_tiles(int64_t m, int64_t n, int64_t pairs, const uint32_t *a, const uint32_t *b, tile_kernel tile,
                       float *c, int64_t ldc, int accumulate, uint16_t *rounded, int64_t ldr)
{
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
                for (int r = 0; r < rows; r++)
                    for (int j = 0; j < cols; j++) {
                        float value = opemu_round_bf16(local[r * PANEL_COLS + j]);
                        uint32_t bits;
                        memcpy(&bits, &value, sizeof bits);
                        rounded[(i0 + r) * ldr + j0 + j] = (uint16_t)(bits >> 16);
                    }
        }
    }
}

/* What both entries refuse: a negative size, rows of c that overlap, or a `tiles` of no kind. */
static int refused(int64_t m, int64_t n, int64_t pairs, int64_t ldc, int tiles)
{
    return m < 0 || n < 0 || pairs < 0 || ldc < n || tiles < OPEMU_BF16_TILES_BEST || tiles > OPEMU_BF16_TILES_PORTABLE;
}

int opemu_kernel_bf16_product(int64_t m, int64_t n, int64_t pairs, const uint32_t *a, const uint32_t *b, int tiles,
                              float *c, int64_t ldc, int accumulate)
{
    if (refused(m, n, pairs, ldc, tiles))
        return -1;
    walk_tiles(m, n, pairs, a, b, choose(tiles), c, ldc, accumulate, NULL, 0);
    return 0;
}

int opemu_kernel_bf16_product_rounded(int64_t m, int64_t n, int64_t pairs, const uint32_t *a, const uint32_t *b,
                                      int tiles, uint16_t *c, int64_t ldc)
{
    if (refused(m, n, pairs, ldc, tiles))
        return -1;
    walk_tiles(m, n, pairs, a, b, choose(tiles), NULL, 0, 0, c, ldc);
    return 0;
}
