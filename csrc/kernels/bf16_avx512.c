/* The AVX-512 paths of the bf16 products (bf16_product.c says what the sums are): packing with 16 x 16 transposes
 * in registers, and tiles on the bf16 dot product instruction (AVX512_BF16) or on fp32 fused multiply-adds that
 * flush each result as the instruction does. */
#include "bf16_panels.h"

#if OPEMU_X86
#include <immintrin.h>
#include "transpose16.h"

#define LANES 16
#define VECS (PANEL_COLS / LANES)

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
PACK_TARGET int64_t opemu_bf16_pack_vectors_avx512(const void *src, int source, int64_t j0, int64_t real,
                                                    int64_t inner, int64_t count_stride, int64_t inner_stride,
                                                    int width, uint32_t *panel)
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

/* One pair's words of `present` panel elements, `rows` of them, stored (OPEMU_BF16_PACK_PAIR_ROWS) */
PACK_TARGET static inline void store_pair_words(const void *src, int source, int64_t at, int64_t inner_stride,
                                                int present, uint32_t *to, int rows)
{
    __m512i w = flush_vector(pair_words(src, source, at, inner_stride, (__mmask16)((1u << present) - 1)));
    _mm512_mask_storeu_epi32(to, (__mmask16)((1u << rows) - 1), w);
}

OPEMU_BF16_PACK_PAIR_ROWS(opemu_bf16_pack_pair_rows_avx512, PACK_TARGET, 16, store_pair_words)

#define UNROLLED _Pragma("GCC unroll 16")

/* The vector tiles: PANEL_ROWS × VECS accumulators in registers. PREPARE_B turns a vector of B words into
 * what STEP takes; STEP adds one A word's pair of products into an accumulator. */
#define DEFINE_TILE(NAME, TARGET, B_PARTS, PREPARE_B, STEP)                                                   \
    __attribute__((target(TARGET))) void NAME(int64_t pairs, const uint32_t *a, const uint32_t *b, float *c,      \
                                              int64_t ldc, int rows, int cols, int fresh)                    \
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

DEFINE_TILE(opemu_bf16_tile_dot, "avx512f,avx512bf16", 1, DOT_PREPARE, DOT_STEP)
DEFINE_TILE(opemu_bf16_tile_avx512, "avx512f", 2, FMA_PREPARE, FMA_STEP)
#endif
