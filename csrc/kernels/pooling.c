/* Max-pooling backward (python/opemu/ops/mcdnn/pooling.py _Phases.max_backward / backward).
 *
 * dy of each window goes to the window's first element, in row-major order, that equals y (padding
 * equals nothing). The reference accumulates an input element's gradient from +0 over the windows
 * that chose it in window-element order (row offset i, then column offset j); for one input element a
 * larger (i, j) is a smaller output (oh, ow), so scattering the outputs in reverse row-major order
 * adds in the same order and rounds alike where windows overlap. 2x2/2 without padding, the common
 * non-overlapping case, has its own loop that writes every dx element once; 3x3/2, the common
 * overlapping one, its own walk (below). Planes are not prefetched ahead: a plane's ~300 prefetches at
 * once filled the core's miss buffers and stalled it (3x3/2 on 32x64x56x56: 3.7 ms with them, 2.9-3.0
 * without); a plane's rows prefetched one by one while the previous plane computes gained nothing. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <stdatomic.h>
#include "nontemporal.h"
#include "pooling.h"

static int64_t lo_clip(int64_t v) { return v < 0 ? 0 : v; }
static int64_t hi_clip(int64_t v, int64_t limit) { return v > limit ? limit : v; }

/* 3x3 windows, stride 2, any padding. Window (q, t) covers rows 2q - ph .. 2q - ph + 2 and columns
 * 2t - pw .. 2t - pw + 2; its element e = 3i + j. Its choice is the first element, in row-major order, equal
 * to y; padding equals nothing.
 *
 * fp32 with AVX-512 (pooling_avx512.c) walks a plane once: a block of 15 windows at a time, down the plane, it
 * finds the choices and sums each dx element from them directly, without the scatter's read-modify-write.
 * Each dx element is what the scatter leaves there: +0 plus the dy of every window that chose it in reverse
 * row-major order. Adding +0 for a window that did not choose it changes nothing, since a sum from +0 is
 * never -0, so every candidate window adds, chosen or not:
 * - output row q's element rows i = 0, 1, 2 are dx rows 2q - ph + i, so dx row 2q - ph takes row q's
 *   element row 0 and then row q - 1's element row 2;
 * - padded column p = c + pw is, for even p = 2t, element column 0 of window t and then column 2 of window
 *   t - 1; for odd p = 2t + 1 it is column 1 of window t.
 * On 32x64x56x56, one core of this host's EPYC: 6.3-6.8 ms with a vectorized choice pass then the scatter,
 * 4.7-4.9 ms with a separate gather pass, 4.0-4.1 ms like this (two cores: 3.2-3.3, 2.0-2.1).
 *
 * Elsewhere a plane's choices are bits (bit e: element e equals y; the lowest is the choice), in an integer
 * of the data's width, found by a scalar walk (rows past x, padding, read a row of NaNs, which equals
 * nothing). They are then scattered in reverse row-major order, as scatter() does. That is the baseline's
 * path too: the same walk on AVX2 (8 lanes, 7 windows a block) took 15 ns a window with the plane in L1 and 63
 * on all of 32x64x56x56 on this host's EPYC, against 6 and 23 for the scalar choices and scatter, which read
 * and write the plane row by row where the walk goes down it a block of columns at a time. */
static int fused_f32(const geometry *g, const float *x, const float *y, const float *dy, float *target, int64_t pitch)
{
#if OPEMU_X86
    if (opemu_isa() >= OPEMU_ISA_AVX512) {
        opemu_pool_walk_avx512(g, x, y, dy, target, pitch);
        return 1;
    }
#endif
    return 0;
}

/* (double data takes the choices and the scatter) */
static int fused_f64(const geometry *g, const double *x, const double *y, const double *dy, double *target,
                     int64_t pitch)
{
    return 0;
}

#define DEFINE_POOL_3X3(T, I, SUFFIX)                                                                     \
    /* the bits of window t's elements equal to m, the window reaching past x's columns (rows past x are   \
     * `nothing`'s, which equals nothing) */                                                              \
    static I edge_choice_##SUFFIX(const geometry *g, const T *const rows[3], T m, int64_t t)              \
    {                                                                                                     \
        I k = 0;                                                                                          \
        for (int j = 0; j < 3; j++) {                                                                     \
            int64_t c = 2 * t - g->pw + j;                                                                \
            if (c >= 0 && c < g->w)                                                                       \
                for (int i = 0; i < 3; i++)                                                               \
                    k |= (I)(rows[i][c] == m) << (3 * i + j);                                             \
        }                                                                                                 \
        return k;                                                                                         \
    }                                                                                                     \
    /* the choices of output row q as bits (bit e: element e equals y; the lowest is the choice). The     \
     * rows of its windows that lie outside x (padding) are `nothing`, a row of NaNs as wide as x. */      \
    static void choose_row_##SUFFIX(const geometry *g, const T *x, const T *nothing, const T *yr, int64_t q, \
                                    I *restrict choice)                                                   \
    {                                                                                                     \
        const T *rows[3];                                                                                 \
        for (int i = 0; i < 3; i++) {                                                                     \
            int64_t r = 2 * q - g->ph + i;                                                                \
            rows[i] = r >= 0 && r < g->h ? x + r * g->x_row : nothing;                                    \
        }                                                                                                 \
        int64_t lo = g->ow, hi = g->ow;                                                                   \
        if (g->w + g->pw >= 3) { /* windows t in [lo, hi) lie inside x's columns */                       \
            lo = (g->pw + 1) / 2, hi = (g->w + g->pw - 1) / 2;                                            \
            hi = hi < g->ow ? hi : g->ow, lo = lo < hi ? lo : hi;                                         \
        }                                                                                                 \
        for (int64_t t = 0; t < lo; t++)                                                                  \
            choice[t] = edge_choice_##SUFFIX(g, rows, yr[t], t);                                          \
        /* the rows from the window corner's column (indices: the corner may lie left of x) */            \
        const int64_t left = -g->pw;                                                                      \
        const T *a = rows[0] + left, *b = rows[1] + left, *c = rows[2] + left;                            \
        for (int64_t t = lo; t < hi; t++) {                                                               \
            T m = yr[t];                                                                                  \
            I k = 0;                                                                                      \
            k |= a[2 * t] == m ? 1 : 0;                                                                   \
            k |= a[2 * t + 1] == m ? 2 : 0;                                                               \
            k |= a[2 * t + 2] == m ? 4 : 0;                                                               \
            k |= b[2 * t] == m ? 8 : 0;                                                                   \
            k |= b[2 * t + 1] == m ? 16 : 0;                                                              \
            k |= b[2 * t + 2] == m ? 32 : 0;                                                              \
            k |= c[2 * t] == m ? 64 : 0;                                                                  \
            k |= c[2 * t + 1] == m ? 128 : 0;                                                             \
            k |= c[2 * t + 2] == m ? 256 : 0;                                                             \
            choice[t] = k;                                                                                \
        }                                                                                                 \
        for (int64_t t = hi; t < g->ow; t++)                                                              \
            choice[t] = edge_choice_##SUFFIX(g, rows, yr[t], t);                                          \
    }                                                                                                     \
    /* `plane`: a dense h x w scratch to scatter into, then streamed to dx (small planes), or NULL; the   \
     * fused walk writes dx itself (through a scratch plane and a stream it took 2.2-2.4 ms, not 2.0-2.1, \
     * on 32x64x56x56 on two cores) */                                                                    \
    static void three_by_three_##SUFFIX(const geometry *g, const T *x, const T *y, const T *dy, T *dx,    \
                                        I *choice, const T *nothing, T *plane)                            \
    {                                                                                                     \
        if (fused_##SUFFIX(g, x, y, dy, dx, g->dx_row))                                                   \
            return;                                                                                       \
        T *target = plane ? plane : dx;                                                                   \
        int64_t pitch = plane ? g->w : g->dx_row, offset[9];                                              \
        for (int64_t q = 0; q < g->oh; q++)                                                               \
            choose_row_##SUFFIX(g, x, nothing, y + q * g->y_row, q, choice + q * g->ow);                  \
        for (int e = 0; e < 9; e++) /* element e's place from the window's corner */                      \
            offset[e] = e / 3 * pitch + e % 3;                                                            \
        for (int64_t r = 0; r < g->h; r++)                                                                \
            memset(target + r * pitch, 0, (size_t)g->w * sizeof(T));                                      \
        for (int64_t q = g->oh - 1; q >= 0; q--) {                                                        \
            const T *dyr = dy + q * g->dy_row;                                                            \
            const I *cr = choice + q * g->ow;                                                             \
            int64_t corner = (2 * q - g->ph) * pitch - g->pw;                                             \
            for (int64_t t = g->ow - 1; t >= 0; t--)                                                      \
                if (cr[t]) {                                                                              \
                    T *d = target + (corner + 2 * t + offset[__builtin_ctz((unsigned)cr[t])]);            \
                    *d = *d + dyr[t];                                                                     \
                }                                                                                         \
        }                                                                                                 \
        if (plane && g->dx_row == g->w) /* a dense plane: one run */                                      \
            opemu_nontemporal_copy(dx, plane, (size_t)(g->h * g->w) * sizeof(T));                         \
        else if (plane)                                                                                   \
            for (int64_t r = 0; r < g->h; r++)                                                            \
                opemu_nontemporal_copy(dx + r * g->dx_row, plane + r * g->w, (size_t)g->w * sizeof(T));   \
    }

DEFINE_POOL_3X3(float, int32_t, f32)
DEFINE_POOL_3X3(double, int64_t, f64)

#define DEFINE_POOL(T, SUFFIX)                                                                            \
    /* window (oh, ow)'s choice as an offset into the dx plane (row * dx_row + col), or -1 */             \
    static inline int64_t choice_##SUFFIX(const geometry *g, const T *x, T y, int64_t oh, int64_t ow,     \
                                          int64_t kh, int64_t kw, int64_t sh, int64_t sw)                 \
    {                                                                                                     \
        int64_t r0 = oh * sh - g->ph, c0 = ow * sw - g->pw;                                               \
        if (r0 >= 0 && c0 >= 0 && r0 + kh <= g->h && c0 + kw <= g->w && kh * kw <= 32) {                  \
            /* inside x: every comparison into one mask, the first set bit the choice (no branch to       \
             * mispredict per element) */                                                                 \
            const T *w0 = x + r0 * g->x_row + c0;                                                         \
            uint32_t mask = 0;                                                                            \
            for (int64_t i = 0; i < kh; i++)                                                              \
                for (int64_t j = 0; j < kw; j++)                                                          \
                    mask |= (uint32_t)(w0[i * g->x_row + j] == y) << (i * kw + j);                        \
            if (mask == 0)                                                                                \
                return -1;                                                                                \
            int k = __builtin_ctz(mask);                                                                  \
            return (r0 + k / kw) * g->dx_row + c0 + k % kw;                                               \
        }                                                                                                 \
        int64_t r1 = hi_clip(r0 + kh, g->h), c1 = hi_clip(c0 + kw, g->w);                                 \
        for (int64_t r = lo_clip(r0); r < r1; r++)                                                        \
            for (int64_t c = lo_clip(c0); c < c1; c++)                                                    \
                if (x[r * g->x_row + c] == y)                                                             \
                    return r * g->dx_row + c;                                                             \
        return -1;                                                                                        \
    }                                                                                                     \
    static inline void scatter_##SUFFIX(const geometry *g, const T *x, const T *y, const T *dy, T *dx,    \
                                        int64_t kh, int64_t kw, int64_t sh, int64_t sw)                   \
    {                                                                                                     \
        for (int64_t r = 0; r < g->h; r++)                                                                \
            memset(dx + r * g->dx_row, 0, (size_t)g->w * sizeof(T));                                      \
        for (int64_t oh = g->oh - 1; oh >= 0; oh--)                                                       \
            for (int64_t ow = g->ow - 1; ow >= 0; ow--) {                                                 \
                int64_t at = choice_##SUFFIX(g, x, y[oh * g->y_row + ow], oh, ow, kh, kw, sh, sw);        \
                if (at >= 0) {                                                                            \
                    T *d = dx + at;                                                                       \
                    *d = *d + dy[oh * g->dy_row + ow];                                                    \
                }                                                                                         \
            }                                                                                             \
    }                                                                                                     \
    /* 2x2 windows, stride 2, no padding, every window inside x: each dx element written once */          \
    static void two_by_two_##SUFFIX(const geometry *g, const T *x, const T *y, const T *dy, T *dx)        \
    {                                                                                                     \
        for (int64_t oh = 0; oh < g->oh; oh++) {                                                          \
            const T *x0 = x + 2 * oh * g->x_row, *x1 = x0 + g->x_row;                                     \
            const T *yr = y + oh * g->y_row, *dyr = dy + oh * g->dy_row;                                  \
            T *d0 = dx + 2 * oh * g->dx_row, *d1 = d0 + g->dx_row;                                        \
            for (int64_t ow = 0; ow < g->ow; ow++) {                                                      \
                T m = yr[ow], v = (T)0 + dyr[ow];                                                         \
                int a = x0[2 * ow] == m, b = x0[2 * ow + 1] == m, c = x1[2 * ow] == m;                    \
                int d = x1[2 * ow + 1] == m;                                                              \
                b &= !a;                                                                                  \
                c &= !(a | b);                                                                            \
                d &= !(a | b | c);                                                                        \
                d0[2 * ow] = a ? v : 0;                                                                   \
                d0[2 * ow + 1] = b ? v : 0;                                                               \
                d1[2 * ow] = c ? v : 0;                                                                   \
                d1[2 * ow + 1] = d ? v : 0;                                                               \
            }                                                                                             \
            for (int64_t col = 2 * g->ow; col < g->w; col++)                                              \
                d0[col] = d1[col] = 0;                                                                    \
        }                                                                                                 \
        for (int64_t r = 2 * g->oh; r < g->h; r++)                                                        \
            memset(dx + r * g->dx_row, 0, (size_t)g->w * sizeof(T));                                      \
    }                                                                                                     \
    /* `choices`, `nothing`, `plane`: the 3x3/2 walk's scratch (NULL for another window) */              \
    static void plane_##SUFFIX(const geometry *g, const T *x, const T *y, const T *dy, T *dx, void *choices, \
                               const void *nothing, void *plane)                                          \
    {                                                                                                     \
        if (g->kh == 2 && g->kw == 2 && g->sh == 2 && g->sw == 2 && g->ph == 0 && g->pw == 0 &&           \
            2 * g->oh <= g->h && 2 * g->ow <= g->w)                                                       \
            two_by_two_##SUFFIX(g, x, y, dy, dx);                                                         \
        else if (choices)                                                                                 \
            three_by_three_##SUFFIX(g, x, y, dy, dx, choices, nothing, plane);                            \
        else                                                                                              \
            scatter_##SUFFIX(g, x, y, dy, dx, g->kh, g->kw, g->sh, g->sw);                                \
    }

DEFINE_POOL(float, f32)
DEFINE_POOL(double, f64)

/* The cache lines of `rows` rows of `bytes` bytes `pitch` bytes apart, fetched ahead (for writing when `write`) */
static void prefetch_rows(const char *p, int64_t rows, int64_t bytes, int64_t pitch, int write)
{
    for (int64_t r = 0; r < rows; r++, p += pitch)
        for (int64_t b = 0; b < bytes; b += 64) {
            if (write)
                __builtin_prefetch(p + b, 1, 3);
            else
                __builtin_prefetch(p + b, 0, 3);
        }
}

/* Planes of a few pages: the hardware prefetchers, which stop at page boundaries, barely start on one */
static int small_planes(const geometry *g, int size)
{
    return g->w > 0 && g->w <= (64 << 10) / size && g->h <= (64 << 10) / (g->w * size);
}

/* Average-pooling backward (_Phases.average_backward): each window's share dy / count (0 where the count is
 * 0) goes to every input element of the window; an element adds its shares to +0 in window-element order
 * (row offset i, then column offset j). Row by row of dx: the output rows over it in order of i (the
 * largest first), for each the column offsets j in order, each a contiguous pass adding a row of shares
 * into the accumulator of its stride phase (padded column sw*t + j is phase j % sw, place t + j / sw: one
 * share per place per pass); the phases are then interleaved into the dx row. */
static int64_t average_places(const geometry *g)
{
    int64_t last_column = (g->w - 1 + g->pw) / g->sw, last_window = g->ow - 1 + (g->kw - 1) / g->sw;
    return (last_column > last_window ? last_column : last_window) + 1;
}

#define DEFINE_AVERAGE(T, SUFFIX)                                                                         \
    static void average_plane_##SUFFIX(const geometry *g, const T *counts, const T *dy, T *dx, T *share,  \
                                       T *acc)                                                            \
    {                                                                                                     \
        int64_t places = average_places(g), sh = g->sh, sw = g->sw;                                       \
        for (int64_t q = 0; q < g->oh; q++) { /* divide, then mask: two loops, so the division vectorizes */ \
            const T *restrict v = dy + q * g->dy_row, *restrict count = counts + q * g->ow;               \
            T *restrict out = share + q * g->ow;                                                          \
            for (int64_t t = 0; t < g->ow; t++)                                                           \
                out[t] = v[t] / count[t];                                                                 \
            for (int64_t t = 0; t < g->ow; t++)                                                           \
                out[t] = count[t] > 0 ? out[t] : (T)0;                                                    \
        }                                                                                                 \
        for (int64_t r = 0; r < g->h; r++) {                                                              \
            int64_t R = r + g->ph, q_hi = R / sh < g->oh - 1 ? R / sh : g->oh - 1;                        \
            int64_t q_lo = R - g->kh + 1 > 0 ? (R - g->kh + sh) / sh : 0; /* i = R - q*sh < kh */         \
            for (int64_t k = 0; k < sw * places; k++)                                                     \
                acc[k] = 0;                                                                               \
            for (int64_t q = q_hi; q >= q_lo; q--) {                                                      \
                const T *restrict row = share + q * g->ow;                                                \
                for (int64_t j = 0; j < g->kw; j++) {                                                     \
                    T *restrict a = acc + j % sw * places + j / sw;                                       \
                    for (int64_t t = 0; t < g->ow; t++)                                                   \
                        a[t] = a[t] + row[t];                                                             \
                }                                                                                         \
            }                                                                                             \
            T *d = dx + r * g->dx_row;                                                                    \
            if (sw == 2) { /* both phases in one loop: the interleaved stores vectorize */                \
                const T *even = acc + (g->pw & 1) * places + (g->pw >> 1);                                \
                const T *odd = acc + !(g->pw & 1) * places + ((g->pw + 1) >> 1);                          \
                for (int64_t m = 0; m < g->w / 2; m++) {                                                  \
                    d[2 * m] = even[m];                                                                   \
                    d[2 * m + 1] = odd[m];                                                                \
                }                                                                                         \
                if (g->w & 1)                                                                             \
                    d[g->w - 1] = even[g->w / 2];                                                         \
                continue;                                                                                 \
            }                                                                                             \
            for (int64_t phase = 0; phase < sw; phase++) {                                                \
                int64_t c = ((phase - g->pw) % sw + sw) % sw; /* the first column of the phase */         \
                const T *a = acc + phase * places + (c + g->pw) / sw;                                     \
                for (; c < g->w; c += sw, a++)                                                            \
                    d[c] = *a;                                                                            \
            }                                                                                             \
        }                                                                                                 \
    }

DEFINE_AVERAGE(float, f32)
DEFINE_AVERAGE(double, f64)

/* A call's images x planes, cut for the pool: plane k is image k / planes, plane k % planes. Each part makes its
 * own scratch; one that cannot says so in `failed` (the caller then runs the reference over everything). */
struct pool_job {
    int size;
    const struct opemu_pool_geometry *g;
    const void *counts, *x, *y, *dy;
    void *dx;
    int64_t planes;
    _Atomic int failed;
};

static void average_piece(const void *job, int index, int64_t lo, int64_t hi)
{
    struct pool_job *j = (struct pool_job *)job;
    const struct opemu_pool_geometry *g = j->g;
    int size = j->size;
    int64_t places = average_places(g);
    char *scratch = malloc((size_t)(g->oh * g->ow + g->sw * places) * (size_t)size);
    if (!scratch) {
        j->failed = 1;
        return;
    }
    void *acc = scratch + g->oh * g->ow * size;
    int small = small_planes(g, size);
    for (int64_t k = lo; k < hi; k++) {
        int64_t n = k / j->planes, c = k % j->planes;
        int64_t dyo = n * g->dy_image + c * g->dy_plane, dxo = n * g->dx_image + c * g->dx_plane;
        if (k + 1 < hi && c + 1 < j->planes && small) { /* the next plane's lines arrive while this one computes */
            prefetch_rows((const char *)j->dy + (dyo + g->dy_plane) * size, g->oh, g->ow * size, g->dy_row * size, 0);
            prefetch_rows((const char *)j->dx + (dxo + g->dx_plane) * size, g->h, g->w * size, g->dx_row * size, 1);
        }
        if (size == 4)
            average_plane_f32(g, j->counts, (const float *)j->dy + dyo, (float *)j->dx + dxo, (float *)scratch, acc);
        else
            average_plane_f64(g, j->counts, (const double *)j->dy + dyo, (double *)j->dx + dxo, (double *)scratch,
                              acc);
    }
    free(scratch);
}

int opemu_kernel_average_pool_backward(int pieces, int size, const struct opemu_pool_geometry *g, const void *counts,
                                       const void *dy, void *dx, int64_t images, int64_t planes)
{
    int64_t places = average_places(g);
    if ((size != 4 && size != 8) || g->sh < 1 || g->sw < 1 || places < 1 || places > (INT64_C(1) << 40) / g->sw)
        return -1;
    struct pool_job job = {size, g, counts, NULL, NULL, dy, dx, planes, 0};
    opemu_pool_split(pieces, images * planes, average_piece, &job);
    return job.failed ? -1 : 0;
}

static void max_piece(const void *job, int index, int64_t lo, int64_t hi)
{
    struct pool_job *j = (struct pool_job *)job;
    const struct opemu_pool_geometry *g = j->g;
    int size = j->size;
    int small = small_planes(g, size), walk = g->kh == 3 && g->kw == 3 && g->sh == 2 && g->sw == 2;
    /* the 3x3/2 walk's scratch, once for all the part's planes: a plane's choices (bits, an integer of the data's
     * width each), a row of NaNs standing for the padding rows, then (small planes) its dx */
    char *choices = NULL, *nothing = NULL, *plane = NULL;
    if (walk) {
        size_t count = (size_t)(g->ow * g->oh + 1), cells = small ? (size_t)(g->h * g->w) : 0;
        if (!(choices = malloc((count + (size_t)g->w + cells) * (size_t)size))) {
            j->failed = 1;
            return;
        }
        nothing = choices + count * size;
        for (int64_t c = 0; c < g->w; c++)
            if (size == 4)
                ((float *)nothing)[c] = __builtin_nanf("");
            else
                ((double *)nothing)[c] = __builtin_nan("");
        plane = small ? nothing + g->w * size : NULL;
    }
    for (int64_t k = lo; k < hi; k++) {
        int64_t n = k / j->planes, c = k % j->planes;
        int64_t xo = n * g->x_image + c * g->x_plane, yo = n * g->y_image + c * g->y_plane;
        int64_t dyo = n * g->dy_image + c * g->dy_plane, dxo = n * g->dx_image + c * g->dx_plane;
        if (size == 4)
            plane_f32(g, (const float *)j->x + xo, (const float *)j->y + yo, (const float *)j->dy + dyo,
                      (float *)j->dx + dxo, choices, nothing, plane);
        else
            plane_f64(g, (const double *)j->x + xo, (const double *)j->y + yo, (const double *)j->dy + dyo,
                      (double *)j->dx + dxo, choices, nothing, plane);
    }
    opemu_nontemporal_fence();
    free(choices);
}

int opemu_kernel_max_pool_backward(int pieces, int size, const struct opemu_pool_geometry *g, const void *x,
                                   const void *y, const void *dy, void *dx, int64_t images, int64_t planes)
{
    if (size != 4 && size != 8)
        return -1;
    struct pool_job job = {size, g, NULL, x, y, dy, dx, planes, 0};
    opemu_pool_split(pieces, images * planes, max_piece, &job);
    return job.failed ? -1 : 0;
}
