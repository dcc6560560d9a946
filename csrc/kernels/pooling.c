/* Max-pooling backward (python/opemu/ops/mcdnn/pooling.py _Phases.max_backward / backward).
 *
 * dy of each window goes to the window's first element, in row-major order, that equals y (padding
 * equals nothing); an input element's gradient is +0 plus, in window-element order (row offset, then
 * column offset), the dy of each window that chose it — the order the reference accumulates in, so
 * overlapping windows round alike. Windows that do not overlap (2x2/2 and any window no larger than
 * its stride) scatter straight into dx; overlapping ones (3x3/2) first record each window's choice,
 * then gather per input element. */
#include <string.h>
#include "kernels.h"

typedef struct opemu_pool_geometry geometry;

static int64_t lo_clip(int64_t v) { return v < 0 ? 0 : v; }
static int64_t hi_clip(int64_t v, int64_t limit) { return v > limit ? limit : v; }

#define DEFINE_POOL(T, SUFFIX)                                                                            \
    /* the flat position (row*w + col) of window (oh, ow)'s choice, or -1 */                              \
    static inline int64_t choice_##SUFFIX(const geometry *g, const T *x, T y, int64_t oh, int64_t ow,       \
                                          int64_t kh, int64_t kw, int64_t sh, int64_t sw)                 \
    {                                                                                                     \
        int64_t r0 = oh * sh - g->ph, c0 = ow * sw - g->pw;                                               \
        int64_t r1 = hi_clip(r0 + kh, g->h), c1 = hi_clip(c0 + kw, g->w);                                 \
        for (int64_t r = lo_clip(r0); r < r1; r++)                                                        \
            for (int64_t c = lo_clip(c0); c < c1; c++)                                                    \
                if (x[r * g->x_row + c] == y)                                                             \
                    return r * g->w + c;                                                                  \
        return -1;                                                                                        \
    }                                                                                                     \
    static void scatter_##SUFFIX(const geometry *g, const T *x, const T *y, const T *dy, T *dx)           \
    {                                                                                                     \
        for (int64_t r = 0; r < g->h; r++)                                                                \
            memset(dx + r * g->dx_row, 0, (size_t)g->w * sizeof(T));                                      \
        for (int64_t oh = 0; oh < g->oh; oh++)                                                            \
            for (int64_t ow = 0; ow < g->ow; ow++) {                                                      \
                int64_t at = choice_##SUFFIX(g, x, y[oh * g->y_row + ow], oh, ow, g->kh, g->kw, g->sh, g->sw); \
                if (at >= 0)                                                                              \
                    dx[at / g->w * g->dx_row + at % g->w] = (T)0 + dy[oh * g->dy_row + ow];               \
            }                                                                                             \
    }                                                                                                     \
    /* 2x2 windows, stride 2, no padding, every window inside x */                                        \
    static void two_by_two_##SUFFIX(const geometry *g, const T *x, const T *y, const T *dy, T *dx)        \
    {                                                                                                     \
        for (int64_t oh = 0; oh < g->oh; oh++) {                                                          \
            const T *x0 = x + 2 * oh * g->x_row, *x1 = x0 + g->x_row;                                     \
            const T *yr = y + oh * g->y_row, *dyr = dy + oh * g->dy_row;                                  \
            T *d0 = dx + 2 * oh * g->dx_row, *d1 = d0 + g->dx_row;                                        \
            for (int64_t ow = 0; ow < g->ow; ow++) {                                                      \
                T m = yr[ow], v = (T)0 + dyr[ow];                                                         \
                int a = x0[2 * ow] == m, b = !a && x0[2 * ow + 1] == m;                                   \
                int c = !a && !b && x1[2 * ow] == m, d = !a && !b && !c && x1[2 * ow + 1] == m;            \
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
    static inline void gather_##SUFFIX(const geometry *g, const T *x, const T *y, const T *dy, T *dx,     \
                                       int32_t *index, int64_t kh, int64_t kw, int64_t sh, int64_t sw)    \
    {                                                                                                     \
        for (int64_t oh = 0; oh < g->oh; oh++)                                                            \
            for (int64_t ow = 0; ow < g->ow; ow++)                                                        \
                index[oh * g->ow + ow] =                                                                  \
                    (int32_t)choice_##SUFFIX(g, x, y[oh * g->y_row + ow], oh, ow, kh, kw, sh, sw);        \
        for (int64_t r = 0; r < g->h; r++)                                                                \
            for (int64_t c = 0; c < g->w; c++) {                                                          \
                T sum = 0;                                                                                \
                int32_t here = (int32_t)(r * g->w + c);                                                   \
                for (int64_t i = 0; i < kh; i++) {                                                        \
                    int64_t rows = r + g->ph - i;                                                         \
                    if (rows < 0 || rows % sh || rows / sh >= g->oh)                                      \
                        continue;                                                                         \
                    for (int64_t j = 0; j < kw; j++) {                                                    \
                        int64_t cols = c + g->pw - j;                                                     \
                        if (cols < 0 || cols % sw || cols / sw >= g->ow)                                  \
                            continue;                                                                     \
                        int64_t o = rows / sh * g->ow + cols / sw;                                        \
                        if (index[o] == here)                                                             \
                            sum = sum + dy[rows / sh * g->dy_row + cols / sw];                            \
                    }                                                                                     \
                }                                                                                         \
                dx[r * g->dx_row + c] = sum;                                                              \
            }                                                                                             \
    }                                                                                                     \
    static void plane_##SUFFIX(const geometry *g, const T *x, const T *y, const T *dy, T *dx, int32_t *index) \
    {                                                                                                     \
        if (g->kh == 2 && g->kw == 2 && g->sh == 2 && g->sw == 2 && g->ph == 0 && g->pw == 0 &&            \
            2 * g->oh <= g->h && 2 * g->ow <= g->w)                                                       \
            two_by_two_##SUFFIX(g, x, y, dy, dx);                                                         \
        else if (g->kh <= g->sh && g->kw <= g->sw)                                                        \
            scatter_##SUFFIX(g, x, y, dy, dx);                                                            \
        else if (g->kh == 3 && g->kw == 3 && g->sh == 2 && g->sw == 2)                                    \
            gather_##SUFFIX(g, x, y, dy, dx, index, 3, 3, 2, 2); /* constants: the loops unroll */        \
        else                                                                                              \
            gather_##SUFFIX(g, x, y, dy, dx, index, g->kh, g->kw, g->sh, g->sw);                          \
    }

DEFINE_POOL(float, f32)
DEFINE_POOL(double, f64)

int opemu_kernel_max_pool_backward(int size, const struct opemu_pool_geometry *g, uintptr_t x, uintptr_t y,
                                   uintptr_t dy, uintptr_t dx, uintptr_t index, int64_t planes)
{
    if ((size != 4 && size != 8) || g->h * g->w > INT32_MAX)
        return -1;
    for (int64_t p = 0; p < planes; p++) {
        if (size == 4)
            plane_f32(g, (const float *)x + p * g->x_plane, (const float *)y + p * g->y_plane,
                      (const float *)dy + p * g->dy_plane, (float *)dx + p * g->dx_plane, (int32_t *)index);
        else
            plane_f64(g, (const double *)x + p * g->x_plane, (const double *)y + p * g->y_plane,
                      (const double *)dy + p * g->dy_plane, (double *)dx + p * g->dx_plane, (int32_t *)index);
    }
    return 0;
}
