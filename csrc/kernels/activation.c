/* Activation forward and backward (python/opemu/ops/mcdnn/activation.py forward/backward).
 *
 * Where the reference selects a value (np.where, the 0/1 integer product of RELU backward, maximum)
 * the kernel selects too (a conditional move or blend copies bits), so NaN payloads and signed zeros
 * come through as NumPy's do.
 * NumPy's maximum(a, b) answers a when a > b or a is NaN, else b (a tie gives b); fmax(a, b) answers
 * a when a > b, else b, unless b is NaN. */
#include <string.h>
#include "kernels.h"

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

#define P(T, a) ((T *)(a))

int opemu_kernel_activation_backward(int mode, int size, double coef, double beta, const void *y, const void *dy,
                                     const void *x, const void *e, void *dx, int64_t n)
{
    if (size == 4)
        return backward_f32(mode, (float)coef, (float)beta, P(float, y), P(float, dy), P(float, x), P(float, e),
                            P(float, dx), n);
    if (size == 8)
        return backward_f64(mode, coef, beta, P(double, y), P(double, dy), P(double, x), P(double, e),
                            P(double, dx), n);
    return -1;
}

int opemu_kernel_activation_forward(int mode, int size, int propagate_nan, double coef, const void *x, void *y,
                                    int64_t n)
{
    if (size == 4)
        return forward_f32(mode, propagate_nan, (float)coef, P(float, x), P(float, y), n);
    if (size == 8)
        return forward_f64(mode, propagate_nan, coef, P(double, x), P(double, y), n);
    return -1;
}
