/* The exp the C kernels share with their NumPy references (python/opemu/core/exp.py repeats it ufunc by
 * ufunc): not libm's nor NumPy's (neither is reproducible from the other side) but one written out in
 * plain operations, each rounded in the type:
 *   t = x clamped to [LO, HI] (NaN: LO), k = t*log2(e) rounded to an integer by adding and subtracting
 *   1.5*2^mant, r = (t - k*ln2_hi) - k*ln2_lo, Horner's e^r (Taylor to degree 7 in float, 13 in double),
 *   times 2^(k>>1), times 2^(k - (k>>1)) (the first product is exact, so subnormal results round once),
 *   and NaN for NaN.
 * Static inline: each includer's paths for the instruction-set levels (isa.h) inline it with their own
 * instructions (a helper compiled once would be plain x86-64's SSE2 code). */
#ifndef OPEMU_KERNELS_EXP_H
#define OPEMU_KERNELS_EXP_H

#include <stdint.h>
#include <string.h>

#include "isa.h"

#define INLINE static inline __attribute__((always_inline))

/* An includer's loops come in one path per level (16 or 8 floats a vector where plain x86-64 has 4), running the
 * same operations; -ffp-contract=off keeps FMA out. */
#if defined(__GNUC__) && !defined(__clang__)
/* Without it GCC keeps the exp's selects as branches under AVX2 (a compare may raise a flag it must not
 * speculate); it changes no value (no reassociation, no contraction), and no caller reads the flags. */
#pragma GCC optimize("no-trapping-math")
#endif

static const float EXP_TAYLOR_F32[] = {1.0f, 1.0f, 1.0f / 2, 1.0f / 6, 1.0f / 24, 1.0f / 120, 1.0f / 720,
                                       1.0f / 5040};
static const double EXP_TAYLOR_F64[] = {1.0, 1.0, 1.0 / 2, 1.0 / 6, 1.0 / 24, 1.0 / 120, 1.0 / 720, 1.0 / 5040,
                                        1.0 / 40320, 1.0 / 362880, 1.0 / 3628800, 1.0 / 39916800,
                                        1.0 / 479001600, 1.0 / 6227020800.0};

/* BITS: the unsigned integer of T's width; MANT, BIAS: its mantissa bits and exponent bias; [NORMAL_LO,
 * NORMAL_HI]: where neither clamp acts and 2^k is one normal number, so exp_normal gives exp's bits: p * 2^k
 * rounds once, as (p * 2^(k>>1)) * 2^(k-(k>>1)) does when its first product is exact. */
#define DEFINE_EXP(T, BITS, SUFFIX, MANT, BIAS, LO, HI, NORMAL_LO, NORMAL_HI, LOG2E, LN2_HI, LN2_LO)        \
    /* Horner's e^r of t's reduced argument; k: t / ln 2 rounded to an integer */                         \
    INLINE T exp_core_##SUFFIX(T t, T *k)                                                                 \
    {                                                                                                     \
        const int degree = (int)(sizeof EXP_TAYLOR_##SUFFIX / sizeof(T)) - 1;                             \
        const T round = (T)1.5 * (T)((BITS)1 << MANT);                                                    \
        T v = t * (T)(LOG2E);                                                                             \
        *k = (v + round) - round;                                                                         \
        T r = t - *k * (T)(LN2_HI);                                                                       \
        r = r - *k * (T)(LN2_LO);                                                                         \
        T p = EXP_TAYLOR_##SUFFIX[degree];                                                                \
        for (int i = degree - 1; i >= 0; i--) {                                                           \
            p = p * r;                                                                                    \
            p = p + EXP_TAYLOR_##SUFFIX[i];                                                               \
        }                                                                                                 \
        return p;                                                                                         \
    }                                                                                                     \
    INLINE T power_of_two_##SUFFIX(int32_t k)                                                             \
    {                                                                                                     \
        BITS bits = (BITS)(k + (BIAS)) << (MANT);                                                         \
        T scale;                                                                                          \
        memcpy(&scale, &bits, sizeof scale);                                                              \
        return scale;                                                                                     \
    }                                                                                                     \
    INLINE T exp_##SUFFIX(T x)                                                                            \
    {                                                                                                     \
        T t = x > (T)(LO) ? x : (T)(LO); /* NaN too goes to LO */                                         \
        t = t < (T)(HI) ? t : (T)(HI);                                                                    \
        T k, p = exp_core_##SUFFIX(t, &k);                                                                \
        int32_t whole = (int32_t)k, half = whole >> 1;                                                    \
        T e = p * power_of_two_##SUFFIX(half);                                                            \
        e = e * power_of_two_##SUFFIX(whole - half);                                                      \
        return x != x ? x : e;                                                                            \
    }                                                                                                     \
    INLINE T exp_normal_##SUFFIX(T x)                                                                     \
    {                                                                                                     \
        T k, p = exp_core_##SUFFIX(x, &k);                                                                \
        return p * power_of_two_##SUFFIX((int32_t)k);                                                     \
    }                                                                                                     \
    /* whether exp_normal gives exp's bits for every x in [lo, hi] (false when either is NaN) */          \
    INLINE int exp_normal_covers_##SUFFIX(T lo, T hi)                                                     \
    {                                                                                                     \
        return (lo >= (T)(NORMAL_LO)) & (hi <= (T)(NORMAL_HI));                                           \
    }                                                                                                     \
    /* e = exp(x) of n elements (a chunk: x is read twice): exp_normal's shorter loop when all allow it */ \
    INLINE void exps_##SUFFIX(const T *x, T *e, int64_t n)                                                \
    {                                                                                                     \
        int normal = 1;                                                                                   \
        for (int64_t i = 0; i < n; i++)                                                                   \
            normal &= exp_normal_covers_##SUFFIX(x[i], x[i]);                                             \
        if (normal)                                                                                       \
            for (int64_t i = 0; i < n; i++)                                                               \
                e[i] = exp_normal_##SUFFIX(x[i]);                                                         \
        else                                                                                              \
            for (int64_t i = 0; i < n; i++)                                                               \
                e[i] = exp_##SUFFIX(x[i]);                                                                \
    }

DEFINE_EXP(float, uint32_t, F32, 23, 127, -104.0f, 89.0f, -87.0f, 88.0f, 1.44269504f, 0.693145751953125f,
           1.428606765330187e-06f)
DEFINE_EXP(double, uint64_t, F64, 52, 1023, -746.0, 710.0, -708.0, 709.0, 1.4426950408889634, 0.6931471803691238,
           1.9082149292705877e-10)

#endif
