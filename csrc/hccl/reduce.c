/* The rank-order reduction: out = in[0] op in[1] … op in[n-1], element by element.
 *
 * NumPy's version (python/opemu/collectives/reduce.py) is the reference. The integer, fp32 and fp64
 * types also have this C twin, bit for bit the same (IEEE single and double steps, the same
 * max/min rule, wrapping integers, C's truncating division for MCCL's average): a 4-byte AllReduce
 * spends ~20 us entering the interpreter, which the per-call latency targets cannot afford, and
 * the one pass here reads each input once. fp16 and bf16 (rounded after each step) and
 * OPEMU_KERNELS=numpy take the reference. The output may be one of the inputs: each block of
 * elements is reduced into scratch before it is written. */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "hccl_internal.h"

enum { BLOCK = 2048, AVERAGE = 4 };

/* A NaN out of a sum or product is the first NaN operand's, made quiet (the reference says so
 * explicitly: which operand an add instruction takes its NaN from depends on how the compiler
 * ordered them); a NaN made of numbers (inf - inf) is the hardware's. */
static float quiet_f(float v)
{
    uint32_t b;
    memcpy(&b, &v, sizeof b);
    b |= 0x00400000u;
    memcpy(&v, &b, sizeof b);
    return v;
}

static double quiet_d(double v)
{
    uint64_t b;
    memcpy(&b, &v, sizeof b);
    b |= 0x0008000000000000ull;
    memcpy(&v, &b, sizeof b);
    return v;
}

#define QUIET(v) _Generic((v), float: quiet_f(v), double: quiet_d(v), default: (v))
#define NAN_RULE(a, x, r) ((r) == (r) ? (r) : (a) != (a) ? QUIET(a) : (x) != (x) ? QUIET(x) : (r))

/* NumPy's maximum/minimum: the first operand when it compares so or is NaN. */
#define MAXIMUM(a, b) (((a) >= (b) || (a) != (a)) ? (a) : (b))
#define MINIMUM(a, b) (((a) <= (b) || (a) != (a)) ? (a) : (b))

#define DEFINE_REDUCE(NAME, T, U, FLOAT)                                                                     \
    static void NAME(int32_t op, uint32_t n, char *const *inputs, char *out, uint64_t count)                  \
    {                                                                                                         \
        T acc[BLOCK];                                                                                         \
        for (uint64_t first = 0; first < count; first += BLOCK) {                                             \
            size_t m = count - first < BLOCK ? (size_t)(count - first) : BLOCK;                               \
            memcpy(acc, inputs[0] + first * sizeof(T), m * sizeof(T));                                        \
            for (uint32_t r = 1; r < n; r++) {                                                                \
                const T *x = (const T *)(const void *)(inputs[r] + first * sizeof(T));                        \
                switch (op) {                                                                                 \
                case HCCL_REDUCE_PROD:                                                                        \
                    for (size_t i = 0; i < m; i++) {                                                          \
                        T r = FLOAT ? (T)(acc[i] * x[i]) : (T)((U)acc[i] * (U)x[i]);                          \
                        acc[i] = FLOAT ? (T)NAN_RULE(acc[i], x[i], r) : r;                                    \
                    }                                                                                         \
                    break;                                                                                    \
                case HCCL_REDUCE_MAX:                                                                         \
                    for (size_t i = 0; i < m; i++)                                                            \
                        acc[i] = MAXIMUM(acc[i], x[i]);                                                       \
                    break;                                                                                    \
                case HCCL_REDUCE_MIN:                                                                         \
                    for (size_t i = 0; i < m; i++)                                                            \
                        acc[i] = MINIMUM(acc[i], x[i]);                                                       \
                    break;                                                                                    \
                default: /* sum, and the average's sum */                                                     \
                    for (size_t i = 0; i < m; i++) {                                                          \
                        T r = FLOAT ? (T)(acc[i] + x[i]) : (T)((U)acc[i] + (U)x[i]);                          \
                        acc[i] = FLOAT ? (T)NAN_RULE(acc[i], x[i], r) : r;                                    \
                    }                                                                                         \
                }                                                                                             \
            }                                                                                                 \
            if (op == AVERAGE)                                                                                \
                for (size_t i = 0; i < m; i++)                                                                \
                    acc[i] = (T)(acc[i] / (T)n);                                                              \
            memcpy(out + first * sizeof(T), acc, m * sizeof(T));                                              \
        }                                                                                                     \
    }

DEFINE_REDUCE(reduce_i8, int8_t, uint8_t, 0)
DEFINE_REDUCE(reduce_i16, int16_t, uint16_t, 0)
DEFINE_REDUCE(reduce_i32, int32_t, uint32_t, 0)
DEFINE_REDUCE(reduce_i64, int64_t, uint64_t, 0)
DEFINE_REDUCE(reduce_u8, uint8_t, uint8_t, 0)
DEFINE_REDUCE(reduce_u32, uint32_t, uint32_t, 0)
DEFINE_REDUCE(reduce_u64, uint64_t, uint64_t, 0)
DEFINE_REDUCE(reduce_f32, float, float, 1)
DEFINE_REDUCE(reduce_f64, double, double, 1)

typedef void (*reducer)(int32_t op, uint32_t n, char *const *inputs, char *out, uint64_t count);

static reducer c_twin(int32_t dtype)
{
    const char *kernels = getenv("OPEMU_KERNELS");
    if (kernels && strcmp(kernels, "numpy") == 0)
        return NULL;
    switch (dtype) {
    case HCCL_DATA_TYPE_INT8: return reduce_i8;
    case HCCL_DATA_TYPE_INT16: return reduce_i16;
    case HCCL_DATA_TYPE_INT32: return reduce_i32;
    case HCCL_DATA_TYPE_INT64: return reduce_i64;
    case HCCL_DATA_TYPE_UINT8: return reduce_u8;
    case HCCL_DATA_TYPE_UINT32: return reduce_u32;
    case HCCL_DATA_TYPE_UINT64: return reduce_u64;
    case HCCL_DATA_TYPE_FP32: return reduce_f32;
    case HCCL_DATA_TYPE_FP64: return reduce_f64;
    }
    return NULL;
}

HcclResult hccl_reduce(int32_t dtype, int32_t op, uint32_t n, char *const *inputs, char *out, uint64_t count)
{
    if (count == 0)
        return HCCL_SUCCESS;
    reducer twin = c_twin(dtype);
    if (twin) {
        twin(op, n, inputs, out, count);
        return HCCL_SUCCESS;
    }
    if (opemu_python_ready("HCCL reduction") != 0)
        return HCCL_E_INTERNAL;
    int rc = opemu_py_hccl_reduce(dtype, op, n, (void *const *)inputs, out, count);
    return rc == 0 ? HCCL_SUCCESS : HCCL_E_INTERNAL;
}
