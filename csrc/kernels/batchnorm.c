/* Batch normalization over blocks of channels (python/opemu/ops/mcdnn/bn_channels.py, `lane_sums`,
 * `backward_block`, `forward_block`): each channel is `images` rows of `spatial` dense elements; a channel
 * is reduced and transformed while its rows are in the core's cache, one channel after another.
 *
 * Sums: each channel's statistics in one walk, Σd and Σd² of d = double(x) - shift (the channel's first
 * element) in float64, then mean = shift + Σd/M and var = Σd²/M - (Σd/M)²: data far from 0 keeps its mean
 * (fp32 sums of x = 4000 ± 1.5 miss it by ~4e-4) and the walk is one pass. The gradient's Σdy and
 * Σdy·(x - centre), centre the mean rounded to the data type, run in the data type. Element j of an
 * image's row goes to lane j mod 16, the row's last block padded with +0 terms; the rows follow each
 * other into the same lanes, image after image, each lane from +0; then lane i += lane i + w for
 * w = 8, 4, 2, 1. Coefficients are float64, the same operations as the reference's. */
#include <math.h>
#include <stddef.h>
#include <stdint.h>

#include "isa.h"

#define LANES 16

/* The 16 lanes as GCC vectors: each operation is the scalar IEEE operation on every lane. Plain loops
 * over 16-element arrays vectorised badly; the vectors are native on AVX-512, two registers on AVX2 (each
 * level's path computes the same bits, isa.h). */
typedef float f32_lanes __attribute__((vector_size(LANES * sizeof(float))));
typedef double f64_lanes __attribute__((vector_size(LANES * sizeof(double))));

/* Sums from +0 over one channel's lanes of TERM_A and TERM_B, vectors (AV) of the blocks of x `xv` and dy
 * `gv` (TV); a row's last block is a +0-padded copy whose unused lanes take +0 terms. Then the tree. */
#define LANE_WALK(T, TV, AV, TERM_A, TERM_B)                                                              \
    const TV zero = {0};                                                                                  \
    AV la = {0}, lb = {0};                                                                                \
    const int64_t whole = g->spatial / LANES * LANES;                                                     \
    for (int64_t n = 0; n < g->images; n++) {                                                             \
        const T *xr = x + n * g->x_image, *gr = dy + n * g->dy_image;                                     \
        int64_t j = 0;                                                                                    \
        for (; j < whole; j += LANES) {                                                                   \
            TV xv, gv;                                                                                    \
            __builtin_memcpy(&xv, xr + j, sizeof xv);                                                     \
            __builtin_memcpy(&gv, gr + j, sizeof gv);                                                     \
            AV ta = TERM_A, tb = TERM_B;                                                                  \
            la = la + ta;                                                                                 \
            lb = lb + tb;                                                                                 \
        }                                                                                                 \
        if (j < g->spatial) {                                                                             \
            TV xv = zero, gv = zero;                                                                      \
            __builtin_memcpy(&xv, xr + j, (size_t)(g->spatial - j) * sizeof(T));                          \
            __builtin_memcpy(&gv, gr + j, (size_t)(g->spatial - j) * sizeof(T));                          \
            AV ta = TERM_A, tb = TERM_B;                                                                  \
            for (int l = (int)(g->spatial - j); l < LANES; l++)                                           \
                ta[l] = tb[l] = 0;                                                                        \
            la = la + ta;                                                                                 \
            lb = lb + tb;                                                                                 \
        }                                                                                                 \
    }                                                                                                     \
    for (int w = LANES / 2; w > 0; w /= 2)                                                                \
        for (int l = 0; l < w; l++) {                                                                     \
            la[l] = la[l] + la[l + w];                                                                    \
            lb[l] = lb[l] + lb[l + w];                                                                    \
        }                                                                                                 \
    *sum_a = la[0];                                                                                       \
    *sum_b = lb[0];

/* moments: Σd and Σd² of d = double(x) - shift, in float64. gradient: Σdy and Σdy·(x - centre) in T. */
#define DEFINE_LANE_SUMS(T, TV, SUFFIX, ISA, TARGET)                                                      \
    TARGET static void moments_##SUFFIX##_##ISA(const struct opemu_bn_geometry *g, const T *x, double shift, \
                                                double *sum_a, double *sum_b)                             \
    {                                                                                                     \
        const T *dy = x;                                                                                  \
        LANE_WALK(T, TV, f64_lanes, __builtin_convertvector(xv, f64_lanes) - shift,                       \
                  (__builtin_convertvector(xv, f64_lanes) - shift) * (__builtin_convertvector(xv, f64_lanes) - shift)) \
    }                                                                                                     \
    TARGET static void gradient_##SUFFIX##_##ISA(const struct opemu_bn_geometry *g, const T *x, const T *dy, \
                                                 T centre, T *sum_a, T *sum_b)                            \
    {                                                                                                     \
        LANE_WALK(T, TV, TV, gv, gv * (xv - centre))                                                      \
    }

/* mean and biased variance from the shifted sums Σd, Σd² of M elements; np.maximum(var, 0) keeps NaN
 * and -0. */
static void finish_statistics(double count, double shift, double sd, double sdd, double *mean, double *var)
{
    double offset = sd / count;
    double v = sdd / count - offset * offset;
    *mean = shift + offset;
    *var = v < 0 ? 0.0 : v;
}

/* The shift of a channel's sums: its first element, 0 when that is not finite. */
#define SHIFT_OF(value) (isfinite(value) ? (double)(value) : 0.0)

/* dScale, dBias and dx = dy·k[0] + ((x - centre)·k[1] + k[2]) from the gradient sums (in the data type)
 * around centre = the mean rounded to the data type; k before its rounding to the data type. */
static void gradient_coefficients(double scale, double m, double i, double centre, double s_dy, double s_dyx,
                                  double count, double alpha, double *d_scale, double *d_bias, double k[3])
{
    double sum_dyx = s_dyx - (m - centre) * s_dy;
    double ds = sum_dyx * i;
    double a = scale * i;
    double b = -scale * i * i * ds / count;
    double c = -a * s_dy / count - b * m;
    *d_scale = ds;
    *d_bias = s_dy;
    k[0] = a * alpha;
    k[1] = b * alpha;
    k[2] = (c + b * centre) * alpha;
}

/* y = (x - centre)·k[0] + k[1], the forward's affine map around centre (the mean rounded to the data type). */
static void forward_coefficients(double scale, double bias, double m, double i, double centre, double alpha,
                                 double k[2])
{
    double a = scale * i;
    double b = bias + a * (centre - m);
    k[0] = a * alpha;
    k[1] = b * alpha;
}

/* mean and biased variance of a channel in one walk, shifted by its first element so that the float64
 * sums stay well conditioned. */
#define DEFINE_STATISTICS(T, SUFFIX)                                                                      \
    static void statistics_##SUFFIX(const struct opemu_bn_geometry *g, const T *x, double *mean,          \
                                    double *var)                                                          \
    {                                                                                                     \
        double shift = SHIFT_OF(x[0]), sd, sdd;                                                           \
        OPEMU_BY_ISA(moments_##SUFFIX##_)(g, x, shift, &sd, &sdd);                                        \
        finish_statistics((double)(g->images * g->spatial), shift, sd, sdd, mean, var);                   \
    }

/* Stores that bypass the caches, for outputs far larger than them (no read of the line before it is
 * written); plain stores where SSE2 is not there. */
typedef float f32_pair __attribute__((vector_size(16)));
typedef double f64_pair __attribute__((vector_size(16)));
#ifdef __SSE2__
#include <emmintrin.h>
static inline void stream_f32(float *p, f32_pair v) { _mm_stream_ps(p, (__m128)v); }
static inline void stream_f64(double *p, f64_pair v) { _mm_stream_pd(p, (__m128d)v); }
static inline void stream_fence(void) { _mm_sfence(); }
#else
static inline void stream_f32(float *p, f32_pair v) { __builtin_memcpy(p, &v, sizeof v); }
static inline void stream_f64(double *p, f64_pair v) { __builtin_memcpy(p, &v, sizeof v); }
static inline void stream_fence(void) {}
#endif

/* One row of out = ELEMENT(xv, gv): streamed (after a head up to 16-byte alignment) when g->stream, the
 * same operations on each lane of a vector as on a scalar. */
#define APPLY_ROW(T, VT, SUFFIX, ELEMENT)                                                                 \
    {                                                                                                     \
        int64_t j = 0;                                                                                    \
        if (g->stream) {                                                                                  \
            for (; j < g->spatial && ((uintptr_t)(o + j) & 15); j++) {                                    \
                T xv = xr[j], gv = gr[j];                                                                 \
                (void)gv;                                                                                 \
                o[j] = ELEMENT;                                                                           \
            }                                                                                             \
            for (; j + (int64_t)(16 / sizeof(T)) <= g->spatial; j += 16 / sizeof(T)) {                    \
                VT xv, gv;                                                                                \
                __builtin_memcpy(&xv, xr + j, sizeof xv);                                                 \
                __builtin_memcpy(&gv, gr + j, sizeof gv);                                                 \
                (void)gv;                                                                                 \
                stream_##SUFFIX(o + j, ELEMENT);                                                          \
            }                                                                                             \
        }                                                                                                 \
        for (; j < g->spatial; j++) {                                                                     \
            T xv = xr[j], gv = gr[j];                                                                     \
            (void)gv;                                                                                     \
            o[j] = ELEMENT;                                                                               \
        }                                                                                                 \
    }

/* out = ((x - centre)·k1 + k2), plus dy·k0 first when dy is given, one channel. */
#define DEFINE_APPLY(T, VT, SUFFIX)                                                                       \
    static void apply_##SUFFIX(const struct opemu_bn_geometry *g, const T *x, const T *dy, T *out,        \
                               T centre, T k0, T k1, T k2)                                                \
    {                                                                                                     \
        for (int64_t n = 0; n < g->images; n++) {                                                         \
            const T *xr = x + n * g->x_image, *gr = dy ? dy + n * g->dy_image : xr;                       \
            T *o = out + n * g->out_image;                                                                \
            if (dy)                                                                                       \
                APPLY_ROW(T, VT, SUFFIX, (gv * k0) + (((xv - centre) * k1) + k2))                         \
            else                                                                                          \
                APPLY_ROW(T, VT, SUFFIX, ((xv - centre) * k1) + k2)                       \
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
            OPEMU_BY_ISA(gradient_##SUFFIX##_)(g, xc, gc, centre, &s_dy, &s_dyx);                         \
            double k[3];                                                                                  \
            gradient_coefficients(scale[c], m, i, (double)centre, (double)s_dy, (double)s_dyx, count, alpha, \
                                  &d_scale[c], &d_bias[c], k);                                            \
            apply_##SUFFIX(g, xc, gc, dx + c * g->out_channel, centre, (T)k[0], (T)k[1], (T)k[2]);        \
        }                                                                                                 \
    }                                                                                                     \
    static void forward_##SUFFIX(const struct opemu_bn_geometry *g, int64_t channels, const T *x, T *y,   \
                                 const double *scale, const double *bias, double eps, double alpha,       \
                                 double *mean, double *var)                                               \
    {                                                                                                     \
        for (int64_t c = 0; c < channels; c++) {                                                          \
            const T *xc = x + c * g->x_channel;                                                           \
            statistics_##SUFFIX(g, xc, &mean[c], &var[c]);                                                \
            T centre = (T)mean[c];                                                                        \
            double k[2];                                                                                  \
            forward_coefficients(scale[c], bias[c], mean[c], 1 / sqrt(var[c] + eps), (double)centre, alpha, k); \
            apply_##SUFFIX(g, xc, 0, y + c * g->out_channel, centre, (T)0, (T)k[0], (T)k[1]);             \
        }                                                                                                 \
    }                                                                                                     \
    static void affine_##SUFFIX(const struct opemu_bn_geometry *g, int64_t channels, const T *x, T *y,   \
                                const double *a, const double *b)                                         \
    {                                                                                                     \
        for (int64_t c = 0; c < channels; c++) /* x - (+0) is x, bit for bit */                           \
            apply_##SUFFIX(g, x + c * g->x_channel, 0, y + c * g->out_channel, (T)0, (T)0, (T)a[c], (T)b[c]); \
    }

OPEMU_FOR_EACH_ISA(DEFINE_LANE_SUMS, float, f32_lanes, f32)
OPEMU_FOR_EACH_ISA(DEFINE_LANE_SUMS, double, f64_lanes, f64)
DEFINE_STATISTICS(float, f32)
DEFINE_STATISTICS(double, f64)
DEFINE_APPLY(float, f32_pair, f32)
DEFINE_APPLY(double, f64_pair, f64)
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
    stream_fence();
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
    stream_fence();
    return 0;
}

int opemu_kernel_bn_affine(int size, const struct opemu_bn_geometry *g, int64_t channels, const void *x, void *y,
                           const double *a, const double *b)
{
    if (size == 4)
        affine_f32(g, channels, (const float *)x, (float *)y, a, b);
    else if (size == 8)
        affine_f64(g, channels, (const double *)x, (double *)y, a, b);
    else
        return -1;
    stream_fence();
    return 0;
}

/* One row of out = ELEMENT over the channels, ELEMENT of xv, gv (x, dy), ce (centre), a0, a1, a2 (the
 * coefficients; K0 stands in for k0 where there is none): streamed after a head up to 16-byte alignment
 * when `stream`, the same operations on each lane of a vector as on a scalar. */
#define POSITION_ROW(T, VT, SUFFIX, K0, ELEMENT)                                                          \
    {                                                                                                     \
        int64_t c = 0;                                                                                    \
        if (stream) {                                                                                     \
            for (; c < channels && ((uintptr_t)(o + c) & 15); c++) {                                     \
                T xv = xr[c], gv = gr[c], ce = centre[c], a0 = K0[c], a1 = k1[c], a2 = k2[c];             \
                (void)gv;                                                                                 \
                (void)a0;                                                                                 \
                o[c] = ELEMENT;                                                                           \
            }                                                                                             \
            for (; c + (int64_t)(16 / sizeof(T)) <= channels; c += 16 / sizeof(T)) {                      \
                VT xv, gv, ce, a0, a1, a2;                                                                \
                __builtin_memcpy(&xv, xr + c, sizeof xv);                                                 \
                __builtin_memcpy(&gv, gr + c, sizeof gv);                                                 \
                __builtin_memcpy(&ce, centre + c, sizeof ce);                                             \
                __builtin_memcpy(&a0, K0 + c, sizeof a0);                                                 \
                __builtin_memcpy(&a1, k1 + c, sizeof a1);                                                 \
                __builtin_memcpy(&a2, k2 + c, sizeof a2);                                                 \
                (void)gv;                                                                                 \
                (void)a0;                                                                                 \
                stream_##SUFFIX(o + c, ELEMENT);                                                          \
            }                                                                                             \
        }                                                                                                 \
        for (; c < channels; c++) {                                                                       \
            T xv = xr[c], gv = gr[c], ce = centre[c], a0 = K0[c], a1 = k1[c], a2 = k2[c];                 \
            (void)gv;                                                                                     \
            (void)a0;                                                                                     \
            o[c] = ELEMENT;                                                                               \
        }                                                                                                 \
    }

/* ---- channels innermost (NHWC): `positions` rows of `channels` dense elements, `*_row` elements apart.
 * The rows are cut into at most SEGMENTS segments of segment_rows(positions) rows (a multiple of 16; the
 * last may be shorter): in a segment, position p's terms go to lane p mod 16 of their channel (each lane
 * from +0; the reference's +0 padding of the last block changes nothing then), the lanes folded as above;
 * the segments' sums are then added in order, the first's plus the second's, and so on. A call is one
 * phase (enum opemu_bn_nhwc_phase); the caller may share the segment phases among threads by segments and
 * the elementwise pass by rows without changing a bit. Segments, because the sums of one sequence of
 * rows run on one core: 32x64x56x56 backward on this host, 2.0 ms of the call's 3.6 ms. */
#define SEGMENTS 8

static int64_t segment_rows(int64_t positions)
{
    int64_t blocks = (positions + LANES - 1) / LANES;
    return (blocks + SEGMENTS - 1) / SEGMENTS * LANES;
}

static int64_t segment_count(int64_t positions)
{
    return positions ? (positions + segment_rows(positions) - 1) / segment_rows(positions) : 1;
}

/* The scratch (kernels.h): per segment, two sums' lanes of every channel in float64 and the moments'
 * shift; the mean and 1/std; then in the data type, per segment, the gradient sums' lanes; the centre and
 * three coefficients. */
struct nhwc_scratch {
    double *moments, *shift, *m, *i; /* moments: segment s's at s * 2 * LANES * k */
    void *gradient, *centre;         /* gradient: segment s's at s * 2 * LANES * k; centre, k0, k1, k2 */
};

static struct nhwc_scratch nhwc_scratch(void *scratch, int64_t k, int size)
{
    struct nhwc_scratch n;
    n.moments = scratch;
    n.shift = n.moments + SEGMENTS * 2 * LANES * k;
    n.m = n.shift + SEGMENTS * k;
    n.i = n.m + k;
    n.gradient = n.i + k;
    n.centre = (char *)n.gradient + SEGMENTS * 2 * LANES * k * size;
    return n;
}

#define DEFINE_NHWC(T, VT, SUFFIX)                                                                        \
    /* the moments' lanes of segments [lo, hi), each folded to lane 0, and their shifts */                \
    static void segment_moments_##SUFFIX(int64_t positions, int64_t lo, int64_t hi, int64_t channels,     \
                                         const T *x, int64_t x_row, const struct nhwc_scratch *n)         \
    {                                                                                                     \
        int64_t rows = segment_rows(positions);                                                           \
        for (int64_t s = lo; s < hi; s++) {                                                               \
            double *restrict la = n->moments + s * 2 * LANES * channels, *restrict lb = la + LANES * channels; \
            double *restrict shift = n->shift + s * channels;                                             \
            int64_t p0 = s * rows, p1 = p0 + rows < positions ? p0 + rows : positions;                    \
            for (int64_t c = 0; c < channels; c++)                                                        \
                shift[c] = SHIFT_OF(x[c]);                                                                \
            for (int64_t i = 0; i < LANES * channels; i++)                                                \
                la[i] = lb[i] = 0.0;                                                                      \
            for (int64_t p = p0; p < p1; p++) {                                                           \
                const T *restrict xr = x + p * x_row;                                                     \
                double *restrict a = la + (p % LANES) * channels, *restrict b = lb + (p % LANES) * channels; \
                for (int64_t c = 0; c < channels; c++) {                                                  \
                    double d = (double)xr[c] - shift[c];                                                  \
                    a[c] = a[c] + d;                                                                      \
                    b[c] = b[c] + d * d;                                                                  \
                }                                                                                         \
            }                                                                                             \
            fold_lanes_f64(la, lb, channels);                                                             \
        }                                                                                                 \
    }                                                                                                     \
    /* the gradient sums' lanes (Σdy, Σdy·(x - centre)) of segments [lo, hi), each folded to lane 0 */    \
    static void segment_gradient_##SUFFIX(int64_t positions, int64_t lo, int64_t hi, int64_t channels,    \
                                          const T *x, int64_t x_row, const T *dy, int64_t dy_row,         \
                                          const T *centre, T *gradient)                                   \
    {                                                                                                     \
        int64_t rows = segment_rows(positions);                                                           \
        for (int64_t s = lo; s < hi; s++) {                                                               \
            T *restrict la = gradient + s * 2 * LANES * channels, *restrict lb = la + LANES * channels;   \
            int64_t p0 = s * rows, p1 = p0 + rows < positions ? p0 + rows : positions;                    \
            for (int64_t i = 0; i < LANES * channels; i++)                                                \
                la[i] = lb[i] = (T)0;                                                                     \
            for (int64_t p = p0; p < p1; p++) {                                                           \
                const T *restrict xr = x + p * x_row, *restrict gr = dy + p * dy_row;                     \
                T *restrict a = la + (p % LANES) * channels, *restrict b = lb + (p % LANES) * channels;   \
                for (int64_t c = 0; c < channels; c++) {                                                  \
                    T t = xr[c] - centre[c];                                                              \
                    a[c] = a[c] + gr[c];                                                                  \
                    b[c] = b[c] + gr[c] * t;                                                              \
                }                                                                                         \
            }                                                                                             \
            fold_lanes_##SUFFIX(la, lb, channels);                                                        \
        }                                                                                                 \
    }                                                                                                     \
    static void position_apply_##SUFFIX(int64_t positions, int64_t channels, const T *x, int64_t x_row,   \
                                        const T *dy, int64_t dy_row, T *out, int64_t out_row,             \
                                        const T *centre, const T *k0, const T *k1, const T *k2, int stream) \
    {                                                                                                     \
        for (int64_t p = 0; p < positions; p++) {                                                         \
            const T *xr = x + p * x_row, *gr = dy ? dy + p * dy_row : xr;                                 \
            T *o = out + p * out_row;                                                                     \
            if (dy)                                                                                       \
                POSITION_ROW(T, VT, SUFFIX, k0, (gv * a0) + (((xv - ce) * a1) + a2))                      \
            else                                                                                          \
                POSITION_ROW(T, VT, SUFFIX, k1, ((xv - ce) * a1) + a2)                                    \
        }                                                                                                 \
    }                                                                                                     \
    /* MOMENTS of segments [lo, hi); STATISTICS: the mean and 1/std (saved or from the moments) and the   \
     * centre; GRADIENT of segments [lo, hi); COEFFICIENTS: dScale, dBias and dx's coefficients; APPLY: dx \
     * of rows [lo, hi). */                                                                               \
    static void backward_nhwc_##SUFFIX(int phase, int64_t lo, int64_t hi, int64_t positions,              \
                                       int64_t channels, const T *x, int64_t x_row, const T *dy,          \
                                       int64_t dy_row, T *dx, int64_t dx_row, const double *scale,        \
                                       const double *mean, const double *inv, double eps, double alpha,   \
                                       double *d_scale, double *d_bias, void *scratch, int stream)        \
    {                                                                                                     \
        const int64_t k = channels;                                                                       \
        const struct nhwc_scratch n = nhwc_scratch(scratch, k, sizeof(T));                                \
        T *gradient = n.gradient, *centre = n.centre, *k0 = centre + k, *k1 = k0 + k, *k2 = k1 + k;       \
        const double count = (double)positions;                                                           \
        switch (phase) {                                                                                  \
        case OPEMU_BN_NHWC_MOMENTS:                                                                       \
            segment_moments_##SUFFIX(positions, lo, hi, k, x, x_row, &n);                                 \
            break;                                                                                        \
        case OPEMU_BN_NHWC_STATISTICS:                                                                    \
            if (mean)                                                                                     \
                for (int64_t c = 0; c < k; c++) {                                                         \
                    n.m[c] = mean[c];                                                                     \
                    n.i[c] = inv[c];                                                                      \
                }                                                                                         \
            else {                                                                                        \
                combine_segments_f64(positions, k, n.moments, n.m, n.i); /* Σd, Σd² until replaced */     \
                for (int64_t c = 0; c < k; c++) {                                                         \
                    double var;                                                                           \
                    finish_statistics(count, n.shift[c], n.m[c], n.i[c], &n.m[c], &var);                  \
                    n.i[c] = 1 / sqrt(var + eps);                                                         \
                }                                                                                         \
            }                                                                                             \
            for (int64_t c = 0; c < k; c++)                                                               \
                centre[c] = (T)n.m[c];                                                                    \
            break;                                                                                        \
        case OPEMU_BN_NHWC_GRADIENT:                                                                      \
            segment_gradient_##SUFFIX(positions, lo, hi, k, x, x_row, dy, dy_row, centre, gradient);      \
            break;                                                                                        \
        case OPEMU_BN_NHWC_COEFFICIENTS:                                                                  \
            combine_segments_##SUFFIX(positions, k, gradient, k0, k1); /* Σdy, Σdy·(x - centre) */        \
            for (int64_t c = 0; c < k; c++) {                                                             \
                double coef[3];                                                                           \
                gradient_coefficients(scale[c], n.m[c], n.i[c], (double)centre[c], (double)k0[c], (double)k1[c], \
                                      count, alpha, &d_scale[c], &d_bias[c], coef);                       \
                k0[c] = (T)coef[0];                                                                       \
                k1[c] = (T)coef[1];                                                                       \
                k2[c] = (T)coef[2];                                                                       \
            }                                                                                             \
            break;                                                                                        \
        case OPEMU_BN_NHWC_APPLY:                                                                         \
            position_apply_##SUFFIX(hi - lo, k, x + lo * x_row, x_row, dy + lo * dy_row, dy_row,          \
                                    dx + lo * dx_row, dx_row, centre, k0, k1, k2, stream);                \
            break;                                                                                        \
        }                                                                                                 \
    }                                                                                                     \
    /* MOMENTS of segments [lo, hi); STATISTICS: mean, var and y's coefficients; APPLY: y of rows [lo, hi) */ \
    static void forward_nhwc_##SUFFIX(int phase, int64_t lo, int64_t hi, int64_t positions,               \
                                      int64_t channels, const T *x, int64_t x_row, T *y, int64_t y_row,   \
                                      const double *scale, const double *bias, double eps, double alpha,  \
                                      double *mean, double *var, void *scratch, int stream)               \
    {                                                                                                     \
        const int64_t k = channels;                                                                       \
        const struct nhwc_scratch n = nhwc_scratch(scratch, k, sizeof(T));                                \
        T *centre = n.centre, *k1 = centre + 2 * k, *k2 = k1 + k;                                         \
        switch (phase) {                                                                                  \
        case OPEMU_BN_NHWC_MOMENTS:                                                                       \
            segment_moments_##SUFFIX(positions, lo, hi, k, x, x_row, &n);                                 \
            break;                                                                                        \
        case OPEMU_BN_NHWC_STATISTICS:                                                                    \
            combine_segments_f64(positions, k, n.moments, n.m, n.i); /* Σd, Σd² */                        \
            for (int64_t c = 0; c < k; c++) {                                                             \
                double coef[2];                                                                           \
                finish_statistics((double)positions, n.shift[c], n.m[c], n.i[c], &mean[c], &var[c]);      \
                centre[c] = (T)mean[c];                                                                   \
                forward_coefficients(scale[c], bias[c], mean[c], 1 / sqrt(var[c] + eps), (double)centre[c], \
                                     alpha, coef);                                                        \
                k1[c] = (T)coef[0];                                                                       \
                k2[c] = (T)coef[1];                                                                       \
            }                                                                                             \
            break;                                                                                        \
        case OPEMU_BN_NHWC_APPLY:                                                                         \
            position_apply_##SUFFIX(hi - lo, k, x + lo * x_row, x_row, 0, 0, y + lo * y_row, y_row, centre, 0, \
                                    k1, k2, stream);                                                      \
            break;                                                                                        \
        }                                                                                                 \
    }

/* lane l += lane l + w (w = 8, 4, 2, 1) for every channel: lane 0 holds the sums. */
#define DEFINE_FOLD(T, SUFFIX)                                                                            \
    static void fold_lanes_##SUFFIX(T *la, T *lb, int64_t channels)                                       \
    {                                                                                                     \
        for (int w = LANES / 2; w > 0; w /= 2)                                                            \
            for (int l = 0; l < w; l++)                                                                   \
                for (int64_t c = 0; c < channels; c++) {                                                  \
                    la[l * channels + c] = la[l * channels + c] + la[(l + w) * channels + c];             \
                    lb[l * channels + c] = lb[l * channels + c] + lb[(l + w) * channels + c];             \
                }                                                                                         \
    }                                                                                                     \
    /* segment sums (lane 0 of each segment's lanes, 2 * LANES * k apart) added in order into sum_a, sum_b */ \
    static void combine_segments_##SUFFIX(int64_t positions, int64_t channels, const T *lanes, T *sum_a, T *sum_b) \
    {                                                                                                     \
        int64_t segments = segment_count(positions);                                                      \
        for (int64_t c = 0; c < channels; c++) {                                                          \
            T a = lanes[c], b = lanes[LANES * channels + c];                                              \
            for (int64_t s = 1; s < segments; s++) {                                                      \
                a = a + lanes[s * 2 * LANES * channels + c];                                              \
                b = b + lanes[s * 2 * LANES * channels + LANES * channels + c];                           \
            }                                                                                             \
            sum_a[c] = a;                                                                                 \
            sum_b[c] = b;                                                                                 \
        }                                                                                                 \
    }

DEFINE_FOLD(float, f32)
DEFINE_FOLD(double, f64)
DEFINE_NHWC(float, f32_pair, f32)
DEFINE_NHWC(double, f64_pair, f64)

int64_t opemu_kernel_bn_nhwc_scratch(int64_t channels, int size)
{
    int64_t per_channel = (int64_t)sizeof(double) * (SEGMENTS * (2 * LANES + 1) + 2) + size * (SEGMENTS * 2 * LANES + 4);
    return channels < 0 || channels > INT64_MAX / per_channel ? -1 : channels * per_channel;
}

int opemu_kernel_bn_backward_nhwc(int size, int phase, int64_t lo, int64_t hi, int64_t positions, int64_t channels,
                                  const void *x, int64_t x_row, const void *dy, int64_t dy_row, void *dx,
                                  int64_t dx_row, const double *scale, const double *mean, const double *inv,
                                  double eps, double alpha, double *d_scale, double *d_bias, void *scratch, int stream)
{
    if (size == 4)
        backward_nhwc_f32(phase, lo, hi, positions, channels, (const float *)x, x_row, (const float *)dy, dy_row,
                          (float *)dx, dx_row, scale, mean, inv, eps, alpha, d_scale, d_bias, scratch, stream);
    else if (size == 8)
        backward_nhwc_f64(phase, lo, hi, positions, channels, (const double *)x, x_row, (const double *)dy, dy_row,
                          (double *)dx, dx_row, scale, mean, inv, eps, alpha, d_scale, d_bias, scratch, stream);
    else
        return -1;
    stream_fence();
    return 0;
}

int opemu_kernel_bn_forward_nhwc(int size, int phase, int64_t lo, int64_t hi, int64_t positions, int64_t channels,
                                 const void *x, int64_t x_row, void *y, int64_t y_row, const double *scale,
                                 const double *bias, double eps, double alpha, double *mean, double *var,
                                 void *scratch, int stream)
{
    if (size == 4)
        forward_nhwc_f32(phase, lo, hi, positions, channels, (const float *)x, x_row, (float *)y, y_row, scale, bias,
                         eps, alpha, mean, var, scratch, stream);
    else if (size == 8)
        forward_nhwc_f64(phase, lo, hi, positions, channels, (const double *)x, x_row, (double *)y, y_row, scale,
                         bias, eps, alpha, mean, var, scratch, stream);
    else
        return -1;
    stream_fence();
    return 0;
}
