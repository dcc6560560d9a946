/* Activation forward and backward (python/opemu/ops/mcdnn/activation.py forward/backward).
 *
 * Where the reference selects a value (np.where, the 0/1 integer product of RELU backward, maximum)
 * the kernel selects too (a conditional move or blend copies bits), so NaN payloads and signed zeros
 * come through as NumPy's do.
 * NumPy's maximum(a, b) answers a when a > b or a is NaN, else b (a tie gives b); fmax(a, b) answers
 * a when a > b, else b, unless b is NaN. */
#include <string.h>
#include "kernels.h"
#include "nontemporal.h"

/* IDENTITY: the values as they are (in place: nothing to do) */
static void copy(void *to, const void *from, size_t bytes)
{
    if (to != from)
        memmove(to, from, bytes);
}

#define DEFINE_ACTIVATION(T, SUFFIX)                                                               \
    static int backward_##SUFFIX(int mode, T coef, T beta, const T *y, const T *dy, const T *x, const T *e,  \
                                 T *dx, int64_t n)                                                        \
    {                                                                                                     \
        int64_t i;                                                                                        \
        switch (mode) {                                                                                   \
        case OPEMU_ACT_RELU: /* dy where x > 0, else +0 (x NaN included) */                                    \
            for (i = 0; i < n; i++) {                                                                     \
                T d = dy[i]; /* loaded whatever x is: the select vectorises */                           \
                dx[i] = x[i] > 0 ? d : 0;                                                                 \
            }                                                                                             \
            return 0;                                                                                     \
        case OPEMU_ACT_CLIPPED_RELU:                                                                      \
            for (i = 0; i < n; i++) {                                                                     \
                T d = dy[i];                                                                              \
                dx[i] = (x[i] > 0) & (x[i] < coef) ? d : 0;                                               \
            }                                                                                             \
            return 0;                                                                                     \
        case OPEMU_ACT_SIGMOID: /* (1 - y) * y * dy */                                                    \
            for (i = 0; i < n; i++) {                                                                     \
                T g = (T)1 - y[i];                                                                        \
                g = g * y[i];                                                                             \
                dx[i] = g * dy[i];                                                                    \
            }                                                                                             \
            return 0;                                                                                     \
        case OPEMU_ACT_TANH: /* (1 - y*y) * dy */                                                         \
            for (i = 0; i < n; i++) {                                                                     \
                T g = y[i] * y[i];                                                                        \
                g = (T)1 - g;                                                                             \
                dx[i] = g * dy[i];                                                                    \
            }                                                                                             \
            return 0;                                                                                     \
        case OPEMU_ACT_ELU: /* x > 0 ? dy : dy * (coef * e) */                                            \
            for (i = 0; i < n; i++) {                                                                     \
                T scaled = dy[i] * (coef * e[i]);                                                         \
                dx[i] = x[i] > 0 ? dy[i] : scaled;                                                        \
            }                                                                                             \
            return 0;                                                                                     \
        case OPEMU_ACT_SWISH: /* dy * (s + b*x*s*(1 - s)), s = sigmoid(b*x) */                            \
            for (i = 0; i < n; i++) {                                                                     \
                T s = e[i];                                                                               \
                T t = beta * x[i];                                                                        \
                t = t * s;                                                                            \
                t = t * ((T)1 - s);                                                                     \
                dx[i] = dy[i] * (s + t);                                                           \
            }                                                                                             \
            return 0;                                                                                     \
        case OPEMU_ACT_IDENTITY:                                                                          \
            copy(dx, dy, (size_t)n * sizeof(T));                                                          \
            return 0;                                                                                     \
        }                                                                                                 \
        return -1;                                                                                        \
    }                                                                                                     \
    /* NumPy's maximum / minimum (NaN wins; a tie answers b) and fmax / fmin (NaN loses) */               \
    static T maximum_##SUFFIX(T a, T b) { return (a > b || a != a) ? a : b; }                             \
    static T minimum_##SUFFIX(T a, T b) { return (a < b || a != a) ? a : b; }                             \
    static T fmax_##SUFFIX(T a, T b) { return (a > b || b != b) ? a : b; }                                \
    static T fmin_##SUFFIX(T a, T b) { return (a < b || b != b) ? a : b; }                                \
    static int forward_##SUFFIX(int mode, int nan, T coef, const T *x, T *y, int64_t n)                  \
    {                                                                                                     \
        int64_t i;                                                                                        \
        switch (mode) {                                                                                   \
        case OPEMU_ACT_RELU:                                                                              \
            if (nan)                                                                                      \
                for (i = 0; i < n; i++)                                                                   \
                    y[i] = maximum_##SUFFIX(x[i], 0);                                                     \
            else                                                                                          \
                for (i = 0; i < n; i++)                                                                   \
                    y[i] = fmax_##SUFFIX(x[i], 0);                                                        \
            return 0;                                                                                     \
        case OPEMU_ACT_CLIPPED_RELU:                                                                      \
            if (nan)                                                                                      \
                for (i = 0; i < n; i++)                                                                   \
                    y[i] = minimum_##SUFFIX(maximum_##SUFFIX(x[i], 0), coef);                             \
            else                                                                                          \
                for (i = 0; i < n; i++)                                                                   \
                    y[i] = fmin_##SUFFIX(fmax_##SUFFIX(x[i], 0), coef);                                   \
            return 0;                                                                                     \
        case OPEMU_ACT_IDENTITY:                                                                          \
            copy(y, x, (size_t)n * sizeof(T));                                                            \
            return 0;                                                                                     \
        }                                                                                                 \
        return -1;                                                                                        \
    }

DEFINE_ACTIVATION(float, f32)
DEFINE_ACTIVATION(double, f64)

/* A call's elements cut for the pool in whole lines of LINE elements, so each piece's vector loop starts aligned
 * as the whole call's does (elementwise: the bits are the same however it is cut). */
enum { LINE = 64 };

struct activation_job {
    int mode, size, propagate_nan, streaming;
    double coef, beta;
    const char *y, *dy, *x, *e;
    char *dx;
    int64_t n;
};

static const void *at(const char *base, int64_t offset) { return base ? base + offset : NULL; }

/* Outputs far larger than the caches go out by non-temporal stores (nontemporal.h): computed a block at a time into a
 * buffer in L1, then streamed, so dx costs its write and not also the read a cached store makes first. A block reads
 * its inputs before anything of it is written, as the whole loop does, so dx may be one of them. */
enum { STREAM_BLOCK = 2048 };

static void backward_run(const struct activation_job *j, int64_t first, int64_t count, void *out)
{
    int64_t off = first * j->size;
    if (j->size == 4)
        backward_f32(j->mode, (float)j->coef, (float)j->beta, at(j->y, off), at(j->dy, off), at(j->x, off),
                     at(j->e, off), out, count);
    else
        backward_f64(j->mode, j->coef, j->beta, at(j->y, off), at(j->dy, off), at(j->x, off), at(j->e, off), out,
                     count);
}

static void forward_run(const struct activation_job *j, int64_t first, int64_t count, void *out)
{
    int64_t off = first * j->size;
    if (j->size == 4)
        forward_f32(j->mode, j->propagate_nan, (float)j->coef, at(j->x, off), out, count);
    else
        forward_f64(j->mode, j->propagate_nan, j->coef, at(j->x, off), out, count);
}

/* elements [lo * LINE, hi * LINE) of the job (the last line cut at n), straight into dx or through the buffer */
static void run_lines(const struct activation_job *j, int64_t lo, int64_t hi,
                      void (*run)(const struct activation_job *, int64_t, int64_t, void *))
{
    int64_t first = lo * LINE, last = hi * LINE < j->n ? hi * LINE : j->n;
    if (!j->streaming) {
        run(j, first, last - first, j->dx + first * j->size);
        return;
    }
    _Alignas(64) double block[STREAM_BLOCK];
    for (int64_t b = first; b < last; b += STREAM_BLOCK) {
        int64_t count = last - b < STREAM_BLOCK ? last - b : STREAM_BLOCK;
        run(j, b, count, block);
        opemu_nontemporal_copy(j->dx + b * j->size, block, (size_t)(count * j->size));
    }
}

static void backward_piece(const void *job, int index, int64_t lo, int64_t hi)
{
    run_lines(job, lo, hi, backward_run);
}

static void forward_piece(const void *job, int index, int64_t lo, int64_t hi)
{
    run_lines(job, lo, hi, forward_run);
}

static int known(int mode, int size, int forward)
{
    if (size != 4 && size != 8)
        return 0;
    if (forward)
        return mode == OPEMU_ACT_RELU || mode == OPEMU_ACT_CLIPPED_RELU || mode == OPEMU_ACT_IDENTITY;
    return mode >= OPEMU_ACT_SIGMOID && mode <= OPEMU_ACT_SWISH;
}

int opemu_kernel_activation_backward(int pieces, int streaming, int mode, int size, double coef, double beta,
                                     const void *y, const void *dy, const void *x, const void *e, void *dx, int64_t n)
{
    if (!known(mode, size, 0))
        return -1;
    struct activation_job job = {mode, size, 0, streaming, coef, beta, y, dy, x, e, dx, n};
    opemu_pool_split(pieces, (n + LINE - 1) / LINE, backward_piece, &job);
    return 0;
}

int opemu_kernel_activation_forward(int pieces, int streaming, int mode, int size, int propagate_nan, double coef,
                                    const void *x, void *y, int64_t n)
{
    if (!known(mode, size, 1))
        return -1;
    struct activation_job job = {mode, size, propagate_nan, streaming, coef, 0, NULL, NULL, x, NULL, y, n};
    opemu_pool_split(pieces, (n + LINE - 1) / LINE, forward_piece, &job);
    return 0;
}
