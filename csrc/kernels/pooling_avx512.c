/* Max-pooling 3x3/2 backward's walk of a plane on AVX-512 (pooling.c says what it computes): blocks of 15
 * windows, 16 lanes (lane 0 the window before the block). */
#include "pooling.h"

#if OPEMU_X86
#include <immintrin.h>

/* An address `columns` elements from p, formed without pointer arithmetic: the masked loads and stores
 * below start left of x's rows but touch no element outside them. */
static inline const float *column_at(const float *p, int64_t columns)
{
    return (const float *)((uintptr_t)p + (uintptr_t)(columns * (int64_t)sizeof(float)));
}

/* A block's 16 windows, t0 - 1 .. t0 + 14 (lane l: window t0 - 1 + l), and where their values lie in x. */
struct window_block {
    int64_t t0, corner;          /* the x column of lane 0's first element: 2 (t0 - 1) - pw */
    __mmask16 low, high;         /* the lanes of x columns corner .. corner + 15 and corner + 16 .. + 31 inside x */
    int last;                    /* x column corner + 32 inside x */
    __mmask16 ahead;             /* the windows t0 .. t0 + 15 inside the output row */
    int before;                  /* window t0 - 1 inside it */
    int64_t at[2];               /* dx columns of the first stored lane of each half of the block's dx row */
    __mmask16 keep[2];           /* its stored lanes */
    int first[2];                /* its lanes left of x (moved out before the store) */
};

static __mmask16 lanes_inside(int64_t c, int64_t w)
{
    int64_t first = c < 0 ? -c : 0, stop = w - c < 16 ? w - c : 16;
    return first >= stop ? 0 : (__mmask16)(((1u << (stop - first)) - 1) << first);
}

/* The block's dx row holds padded columns 2t0 .. 2t0 + 29, dx columns 2t0 - pw on: 16 in its first half,
 * 14 in its second. */
static struct window_block window_block(const geometry *g, int64_t t0)
{
    struct window_block b = {.t0 = t0, .corner = 2 * (t0 - 1) - g->pw};
    b.low = lanes_inside(b.corner, g->w);
    b.high = lanes_inside(b.corner + 16, g->w);
    b.last = b.corner + 32 >= 0 && b.corner + 32 < g->w;
    b.ahead = t0 >= g->ow ? 0 : g->ow - t0 >= 16 ? 0xFFFF : (__mmask16)((1u << (g->ow - t0)) - 1);
    b.before = t0 > 0 && t0 <= g->ow;
    for (int h = 0; h < 2; h++) {
        int64_t c = 2 * t0 + 16 * h - g->pw, lanes = h ? 14 : 16; /* lane l's column: c + l */
        int64_t first = c < 0 ? -c : 0, stop = g->w - c < lanes ? g->w - c : lanes;
        b.first[h] = first < stop ? (int)first : 0;
        b.at[h] = first < stop ? c + first : 0;
        b.keep[h] = first < stop ? (__mmask16)((1u << (stop - first)) - 1) : 0;
    }
    return b;
}

/* Row r of x as the block's windows' first, second and third columns (NaN outside x) */
__attribute__((target("avx512f"))) static void block_columns(const geometry *g, const struct window_block *b,
                                                            const float *x, int64_t r, __m512 column[3])
{
    const __m512i even = _mm512_set_epi32(30, 28, 26, 24, 22, 20, 18, 16, 14, 12, 10, 8, 6, 4, 2, 0);
    const __m512i odd = _mm512_set_epi32(31, 29, 27, 25, 23, 21, 19, 17, 15, 13, 11, 9, 7, 5, 3, 1);
    const __m512 nan = _mm512_set1_ps(__builtin_nanf(""));
    if (r < 0 || r >= g->h) {
        column[0] = column[1] = column[2] = nan;
        return;
    }
    const float *row = x + r * g->x_row;
    __m512 low = _mm512_mask_loadu_ps(nan, b->low, column_at(row, b->corner));
    __m512 high = _mm512_mask_loadu_ps(nan, b->high, column_at(row, b->corner + 16));
    float last = b->last ? row[b->corner + 32] : __builtin_nanf("");
    column[0] = _mm512_permutex2var_ps(low, even, high);
    column[1] = _mm512_permutex2var_ps(low, odd, high);
    /* column 2u + 2 is the next window's first */
    column[2] = _mm512_castsi512_ps(_mm512_alignr_epi32(_mm512_castps_si512(_mm512_set1_ps(last)),
                                                        _mm512_castps_si512(column[0]), 1));
}

/* Output row q's values (y or dy) of the block's windows, +0 for windows outside the row */
__attribute__((target("avx512f"))) static __m512 block_values(const struct window_block *b, const float *row)
{
    __m512 before = _mm512_set1_ps(b->before ? row[b->t0 - 1] : 0);
    __m512 ahead = _mm512_maskz_loadu_ps(b->ahead, b->ahead ? row + b->t0 : row);
    return _mm512_castsi512_ps(_mm512_alignr_epi32(_mm512_castps_si512(ahead), _mm512_castps_si512(before), 15));
}

/* Element row i's dy from the windows that chose its column 0 (`left`), 1 (`middle`) and, one lane on
 * (window t - 1 to t), 2 (`right`); +0 from the others */
struct element_row {
    __m512 left, middle, right;
};

__attribute__((target("avx512f"))) static struct element_row element_row(const __mmask16 chose[9], int i, __m512 d)
{
    __m512 right = _mm512_maskz_mov_ps(chose[3 * i + 2], d);
    struct element_row e = {_mm512_maskz_mov_ps(chose[3 * i], d), _mm512_maskz_mov_ps(chose[3 * i + 1], d),
                            _mm512_castsi512_ps(_mm512_alignr_epi32(_mm512_castps_si512(right),
                                                                    _mm512_castps_si512(right), 15))};
    return e;
}

/* dx row r from its even and odd padded columns (lanes 1 .. 15: the windows t0 .. t0 + 14) */
__attribute__((target("avx512f"))) static void store_row(const geometry *g, const struct window_block *b,
                                                        float *target, int64_t pitch, int64_t r, __m512 even,
                                                        __m512 odd)
{
    const __m512i low = _mm512_set_epi32(24, 8, 23, 7, 22, 6, 21, 5, 20, 4, 19, 3, 18, 2, 17, 1);
    const __m512i high = _mm512_set_epi32(0, 0, 31, 15, 30, 14, 29, 13, 28, 12, 27, 11, 26, 10, 25, 9);
    const __m512i lanes = _mm512_set_epi32(15, 14, 13, 12, 11, 10, 9, 8, 7, 6, 5, 4, 3, 2, 1, 0);
    if (r < 0 || r >= g->h)
        return;
    float *row = target + r * pitch;
    const __m512 half[2] = {_mm512_permutex2var_ps(even, low, odd), _mm512_permutex2var_ps(even, high, odd)};
    for (int h = 0; h < 2; h++) {
        __m512 v = half[h];
        if (b->first[h]) /* the lane of dx column 0 down to lane 0 */
            v = _mm512_permutexvar_ps(_mm512_add_epi32(lanes, _mm512_set1_epi32(b->first[h])), v);
        _mm512_mask_storeu_ps(row + b->at[h], b->keep[h], v);
    }
}

__attribute__((target("avx512f"))) void opemu_pool_walk_avx512(const geometry *g, const float *x, const float *y,
                                                               const float *dy, float *target, int64_t pitch)
{
    const __m512 zero = _mm512_setzero_ps();
    const int64_t last = 2 * g->oh - g->ph; /* the last dx row a window reaches */
    for (int64_t t0 = 0; 2 * t0 < g->w + g->pw; t0 += 15) {
        const struct window_block b = window_block(g, t0);
        __m512 column[9];
        struct element_row below = {zero, zero, zero}; /* output row q - 1's element row 2 */
        block_columns(g, &b, x, -g->ph, column + 6);
        for (int64_t q = 0; q < g->oh; q++) {
            column[0] = column[6], column[1] = column[7], column[2] = column[8];
            block_columns(g, &b, x, 2 * q - g->ph + 1, column + 3);
            block_columns(g, &b, x, 2 * q - g->ph + 2, column + 6);
            __m512 m = block_values(&b, y + q * g->y_row), d = block_values(&b, dy + q * g->dy_row);
            __mmask16 chose[9], taken = 0;
            for (int e = 0; e < 9; e++) {
                __mmask16 equal = _mm512_cmp_ps_mask(column[e], m, _CMP_EQ_OQ);
                chose[e] = equal & ~taken;
                taken |= equal;
            }
            struct element_row top = element_row(chose, 0, d), mid = element_row(chose, 1, d);
            int64_t r = 2 * q - g->ph;
            store_row(g, &b, target, pitch, r,
                      _mm512_add_ps(_mm512_add_ps(_mm512_add_ps(_mm512_add_ps(zero, top.left), top.right),
                                                  below.left), below.right),
                      _mm512_add_ps(_mm512_add_ps(zero, top.middle), below.middle));
            store_row(g, &b, target, pitch, r + 1, _mm512_add_ps(_mm512_add_ps(zero, mid.left), mid.right),
                      _mm512_add_ps(zero, mid.middle));
            below = element_row(chose, 2, d);
        }
        store_row(g, &b, target, pitch, last, _mm512_add_ps(_mm512_add_ps(zero, below.left), below.right),
                  _mm512_add_ps(zero, below.middle));
    }
    for (int64_t r = last + 1 > 0 ? last + 1 : 0; r < g->h; r++)
        memset(target + r * pitch, 0, (size_t)g->w * sizeof(float));
}
#endif
