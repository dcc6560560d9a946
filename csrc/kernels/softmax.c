/* Softmax backward's elementwise step (python/opemu/ops/mcdnn/softmax.py _instance_direct), given the
 * image's sum: accurate/fast (dy - total) * y, log dy - exp(y) * total with exp(y) from NumPy. */
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

DEFINE_SOFTMAX(float, f32)
DEFINE_SOFTMAX(double, f64)

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
