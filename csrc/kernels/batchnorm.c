/* Batch normalization over blocks of channels (python/opemu/ops/mcdnn/bn_channels.py, `lane_sums`,
 * `backward_block`, `forward_block`): each channel is `images` rows of `spatial` dense elements; a channel
 * is reduced and transformed while its rows are in the core's cache, one channel after another.
 *
 * The gradient's sums run in the data type, the statistics' (Σx, Σ(x - centre)²) in float64: in the
 * data type, x far from 0 loses the mean (fp32 sums of x = 4000 ± 1.5 miss it by ~4e-4). Element j of an
 * image's row goes to lane j mod 16, the row's last block padded with +0 terms; the rows follow each
 * other into the same lanes, image after image, the first block copied into the lanes (a NumPy reduction
 * starts from its first row); then lane i += lane i + w for w = 8, 4, 2, 1. Statistics and coefficients
 * are float64, the same operations as the reference's. */
#include <math.h>

#include "kernels.h"

#define LANES 16

enum { SUM_X, SQUARES, GRADIENT };

/* The terms of one element: SUM_X x; SQUARES (x-centre)²; GRADIENT dy and dy·(x-centre). */
#define DEFINE_TERMS(T, SUFFIX)                                                                           \
    static inline void terms_##SUFFIX(int what, T xv, T gv, T centre, T *a, T *b)                        \
    {                                                                                                     \
        if (what == SUM_X) {                                                                              \
            *a = xv;                                                                                      \
            *b = (T)0;                                                                                    \
        } else if (what == SQUARES) {                                                                     \
            T t = xv - centre;                                                                            \
            *a = (T)0;                                                                                    \
            *b = t * t;                                                                                   \
        } else {                                                                                          \
            T t = xv - centre;                                                                            \
            *a = gv;                                                                                      \
            *b = gv * t;                                                                                  \
        }                                                                                                 \
    }

/* The lane sums of one channel's terms (computed in T) in the accumulator type A. */
#define DEFINE_LANE_SUMS(T, A, NAME, SUFFIX)                                                              \
    static void NAME(int what, const struct opemu_bn_geometry *g, const T *x, const T *dy, T centre,     \
                     A *sum_a, A *sum_b)                                                                  \
    {                                                                                                     \
        A la[LANES] = {0}, lb[LANES] = {0};                                                               \
        int started = 0;                                                                                  \
        const int64_t whole = g->spatial / LANES * LANES;                                                 \
        for (int64_t n = 0; n < g->images; n++) {                                                         \
            const T *xr = x + n * g->x_image, *gr = what == GRADIENT ? dy + n * g->dy_image : xr;         \
            for (int64_t j = 0; j < g->spatial; j += LANES) {                                             \
                T a[LANES], b[LANES];                                                                     \
                if (j < whole)                                                                            \
                    for (int l = 0; l < LANES; l++)                                                       \
                        terms_##SUFFIX(what, xr[j + l], gr[j + l], centre, &a[l], &b[l]);                 \
                else                                                                                      \
                    for (int l = 0; l < LANES; l++) {                                                     \
                        a[l] = b[l] = (T)0;                                                               \
                        if (j + l < g->spatial)                                                           \
                            terms_##SUFFIX(what, xr[j + l], gr[j + l], centre, &a[l], &b[l]);             \
                    }                                                                                     \
                if (started)                                                                              \
                    for (int l = 0; l < LANES; l++) {                                                     \
                        la[l] = la[l] + (A)a[l];                                                          \
                        lb[l] = lb[l] + (A)b[l];                                                          \
                    }                                                                                     \
                else                                                                                      \
                    for (int l = 0; l < LANES; l++) {                                                     \
                        la[l] = (A)a[l];                                                                  \
                        lb[l] = (A)b[l];                                                                  \
                    }                                                                                     \
                started = 1;                                                                              \
            }                                                                                             \
        }                                                                                                 \
        for (int w = LANES / 2; w > 0; w /= 2)                                                            \
            for (int l = 0; l < w; l++) {                                                                 \
                la[l] = la[l] + la[l + w];                                                                \
                lb[l] = lb[l] + lb[l + w];                                                                \
            }                                                                                             \
        *sum_a = la[0];                                                                                   \
        *sum_b = lb[0];                                                                                   \
    }

/* mean and biased variance of a channel from two lane walks, centred on the mean rounded to T (the
 * variance corrects for that rounding; np.maximum(var, 0) keeps NaN and -0). */
#define DEFINE_STATISTICS(T, SUFFIX)                                                                      \
    static void statistics_##SUFFIX(const struct opemu_bn_geometry *g, const T *x, double *mean,          \
                                    double *var)                                                          \
    {                                                                                                     \
        const double count = (double)(g->images * g->spatial);                                            \
        double sx, unused, squares;                                                                       \
        wide_sums_##SUFFIX(SUM_X, g, x, x, (T)0, &sx, &unused);                                           \
        double m = sx / count;                                                                            \
        T centre = (T)m;                                                                                  \
        wide_sums_##SUFFIX(SQUARES, g, x, x, centre, &unused, &squares);                                  \
        double shift = m - (double)centre;                                                                \
        double v = squares / count - shift * shift;                                                       \
        *mean = m;                                                                                        \
        *var = v < 0 ? 0.0 : v;                                                                           \
    }

/* out = (x - centre)·k1 + k2 (+ dy·k0 first when dy is given), one channel. */
#define DEFINE_APPLY(T, SUFFIX)                                                                           \
    static void apply_##SUFFIX(const struct opemu_bn_geometry *g, const T *x, const T *dy, T *out,        \
                               T centre, T k0, T k1, T k2)                                                \
    {                                                                                                     \
        for (int64_t n = 0; n < g->images; n++) {                                                         \
            const T *xr = x + n * g->x_image;                                                             \
            T *o = out + n * g->out_image;                                                                \
            if (dy) {                                                                                     \
                const T *gr = dy + n * g->dy_image;                                                       \
                for (int64_t j = 0; j < g->spatial; j++) {                                                \
                    T t = xr[j] - centre;                                                                 \
                    t = t * k1;                                                                           \
                    t = t + k2;                                                                           \
                    T r = gr[j] * k0;                                                                     \
                    o[j] = r + t;                                                                         \
                }                                                                                         \
            } else                                                                                        \
                for (int64_t j = 0; j < g->spatial; j++) {                                                \
                    T t = xr[j] - centre;                                                                 \
                    t = t * k1;                                                                           \
                    o[j] = t + k2;                                                                        \
                }                                                                                         \
        }                                                                                                 \
    }

#define DEFINE_CHANNELS(T, SUFFIX)                                                                        \
    static void backward_##SUFFIX(const struct opemu_bn_geometry *g, int64_t channels, const T *x,        \
                                  const T *dy, T *dx, const double *scale, const double *mean,            \
                                  const double *inv, double eps, double alpha, double *d_scale,           \
                                  double *d_bias)                                                         \
    {                                                                                                     \
        const double count = (double)(g->images * g->spatial);                                            \
        for (int64_t c = 0; c < channels; c++) {                                                          \
            const T *xc = x + c * g->x_channel, *gc = dy + c * g->dy_channel;                             \
            double m, i;                                                                                  \
            if (mean) {                                                                                   \
                m = mean[c];                                                                              \
                i = inv[c];                                                                               \
            } else {                                                                                      \
                double var;                                                                               \
                statistics_##SUFFIX(g, xc, &m, &var);                                                     \
                i = 1 / sqrt(var + eps);                                                                  \
            }                                                                                             \
            T centre = (T)m, s_dy, s_dyx;                                                                 \
            lane_sums_##SUFFIX(GRADIENT, g, xc, gc, centre, &s_dy, &s_dyx);                               \
            double sum_dy = (double)s_dy;                                                                 \
            double sum_dyx = (double)s_dyx - (m - (double)centre) * sum_dy;                               \
            double ds = sum_dyx * i;                                                                      \
            double a = scale[c] * i;                                                                      \
            double b = -scale[c] * i * i * ds / count;                                                    \
            double k = -a * sum_dy / count - b * m;                                                       \
            d_scale[c] = ds;                                                                              \
            d_bias[c] = sum_dy;                                                                           \
            apply_##SUFFIX(g, xc, gc, dx + c * g->out_channel, centre, (T)(a * alpha), (T)(b * alpha),    \
                           (T)((k + b * (double)centre) * alpha));                                        \
        }                                                                                                 \
    }                                                                                                     \
    static void forward_##SUFFIX(const struct opemu_bn_geometry *g, int64_t channels, const T *x, T *y,   \
                                 const double *scale, const double *bias, double eps, double alpha,       \
                                 double *mean, double *var)                                               \
    {                                                                                                     \
        for (int64_t c = 0; c < channels; c++) {                                                          \
            const T *xc = x + c * g->x_channel;                                                           \
            statistics_##SUFFIX(g, xc, &mean[c], &var[c]);                                                \
            double i = 1 / sqrt(var[c] + eps);                                                            \
            T centre = (T)mean[c];                                                                        \
            double a = scale[c] * i;                                                                      \
            double b = bias[c] + a * ((double)centre - mean[c]);                                          \
            apply_##SUFFIX(g, xc, 0, y + c * g->out_channel, centre, (T)0, (T)(a * alpha), (T)(b * alpha)); \
        }                                                                                                 \
    }

DEFINE_TERMS(float, f32)
DEFINE_TERMS(double, f64)
DEFINE_LANE_SUMS(float, float, lane_sums_f32, f32)
DEFINE_LANE_SUMS(float, double, wide_sums_f32, f32)
DEFINE_LANE_SUMS(double, double, lane_sums_f64, f64)
#define wide_sums_f64 lane_sums_f64
DEFINE_STATISTICS(float, f32)
DEFINE_STATISTICS(double, f64)
DEFINE_APPLY(float, f32)
DEFINE_APPLY(double, f64)
DEFINE_CHANNELS(float, f32)
DEFINE_CHANNELS(double, f64)

int opemu_kernel_bn_backward(int size, const struct opemu_bn_geometry *g, int64_t channels, const void *x,
                             const void *dy, void *dx, const double *scale, const double *mean, const double *inv,
                             double eps, double alpha, double *d_scale, double *d_bias)
{
    if (size == 4)
        backward_f32(g, channels, (const float *)x, (const float *)dy, (float *)dx, scale, mean, inv, eps, alpha,
                     d_scale, d_bias);
    else if (size == 8)
        backward_f64(g, channels, (const double *)x, (const double *)dy, (double *)dx, scale, mean, inv, eps,
                     alpha, d_scale, d_bias);
    else
        return -1;
    return 0;
}

int opemu_kernel_bn_forward(int size, const struct opemu_bn_geometry *g, int64_t channels, const void *x, void *y,
                            const double *scale, const double *bias, double eps, double alpha, double *mean,
                            double *var)
{
    if (size == 4)
        forward_f32(g, channels, (const float *)x, (float *)y, scale, bias, eps, alpha, mean, var);
    else if (size == 8)
        forward_f64(g, channels, (const double *)x, (double *)y, scale, bias, eps, alpha, mean, var);
    else
        return -1;
    return 0;
}
