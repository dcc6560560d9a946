/* Spatial transformer sampler (python/opemu/ops/mcdnn/spatial_transformer.py forward_reference,
 * backward_reference). Forward: each sample's four products added in corner order, one pass per channel
 * (the reference gathers pixel-major copies). Backward: one pass over the image's channels does the
 * bilinear scatter into dx and the channel sums of dgrid, which the reference makes with a sort of the
 * taps, gathers and a pass per channel.
 *
 * Channel by channel, pixel by pixel, corner by corner: each dx element thus receives its taps in pixel
 * order, then corner order (the reference's stable order of the taps), each product rounded, then each
 * sum; the three dgrid sums of a pixel grow by one rounded product per channel, from +0. */
#include "kernels.h"

#define CORNERS 4

#define DEFINE_SAMPLER(T, SUFFIX)                                                                         \
    static void sampler_backward_##SUFFIX(int64_t channels, int64_t pixels, int64_t inputs,               \
                                          const int64_t *index, const T *weight, const T *wx1,            \
                                          const T *wy1, const T *x, const T *dy, T *dx, T *dgrid,         \
                                          T scale_x, T scale_y, T *sums)                                  \
    {                                                                                                     \
        T *along_a = sums, *along_d = sums + pixels, *along_e = sums + 2 * pixels;                        \
        for (int64_t p = 0; p < pixels; p++)                                                              \
            along_a[p] = along_d[p] = along_e[p] = 0;                                                     \
        for (int64_t i = 0; i < channels * inputs; i++)                                                   \
            dx[i] = 0;                                                                                    \
        for (int64_t c = 0; c < channels; c++) {                                                          \
            const T *xc = x + c * inputs, *g = dy + c * pixels;                                           \
            T *d = dx + c * inputs;                                                                       \
            for (int64_t p = 0; p < pixels; p++) {                                                        \
                T gp = g[p], v[CORNERS];                                                                  \
                for (int k = 0; k < CORNERS; k++) {                                                       \
                    int64_t at = index[k * pixels + p];                                                   \
                    v[k] = 0;                                                                             \
                    if (at != inputs) {                                                                   \
                        T share = gp * weight[k * pixels + p];                                            \
                        v[k] = xc[at];                                                                    \
                        d[at] = d[at] + share;                                                            \
                    }                                                                                     \
                }                                                                                         \
                T e = v[3] - v[2], dd = v[2] - v[0], a = v[1] - v[0];                                     \
                e = e - a;                                                                                \
                T pa = gp * a, pd = gp * dd, pe = gp * e;                                                 \
                along_a[p] = along_a[p] + pa;                                                             \
                along_d[p] = along_d[p] + pd;                                                             \
                along_e[p] = along_e[p] + pe;                                                             \
            }                                                                                             \
        }                                                                                                 \
        for (int64_t p = 0; p < pixels; p++) {                                                            \
            T ta = wy1[p] * along_e[p], td = wx1[p] * along_e[p];                                         \
            T ua = along_a[p] + ta, ud = along_d[p] + td;                                                 \
            dgrid[2 * p] = ua * scale_x;                                                                  \
            dgrid[2 * p + 1] = ud * scale_y;                                                              \
        }                                                                                                 \
    }

#define DEFINE_SAMPLER_FORWARD(T, SUFFIX)                                                                 \
    static void sampler_forward_##SUFFIX(int64_t channels, int64_t pixels, int64_t inputs,                \
                                         const int64_t *index, const T *weight, const T *x, T *y)         \
    {                                                                                                     \
        for (int64_t c = 0; c < channels; c++) {                                                          \
            const T *xc = x + c * inputs;                                                                 \
            T *yc = y + c * pixels;                                                                       \
            for (int64_t p = 0; p < pixels; p++) {                                                        \
                T sum = 0;                                                                                \
                for (int k = 0; k < CORNERS; k++) {                                                       \
                    int64_t at = index[k * pixels + p];                                                   \
                    T v = at != inputs ? xc[at] : (T)0, product = v * weight[k * pixels + p];             \
                    sum = k ? sum + product : product;                                                    \
                }                                                                                         \
                yc[p] = sum;                                                                              \
            }                                                                                             \
        }                                                                                                 \
    }

DEFINE_SAMPLER_FORWARD(float, f32)
DEFINE_SAMPLER_FORWARD(double, f64)
DEFINE_SAMPLER(float, f32)
DEFINE_SAMPLER(double, f64)

int opemu_kernel_sampler_backward(int size, int64_t channels, int64_t pixels, int64_t inputs, const int64_t *index,
                                  const void *weight, const void *wx1, const void *wy1, const void *x, const void *dy,
                                  void *dx, void *dgrid, double scale_x, double scale_y, void *sums)
{
    if (channels < 0 || pixels < 0 || inputs < 0)
        return -1;
    if (size == 4)
        sampler_backward_f32(channels, pixels, inputs, index, (const float *)weight, (const float *)wx1,
                             (const float *)wy1, (const float *)x, (const float *)dy, (float *)dx, (float *)dgrid,
                             (float)scale_x, (float)scale_y, (float *)sums);
    else if (size == 8)
        sampler_backward_f64(channels, pixels, inputs, index, (const double *)weight, (const double *)wx1,
                             (const double *)wy1, (const double *)x, (const double *)dy, (double *)dx,
                             (double *)dgrid, scale_x, scale_y, (double *)sums);
    else
        return -1;
    return 0;
}

int opemu_kernel_sampler_forward(int size, int64_t channels, int64_t pixels, int64_t inputs, const int64_t *index,
                                 const void *weight, const void *x, void *y)
{
    if (channels < 0 || pixels < 0 || inputs < 0)
        return -1;
    if (size == 4)
        sampler_forward_f32(channels, pixels, inputs, index, (const float *)weight, (const float *)x, (float *)y);
    else if (size == 8)
        sampler_forward_f64(channels, pixels, inputs, index, (const double *)weight, (const double *)x, (double *)y);
    else
        return -1;
    return 0;
}
