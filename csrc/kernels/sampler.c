/* Spatial transformer sampler backward (python/opemu/ops/mcdnn/spatial_transformer.py backward_reference):
 * one pass over the image's channels does the bilinear scatter into dx and the channel sums of dgrid, which
 * the reference makes with a sort of the taps, gathers and a pass per channel.
 *
 * Pixel by pixel, then channel by channel, corner by corner: each dx element thus receives its taps in
 * pixel order, then corner order (the reference's stable order of the taps), each product rounded, then
 * each sum; the three dgrid sums of a pixel grow by one rounded product per channel, from +0, in
 * registers. Channels inside the pixel loop: neighbouring pixels share taps, and their read-modify-writes
 * of one dx element would otherwise wait on each other; a pixel's lines in every channel stay in cache
 * for its neighbours. */
#include "kernels.h"

#define CORNERS 4

#define DEFINE_SAMPLER(T, SUFFIX)                                                                         \
    /* pixel p's taps over every channel; `inside`: all four taps inside x (no test per channel) */       \
    static inline void pixel_##SUFFIX(int64_t channels, int64_t pixels, int64_t inputs, const int64_t *at,   \
                                      const T *w, int inside, const T *x, const T *g, T *dx, T *sums)     \
    {                                                                                                     \
        T along_a = 0, along_d = 0, along_e = 0;                                                          \
        for (int64_t c = 0; c < channels; c++, x += inputs, dx += inputs, g += pixels) {                  \
            T gp = *g, v[CORNERS];                                                                        \
            for (int k = 0; k < CORNERS; k++) {                                                           \
                v[k] = 0;                                                                                 \
                if (inside || at[k] != inputs) {                                                          \
                    T share = gp * w[k];                                                                  \
                    v[k] = x[at[k]];                                                                      \
                    dx[at[k]] = dx[at[k]] + share;                                                        \
                }                                                                                         \
            }                                                                                             \
            T e = v[3] - v[2], d = v[2] - v[0], a = v[1] - v[0];                                          \
            e = e - a;                                                                                    \
            T pa = gp * a, pd = gp * d, pe = gp * e;                                                      \
            along_a = along_a + pa;                                                                       \
            along_d = along_d + pd;                                                                       \
            along_e = along_e + pe;                                                                       \
        }                                                                                                 \
        sums[0] = along_a, sums[1] = along_d, sums[2] = along_e;                                          \
    }                                                                                                     \
    static void sampler_backward_##SUFFIX(int64_t channels, int64_t pixels, int64_t inputs,               \
                                          const int64_t *index, const T *weight, const T *wx1,            \
                                          const T *wy1, const T *x, const T *dy, T *dx, T *dgrid,         \
                                          T scale_x, T scale_y)                                           \
    {                                                                                                     \
        for (int64_t i = 0; i < channels * inputs; i++)                                                   \
            dx[i] = 0;                                                                                    \
        for (int64_t p = 0; p < pixels; p++) {                                                            \
            int64_t at[CORNERS];                                                                          \
            T w[CORNERS], sums[3];                                                                        \
            int inside = 1;                                                                               \
            for (int k = 0; k < CORNERS; k++) {                                                           \
                at[k] = index[k * pixels + p];                                                            \
                w[k] = weight[k * pixels + p];                                                            \
                inside &= at[k] != inputs;                                                                \
            }                                                                                             \
            if (inside)                                                                                   \
                pixel_##SUFFIX(channels, pixels, inputs, at, w, 1, x, dy + p, dx, sums);                  \
            else                                                                                          \
                pixel_##SUFFIX(channels, pixels, inputs, at, w, 0, x, dy + p, dx, sums);                  \
            T ta = wy1[p] * sums[2], td = wx1[p] * sums[2];                                               \
            T ua = sums[0] + ta, ud = sums[1] + td;                                                       \
            dgrid[2 * p] = ua * scale_x;                                                                  \
            dgrid[2 * p + 1] = ud * scale_y;                                                              \
        }                                                                                                 \
    }

DEFINE_SAMPLER(float, f32)
DEFINE_SAMPLER(double, f64)

int opemu_kernel_sampler_backward(int size, int64_t channels, int64_t pixels, int64_t inputs, const int64_t *index,
                                  const void *weight, const void *wx1, const void *wy1, const void *x, const void *dy,
                                  void *dx, void *dgrid, double scale_x, double scale_y)
{
    if (channels < 0 || pixels < 0 || inputs < 0)
        return -1;
    if (size == 4)
        sampler_backward_f32(channels, pixels, inputs, index, (const float *)weight, (const float *)wx1,
                             (const float *)wy1, (const float *)x, (const float *)dy, (float *)dx, (float *)dgrid,
                             (float)scale_x, (float)scale_y);
    else if (size == 8)
        sampler_backward_f64(channels, pixels, inputs, index, (const double *)weight, (const double *)wx1,
                             (const double *)wy1, (const double *)x, (const double *)dy, (double *)dx,
                             (double *)dgrid, scale_x, scale_y);
    else
        return -1;
    return 0;
}
