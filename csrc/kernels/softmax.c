/* Softmax backward (python/opemu/ops/mcdnn/softmax.py): the instance mode's elementwise step given the
 * image's sum (_instance_direct: accurate/fast (dy - total) * y, log dy - exp(y) * total with exp(y) from
 * NumPy), and the accurate channel mode of one image whole (_channel_direct): per position the sum over
 * the channels of dy*y, row after row from the first, then (dy - sum) * y; two passes where the
 * reference makes four. */
#include "kernels.h"

#define DEFINE_SOFTMAX(T, SUFFIX)                                                                         \
    static void backward_##SUFFIX(int log, T total, const T *y, const T *dy, const T *e, T *dx, int64_t n) \
    {                                                                                                     \
        if (log)                                                                                          \
            for (int64_t i = 0; i < n; i++) {                                                             \
                T g = e[i] * total;                                                                      \
                dx[i] = dy[i] - g;                                                                        \
            }                                                                                             \
        else                                                                                              \
            for (int64_t i = 0; i < n; i++) {                                                             \
                T g = dy[i] - total;                                                                      \
                dx[i] = g * y[i];                                                                       \
            }                                                                                             \
    }

#define DEFINE_CHANNEL(T, SUFFIX)                                                                         \
    static void channel_##SUFFIX(const T *y, const T *dy, T *dx, T *total, int64_t channels, int64_t n)   \
    {                                                                                                     \
        for (int64_t j = 0; j < n; j++)                                                                   \
            total[j] = dy[j] * y[j];                                                                      \
        for (int64_t c = 1; c < channels; c++)                                                            \
            for (int64_t j = 0; j < n; j++) {                                                             \
                T p = dy[c * n + j] * y[c * n + j];                                                       \
                total[j] = total[j] + p;                                                                  \
            }                                                                                             \
        for (int64_t c = 0; c < channels; c++)                                                            \
            for (int64_t j = 0; j < n; j++) {                                                             \
                T g = dy[c * n + j] - total[j];                                                           \
                dx[c * n + j] = g * y[c * n + j];                                                         \
            }                                                                                             \
    }

DEFINE_SOFTMAX(float, f32)
DEFINE_SOFTMAX(double, f64)
DEFINE_CHANNEL(float, f32)
DEFINE_CHANNEL(double, f64)

int opemu_kernel_softmax_channel_backward(int size, const void *y, const void *dy, void *dx, void *total,
                                          int64_t channels, int64_t n)
{
    if (channels < 1)
        return -1;
    if (size == 4)
        channel_f32((const float *)y, (const float *)dy, (float *)dx, (float *)total, channels, n);
    else if (size == 8)
        channel_f64((const double *)y, (const double *)dy, (double *)dx, (double *)total, channels, n);
    else
        return -1;
    return 0;
}

int opemu_kernel_softmax_backward(int log, int size, double total, const void *y, const void *dy, const void *e,
                                  void *dx, int64_t n)
{
    if (size == 4)
        backward_f32(log, (float)total, (const float *)y, (const float *)dy, (const float *)e, (float *)dx, n);
    else if (size == 8)
        backward_f64(log, total, (const double *)y, (const double *)dy, (const double *)e, (double *)dx, n);
    else
        return -1;
    return 0;
}
