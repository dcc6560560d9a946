/* Max-pooling backward (python/opemu/ops/mcdnn/pooling.py _Phases.max_backward / backward).
 *
 * dy of each window goes to the window's first element, in row-major order, that equals y (padding
 * equals nothing). The reference accumulates an input element's gradient from +0 over the windows
 * that chose it in window-element order (row offset i, then column offset j); for one input element a
 * larger (i, j) is a smaller output (oh, ow), so scattering the outputs in reverse row-major order
 * adds in the same order and rounds alike where windows overlap (3x3/2). 2x2/2 without padding, the
 * common non-overlapping case, has its own loop that writes every dx element once. */
#include <string.h>
#include "kernels.h"

typedef struct opemu_pool_geometry geometry;

static int64_t lo_clip(int64_t v) { return v < 0 ? 0 : v; }
static int64_t hi_clip(int64_t v, int64_t limit) { return v > limit ? limit : v; }

#define DEFINE_POOL(T, SUFFIX)                                                                            \
    /* window (oh, ow)'s choice as an offset into the dx plane (row * dx_row + col), or -1 */              \
    static inline int64_t choice_##SUFFIX(const geometry *g, const T *x, T y, int64_t oh, int64_t ow,       \
                                          int64_t kh, int64_t kw, int64_t sh, int64_t sw)                 \
    {                                                                                                     \
        int64_t r0 = oh * sh - g->ph, c0 = ow * sw - g->pw;                                               \
        if (r0 >= 0 && c0 >= 0 && r0 + kh <= g->h && c0 + kw <= g->w && kh * kw <= 32) {                 \
            /* inside x: every comparison into one mask, the first set bit the choice (no branch to     \
             * mispredict per element) */                                                              \
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
    static void plane_##SUFFIX(const geometry *g, const T *x, const T *y, const T *dy, T *dx)             \
    {                                                                                                     \
        if (g->kh == 2 && g->kw == 2 && g->sh == 2 && g->sw == 2 && g->ph == 0 && g->pw == 0 &&            \
            2 * g->oh <= g->h && 2 * g->ow <= g->w)                                                       \
            two_by_two_##SUFFIX(g, x, y, dy, dx);                                                         \
        else if (g->kh == 3 && g->kw == 3 && g->sh == 2 && g->sw == 2)                                    \
            scatter_##SUFFIX(g, x, y, dy, dx, 3, 3, 2, 2); /* constants: the window loops unroll */       \
        else                                                                                              \
            scatter_##SUFFIX(g, x, y, dy, dx, g->kh, g->kw, g->sh, g->sw);                                \
    }

DEFINE_POOL(float, f32)
DEFINE_POOL(double, f64)

int opemu_kernel_max_pool_backward(int size, const struct opemu_pool_geometry *g, const void *x, const void *y,
                                   const void *dy, void *dx, int64_t images, int64_t planes)
{
    if (size != 4 && size != 8)
        return -1;
    for (int64_t n = 0; n < images; n++)
        for (int64_t c = 0; c < planes; c++) {
            int64_t xo = n * g->x_image + c * g->x_plane, yo = n * g->y_image + c * g->y_plane;
            int64_t dyo = n * g->dy_image + c * g->dy_plane, dxo = n * g->dx_image + c * g->dx_plane;
            if (size == 4)
                plane_f32(g, (const float *)x + xo, (const float *)y + yo, (const float *)dy + dyo, (float *)dx + dxo);
            else
                plane_f64(g, (const double *)x + xo, (const double *)y + yo, (const double *)dy + dyo,
                          (double *)dx + dxo);
        }
    return 0;
}
