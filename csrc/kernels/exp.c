/* exp.h's exp over an array: what its NumPy twin (python/opemu/core/exp.py) is tested against. */
#include "exp.h"
#include "kernels.h"

#define EXP_CHUNK 512 /* elements whose range is checked before their exps: still in L1 for the second pass */

#define DEFINE_EXP_ALL(T, SUFFIX)                                                                         \
    VECTOR_CLONES static void exp_all_##SUFFIX(const T *x, T *e, int64_t n)                               \
    {                                                                                                     \
        for (int64_t lo = 0; lo < n; lo += EXP_CHUNK)                                                     \
            exps_##SUFFIX(x + lo, e + lo, n - lo < EXP_CHUNK ? n - lo : EXP_CHUNK);                       \
    }

DEFINE_EXP_ALL(float, F32)
DEFINE_EXP_ALL(double, F64)

int opemu_kernel_exp(int size, const void *x, void *e, int64_t n)
{
    if (size == 4)
        exp_all_F32((const float *)x, (float *)e, n);
    else if (size == 8)
        exp_all_F64((const double *)x, (double *)e, n);
    else
        return -1;
    return 0;
}
