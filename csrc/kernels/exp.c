/* exp.h's exp over an array: what its NumPy twin (python/opemu/core/exp.py) is tested against. */
#include "exp.h"
#include "kernels.h"

#define EXP_CHUNK 512 /* elements whose range is checked before their exps: still in L1 for the second pass */

#define DEFINE_EXP_ALL(T, SUFFIX, ISA, TARGET)                                                            \
    TARGET static void exp_all_##SUFFIX##_##ISA(const T *x, T *e, int64_t n)                              \
    {                                                                                                     \
        for (int64_t lo = 0; lo < n; lo += EXP_CHUNK)                                                     \
            exps_##SUFFIX(x + lo, e + lo, n - lo < EXP_CHUNK ? n - lo : EXP_CHUNK);                       \
    }

OPEMU_FOR_EACH_ISA(DEFINE_EXP_ALL, float, F32)
OPEMU_FOR_EACH_ISA(DEFINE_EXP_ALL, double, F64)

int opemu_kernel_exp(int size, const void *x, void *e, int64_t n)
{
    if (size == 4)
        OPEMU_BY_ISA(exp_all_F32_)((const float *)x, (float *)e, n);
    else if (size == 8)
        OPEMU_BY_ISA(exp_all_F64_)((const double *)x, (double *)e, n);
    else
        return -1;
    return 0;
}
