/* aclnnApplyFusedEmaAdam's step (python/opemu/ops/aclnn/apply_fused_ema_adam.py _step and _run_piece):
 * fp32 arithmetic in the reference's order, one pass over the five arrays instead of nineteen.
 * fp16/bf16 data is widened exactly and rounded to nearest even where it is stored, with NumPy's
 * (fp16) and ml_dtypes' (bf16) handling of NaN. */
#include <math.h>
#include <string.h>
#include "kernels.h"
#include "widen.h"

enum { K_B1, K_B2, K_EMA, K_EPS, K_LR, K_WD, K_ONE_B1, K_ONE_B2, K_ONE_EMA, K_R1, K_R2 };

static uint32_t bits_of(float f) { uint32_t b; memcpy(&b, &f, 4); return b; }

/* npy_floatbits_to_halfbits: round to nearest even, NaN keeps the top of its payload */
static uint16_t float_to_half(float value)
{
    uint32_t f = bits_of(value), exp = f & 0x7f800000u, sig = f & 0x007fffffu;
    uint16_t sign = (uint16_t)((f & 0x80000000u) >> 16);
    if (exp >= 0x47800000u) {
        if (exp == 0x7f800000u && sig) {
            uint16_t r = (uint16_t)(0x7c00u + (sig >> 13));
            return (uint16_t)(sign + (r == 0x7c00u ? r + 1 : r));
        }
        return (uint16_t)(sign + 0x7c00u);
    }
    if (exp <= 0x38000000u) {
        if (exp < 0x33000000u)
            return sign;
        uint32_t shifted = (0x00800000u + sig) >> (113 - (exp >> 23));
        if ((shifted & 0x00003fffu) != 0x00001000u || (f & 0x000007ffu))  /* not a tie to even */
            shifted += 0x00001000u;
        return (uint16_t)(sign + (shifted >> 13));
    }
    uint32_t h_exp = (exp - 0x38000000u) >> 13;
    if ((sig & 0x00003fffu) != 0x00001000u)
        sig += 0x00001000u;
    return (uint16_t)(sign + h_exp + (sig >> 13));  /* a carry out of sig rounds up into the exponent */
}

/* ml_dtypes (Eigen's float_to_bfloat16_rtne): a NaN becomes the quiet NaN of its sign */
static uint16_t float_to_bf16(float value)
{
    uint32_t f = bits_of(value);
    if (value != value)
        return (f & 0x80000000u) ? 0xffc0u : 0x7fc0u;
    f += 0x7fffu + ((f >> 16) & 1u);
    return (uint16_t)(f >> 16);
}

/* One element: the reference's ufunc sequence, each line one rounding */
static inline __attribute__((always_inline)) void step(const float *k, int mode, float grad, float *var, float *m,
                                                      float *v, float *s)
{
    float g = grad, t2, t3;
    if (mode == 0) {
        float t1 = *var * k[K_WD];
        g = t1 + g;
    }
    *m = *m * k[K_B1];
    t2 = g * k[K_ONE_B1];
    *m = t2 + *m;
    t3 = g * g;
    t3 = t3 * k[K_ONE_B2];
    *v = *v * k[K_B2];
    *v = t3 + *v;
    t2 = *m * k[K_R1];
    t3 = *v * k[K_R2];
    t3 = sqrtf(t3);
    t3 = t3 + k[K_EPS];
    t2 = t2 / t3;
    float base = *var;
    if (mode == 1) {
        t3 = *var * k[K_WD];
        t2 = t2 + t3;
    } else if (mode != 0) {
        base = g;  /* the kernel's var buffer holds grad */
    }
    t2 = t2 * k[K_LR];
    *var = base - t2;
    t2 = *var * k[K_ONE_EMA];
    *s = *s * k[K_EMA];
    *s = *s + t2;
}

/* restrict: the caller passes arrays that do not overlap (the reference's result only then) */
static void run_f32(int mode, const float *k, const float *restrict grad, float *restrict var, float *restrict m,
                    float *restrict v, float *restrict s, int64_t n)
{
    float c[11];
    memcpy(c, k, sizeof c);  /* the constants in registers, not reloaded through a pointer that may alias */
    for (int64_t i = 0; i < n; i++)
        step(c, mode, grad[i], var + i, m + i, v + i, s + i);
}

#define DEFINE_HALF_RUN(NAME, WIDEN, NARROW)                                                               \
    static void NAME(int mode, const float *k, const uint16_t *grad, uint16_t *var, uint16_t *m, uint16_t *v, \
                     uint16_t *s, int64_t n)                                                              \
    {                                                                                                     \
        for (int64_t i = 0; i < n; i++) {                                                                 \
            float w_var = WIDEN(var[i]), w_m = WIDEN(m[i]), w_v = WIDEN(v[i]), w_s = WIDEN(s[i]);         \
            step(k, mode, WIDEN(grad[i]), &w_var, &w_m, &w_v, &w_s);                                      \
            var[i] = NARROW(w_var);                                                                       \
            m[i] = NARROW(w_m);                                                                           \
            v[i] = NARROW(w_v);                                                                           \
            s[i] = NARROW(w_s);                                                                           \
        }                                                                                                 \
    }

DEFINE_HALF_RUN(run_f16, opemu_half_to_float, float_to_half)
DEFINE_HALF_RUN(run_bf16, opemu_bf16_to_float, float_to_bf16)

int opemu_kernel_ema_adam(int dtype, int mode, const void *constants, const void *grad, void *var, void *m,
                          void *v, void *s, int64_t n)
{
    typedef uint16_t h;
    const float *k = (const float *)constants;
    const char *arrays[5] = {grad, var, m, v, s};
    size_t bytes = (size_t)n * (dtype == 0 ? 4 : 2);
    for (int i = 0; i < 5; i++)
        for (int j = i + 1; j < 5; j++)
            if (arrays[i] < arrays[j] + bytes && arrays[j] < arrays[i] + bytes)
                return -2;
    switch (dtype) {
    case 0:
        run_f32(mode, k, (const float *)grad, (float *)var, (float *)m, (float *)v, (float *)s, n);
        return 0;
    case 1:
        run_f16(mode, k, (const h *)grad, (h *)var, (h *)m, (h *)v, (h *)s, n);
        return 0;
    case 2:
        run_bf16(mode, k, (const h *)grad, (h *)var, (h *)m, (h *)v, (h *)s, n);
        return 0;
    }
    return -1;
}
