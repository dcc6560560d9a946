/* The baseline (x86-64-v3: AVX2, FMA) paths of the bf16 products (bf16_product.c says what the sums are):
 * packing with 8 x 8 transposes in registers (transpose8.h), and tiles on fp32 fused multiply-adds.
 *
 * A tile's chains run with the CPU flushing tiny results itself (MXCSR's flush-to-zero) where that gives the
 * flushing the sums are defined with, else with a flush after each step (four more operations a step, about
 * a third of the speed). The two differ only on exact results in [2^-126 - 2^-150, 2^-126 - 2^-151): IEEE
 * rounding at fp32's subnormal precision takes them up to 2^-126, which stays; flush-to-zero judges tininess
 * after rounding to 24 bits with an unbounded exponent, and they stay below 2^-126, so it makes them zeros
 * (measured on this host: 2^-126 - 2^-150 becomes 0). Every fp32 value is a multiple of 2^-149, and so is a
 * product of two bf16 values whose exponents sum to at least -135 (8-bit significands: a multiple of
 * 2^(ea + eb - 14)); then every exact s + a·b is one, and none lies in that range. So a block takes the
 * flush-to-zero chains when its A and B elements' smallest exponents allow it: always, but for operands whose
 * products reach below ~2^-134. */
#include "bf16_panels.h"

#include <stdlib.h>

#if OPEMU_X86
#include <immintrin.h>
#include "transpose8.h"

#define TARGET OPEMU_TARGET_BASELINE
#define LANES 8
#define FTZ 0x8000u

/* ---- packing ---- */

/* A word with each subnormal half made a zero of its sign, eight at a time */
TARGET static inline __m256i flush_halves8(__m256i w)
{
    const __m256i tiny = _mm256_cmpeq_epi16(_mm256_and_si256(w, _mm256_set1_epi16(0x7F80)), _mm256_setzero_si256());
    return _mm256_andnot_si256(_mm256_and_si256(tiny, _mm256_set1_epi16(0x7FFF)), w);
}

/* Row words for pairs p .. p + 7, whose elements lie side by side from element `at` */
TARGET static inline __m256i row_words8(const void *src, int source, int64_t at)
{
    if (source == OPEMU_BF16_FROM_BF16)
        return _mm256_loadu_si256((const __m256i *)((const uint16_t *)src + at));
    const uint32_t *f = (const uint32_t *)src + at;
    const __m256i low = _mm256_srli_epi32(_mm256_loadu_si256((const __m256i *)f), 16);
    const __m256i high = _mm256_srli_epi32(_mm256_loadu_si256((const __m256i *)(f + 8)), 16);
    /* packs within 128-bit lanes: (low 0-3, high 0-3 | low 4-7, high 4-7), then the 64-bit pieces in order */
    return _mm256_permute4x64_epi64(_mm256_packus_epi32(low, high), 0xD8);
}

/* `rows` (8, or the 4 past a 12-row panel's first 8) words to a panel */
TARGET static inline void store_words(uint32_t *to, __m256i w, int rows)
{
    if (rows == LANES)
        _mm256_storeu_si256((__m256i *)to, w);
    else
        _mm_storeu_si128((__m128i *)to, _mm256_castsi256_si128(w));
}

TARGET int64_t opemu_bf16_pack_vectors_baseline(const void *src, int source, int64_t j0, int64_t real, int64_t inner,
                                                int64_t count_stride, int64_t inner_stride, int width,
                                                uint32_t *panel)
{
    if (inner_stride != 1)
        return 0;
    const int64_t whole = inner / 2, done = whole - whole % LANES;
    /* a group of 8 rows along its whole length before the next, as the AVX-512 path takes 16 */
    for (int g = 0; g < width; g += LANES) {
        const int rows = width - g < LANES ? width - g : LANES;
        for (int64_t p = 0; p < done; p += LANES) {
            __m256i r[LANES];
            for (int i = 0; i < LANES; i++)
                r[i] = g + i < real ? row_words8(src, source, (j0 + g + i) * count_stride + 2 * p)
                                    : _mm256_setzero_si256();
            opemu_transpose8(r);
            for (int i = 0; i < LANES; i++)
                store_words(panel + (p + i) * width + g, flush_halves8(r[i]), rows);
        }
    }
    return done;
}

/* Words of pairs p for `present` panel elements side by side, the pair's halves in two rows */
TARGET static inline __m256i pair_words8(const void *src, int source, int64_t at, int64_t inner_stride, int present)
{
    if (source == OPEMU_BF16_FROM_FLOAT) {
        const __m256i take = _mm256_cmpgt_epi32(_mm256_set1_epi32(present), _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7));
        const int *f = (const int *)src + at;
        const __m256i even = _mm256_srli_epi32(_mm256_maskload_epi32(f, take), 16);
        const __m256i odd = _mm256_and_si256(_mm256_maskload_epi32(f + inner_stride, take),
                                             _mm256_set1_epi32((int)0xFFFF0000u));
        return _mm256_or_si256(even, odd);
    }
    const uint16_t *h = (const uint16_t *)src + at;
    uint16_t even[LANES] = {0}, odd[LANES] = {0};
    if (present == LANES) {
        memcpy(even, h, sizeof even);
        memcpy(odd, h + inner_stride, sizeof odd);
    } else {
        for (int i = 0; i < present; i++)
            even[i] = h[i], odd[i] = h[inner_stride + i];
    }
    const __m256i e = _mm256_cvtepu16_epi32(_mm_loadu_si128((const __m128i *)even));
    const __m256i o = _mm256_cvtepu16_epi32(_mm_loadu_si128((const __m128i *)odd));
    return _mm256_or_si256(e, _mm256_slli_epi32(o, 16));
}

/* One pair's words of `present` panel elements, `rows` of them, stored (OPEMU_BF16_PACK_PAIR_ROWS) */
TARGET static inline void store_pair_words(const void *src, int source, int64_t at, int64_t inner_stride, int present,
                                           uint32_t *to, int rows)
{
    store_words(to, flush_halves8(pair_words8(src, source, at, inner_stride, present)), rows);
}

OPEMU_BF16_PACK_PAIR_ROWS(opemu_bf16_pack_pair_rows_baseline, TARGET, LANES, store_pair_words)

/* ---- tiles ---- */

/* The smallest magnitude of a non-zero half among `words`, less one, as 16 unsigned bits (0xFFFF: none), eight
 * words at a time: its exponent is the block's floor. */
TARGET static inline __m256i smallest_halves(__m256i least, __m256i w)
{
    const __m256i magnitude = _mm256_and_si256(w, _mm256_set1_epi16(0x7FFF));
    return _mm256_min_epu16(least, _mm256_sub_epi16(magnitude, _mm256_set1_epi16(1)));
}

TARGET static inline int floor_of(__m256i least)
{
    __m128i m = _mm_min_epu16(_mm256_castsi256_si128(least), _mm256_extracti128_si256(least, 1));
    m = _mm_minpos_epu16(m);
    return ((_mm_cvtsi128_si32(m) & 0xFFFF) + 1) >> 7; /* 512 for no non-zero half */
}

/* A's panel block as fp32 values, [pair][odd row 0..11, even row 0..11] (what the tiles broadcast), and the
 * exponent floor of its elements */
TARGET static int widen_a(int64_t pairs, const uint32_t *a, float *wide)
{
    const __m256i high = _mm256_set1_epi32((int)0xFFFF0000u);
    __m256i least = _mm256_set1_epi16(-1);
    for (int64_t p = 0; p < pairs; p++) {
        const __m256i w = _mm256_loadu_si256((const __m256i *)(a + p * PANEL_ROWS));    /* rows 0-7 */
        const __m128i v = _mm_loadu_si128((const __m128i *)(a + p * PANEL_ROWS + LANES)); /* rows 8-11 */
        float *to = wide + p * 2 * PANEL_ROWS;
        _mm256_storeu_si256((__m256i *)to, _mm256_and_si256(w, high));
        _mm_storeu_si128((__m128i *)(to + LANES), _mm_and_si128(v, _mm256_castsi256_si128(high)));
        _mm256_storeu_si256((__m256i *)(to + PANEL_ROWS), _mm256_slli_epi32(w, 16));
        _mm_storeu_si128((__m128i *)(to + PANEL_ROWS + LANES), _mm_slli_epi32(v, 16));
        least = smallest_halves(smallest_halves(least, w), _mm256_broadcastsi128_si256(v));
    }
    return floor_of(least);
}

/* B's panel block as fp32 values, [pair][odd column 0..31, even column 0..31] (what the tiles load as vectors),
 * and the exponent floor of its elements */
TARGET static int widen_b(int64_t pairs, const uint32_t *b, float *wide)
{
    const __m256i high = _mm256_set1_epi32((int)0xFFFF0000u);
    __m256i least = _mm256_set1_epi16(-1);
    for (int64_t p = 0; p < pairs; p++)
        for (int v = 0; v < PANEL_COLS; v += LANES) {
            const __m256i w = _mm256_loadu_si256((const __m256i *)(b + p * PANEL_COLS + v));
            _mm256_storeu_si256((__m256i *)(wide + p * 2 * PANEL_COLS + v), _mm256_and_si256(w, high));
            _mm256_storeu_si256((__m256i *)(wide + p * 2 * PANEL_COLS + PANEL_COLS + v), _mm256_slli_epi32(w, 16));
            least = smallest_halves(least, w);
        }
    return floor_of(least);
}

/* flush() of bf16_product.c, eight at a time */
TARGET static inline __m256 flush8(__m256 v)
{
    const __m256 magnitude = _mm256_and_ps(v, _mm256_castsi256_ps(_mm256_set1_epi32(0x7FFFFFFF)));
    const __m256 tiny = _mm256_cmp_ps(magnitude, _mm256_set1_ps(0x1p-126f), _CMP_LT_OQ);
    return _mm256_xor_ps(v, _mm256_and_ps(tiny, magnitude));
}

#define UNROLLED _Pragma("GCC unroll 8") /* whole, so that the accumulators stay in registers */
enum { SUB_ROWS = 6, SUB_VECS = 2 }; /* 12 accumulators of the 16 registers, 2 for B and 1 for A's broadcast */

#define STEP(flushing, s, x, y) ((flushing) ? flush8(_mm256_fmadd_ps((x), (y), (s))) : _mm256_fmadd_ps((x), (y), (s)))

/* The chains of rows r0 .. r0 + 5 and columns j0 .. j0 + 15 into `out` (PANEL_COLS apart), on the widened blocks:
 * an fp32 GEMM's inner loop. A loop of its own: GCC keeps the accumulators in registers only there. */
#define DEFINE_SUB_TILE(NAME, FLUSHING)                                                                   \
    TARGET __attribute__((noinline)) static void NAME(int64_t pairs, const float *a, const float *b, float *out) \
    {                                                                                                     \
        __m256 s[SUB_ROWS][SUB_VECS];                                                                     \
        UNROLLED for (int r = 0; r < SUB_ROWS; r++)                                                       \
            UNROLLED for (int v = 0; v < SUB_VECS; v++)                                                   \
                s[r][v] = _mm256_setzero_ps();                                                            \
        for (int64_t p = 0; p < pairs; p++, a += 2 * PANEL_ROWS, b += 2 * PANEL_COLS)                     \
            UNROLLED for (int half = 0; half < 2; half++) { /* the odd elements, then the even ones */    \
                __m256 bv[SUB_VECS];                                                                      \
                UNROLLED for (int v = 0; v < SUB_VECS; v++)                                               \
                    bv[v] = _mm256_loadu_ps(b + half * PANEL_COLS + v * LANES);                           \
                UNROLLED for (int r = 0; r < SUB_ROWS; r++) {                                             \
                    const __m256 av = _mm256_broadcast_ss(a + half * PANEL_ROWS + r);                     \
                    UNROLLED for (int v = 0; v < SUB_VECS; v++)                                           \
                        s[r][v] = STEP(FLUSHING, s[r][v], av, bv[v]);                                     \
                }                                                                                         \
            }                                                                                             \
        UNROLLED for (int r = 0; r < SUB_ROWS; r++)                                                       \
            UNROLLED for (int v = 0; v < SUB_VECS; v++)                                                   \
                _mm256_storeu_ps(out + r * PANEL_COLS + v * LANES, s[r][v]);                              \
    }

DEFINE_SUB_TILE(sub_tile_ftz, 0)
DEFINE_SUB_TILE(sub_tile_flushing, 1)

/* exponents of a and b summing to this or more make products that are multiples of 2^-149 (biased: 127 + 127 - 135) */
enum { FTZ_EXACT_FLOOR = 119 };

/* One tile's chains over a block into `out`, only the sub-tiles that hold any of its rows × cols: under MXCSR's
 * flush-to-zero where the floors allow it, set and restored around the sub-tiles (calls: no step moves across
 * the setting), else flushing each step. */
TARGET static void chains(int64_t pairs, const float *a, int a_floor, const float *b, int b_floor, int rows,
                          int cols, float *out)
{
    const int ftz = a_floor + b_floor >= FTZ_EXACT_FLOOR;
    unsigned saved, flushing;
    __asm__ volatile("vstmxcsr %0" : "=m"(saved));
    flushing = saved | FTZ;
    if (ftz)
        __asm__ volatile("vldmxcsr %0" ::"m"(flushing) : "memory");
    for (int r0 = 0; r0 < rows; r0 += SUB_ROWS)
        for (int j0 = 0; j0 < cols; j0 += SUB_VECS * LANES)
            (ftz ? sub_tile_ftz : sub_tile_flushing)(pairs, a + r0, b + j0, out + r0 * PANEL_COLS + j0);
    if (ftz)
        __asm__ volatile("vldmxcsr %0" ::"m"(saved) : "memory");
}

/* bf16_product.c's walk on this level: each B panel widened once (its blocks' floors with it) for every tile of
 * its column, each A block widened for its tile. Returns -1 when the B panel's buffer cannot be allocated. */
TARGET int opemu_bf16_walk_baseline(int64_t m, int64_t n, int64_t pairs, const uint32_t *a, const uint32_t *b,
                                    float *c, int64_t ldc, int accumulate, uint16_t *rounded, int64_t ldr)
{
    const int64_t blocks = (pairs + BLOCK_PAIRS - 1) / BLOCK_PAIRS;
    float *b_wide = malloc((size_t)(pairs > 0 ? pairs : 1) * 2 * PANEL_COLS * sizeof(float));
    int *b_floor = malloc((size_t)(blocks > 0 ? blocks : 1) * sizeof(int));
    float a_wide[BLOCK_PAIRS * 2 * PANEL_ROWS] __attribute__((aligned(32)));
    float out[PANEL_ROWS * PANEL_COLS] __attribute__((aligned(32)));
    if (!b_wide || !b_floor) {
        free(b_wide), free(b_floor);
        return -1;
    }
    for (int64_t j0 = 0; j0 < n; j0 += PANEL_COLS) {
        const uint32_t *bp = b + (j0 / PANEL_COLS) * pairs * PANEL_COLS;
        const int cols = n - j0 < PANEL_COLS ? (int)(n - j0) : PANEL_COLS;
        for (int64_t k0 = 0; k0 < pairs; k0 += BLOCK_PAIRS)
            b_floor[k0 / BLOCK_PAIRS] = widen_b(pairs - k0 < BLOCK_PAIRS ? pairs - k0 : BLOCK_PAIRS,
                                                bp + k0 * PANEL_COLS, b_wide + k0 * 2 * PANEL_COLS);
        for (int64_t i0 = 0; i0 < m; i0 += PANEL_ROWS) {
            const uint32_t *ap = a + (i0 / PANEL_ROWS) * pairs * PANEL_ROWS;
            const int rows = m - i0 < PANEL_ROWS ? (int)(m - i0) : PANEL_ROWS;
            float *at = rounded ? out : c + i0 * ldc + j0;
            const int64_t ld = rounded ? PANEL_COLS : ldc;
            if (pairs == 0 && !accumulate)
                add_tile(opemu_bf16_zeros, at, ld, rows, cols, 1);
            for (int64_t k0 = 0; k0 < pairs; k0 += BLOCK_PAIRS) {
                const int64_t block = pairs - k0 < BLOCK_PAIRS ? pairs - k0 : BLOCK_PAIRS;
                const int a_floor = widen_a(block, ap + k0 * PANEL_ROWS, a_wide);
                float sums[PANEL_ROWS * PANEL_COLS] __attribute__((aligned(32)));
                chains(block, a_wide, a_floor, b_wide + k0 * 2 * PANEL_COLS, b_floor[k0 / BLOCK_PAIRS], rows, cols,
                       sums);
                add_tile(sums, at, ld, rows, cols, k0 == 0 && !accumulate);
            }
            if (rounded)
                opemu_bf16_store_rounded(out, rows, cols, rounded + i0 * ldr + j0, ldr);
        }
    }
    free(b_wide);
    free(b_floor);
    return 0;
}
#endif
