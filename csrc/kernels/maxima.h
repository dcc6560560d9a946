/* NaN-propagating maxima in vector lanes (GCC's vector extension, 64 bytes: one AVX-512 register, two AVX2
 * ones, four SSE2 ones). GCC vectorises neither `v > m || v != v ? v : m` nor a NaN test folded beside a
 * select, so the lanes are written out. Which of +0 and -0 a maximum returns depends on the order; the
 * callers add +0, as their NumPy references do, so a maximum of zeros is +0 on both sides. */
#ifndef OPEMU_KERNELS_MAXIMA_H
#define OPEMU_KERNELS_MAXIMA_H

#include <stdint.h>
#include <string.h>

#define MAXIMA_BYTES 64

/* T: the element type; I: the integer of its width (the lanes' compare results) */
#define DEFINE_MAXIMA(T, I, SUFFIX)                                                                       \
    typedef T lanes_##SUFFIX __attribute__((vector_size(MAXIMA_BYTES)));                                  \
    typedef I lane_masks_##SUFFIX __attribute__((vector_size(MAXIMA_BYTES)));                             \
    enum { LANE_COUNT_##SUFFIX = MAXIMA_BYTES / sizeof(T) };                                              \
    /* the larger of m and v, NaN when either is (a NaN m stays: no compare with it holds) */             \
    static inline __attribute__((always_inline)) T larger_##SUFFIX(T m, T v)                              \
    {                                                                                                     \
        return (v > m) | (v != v) ? v : m;                                                                \
    }                                                                                                     \
    /* *m = the lanes' larger of *m and v; *nan marks the lanes where v holds a NaN */                     \
    static inline __attribute__((always_inline)) void larger_lanes_##SUFFIX(                              \
        lanes_##SUFFIX *m, const lanes_##SUFFIX *v, lane_masks_##SUFFIX *nan)                             \
    {                                                                                                     \
        const lane_masks_##SUFFIX take = *v > *m;                                                         \
        *nan |= *v != *v;                                                                                 \
        *m = (lanes_##SUFFIX)((take & (lane_masks_##SUFFIX)*v) | (~take & (lane_masks_##SUFFIX)*m));      \
    }                                                                                                     \
    /* the largest of m and n values */                                                                   \
    static inline __attribute__((always_inline)) T row_max_##SUFFIX(const T *row, int64_t n, T m)         \
    {                                                                                                     \
        lanes_##SUFFIX lane;                                                                              \
        lane_masks_##SUFFIX nan = {0};                                                                    \
        for (int k = 0; k < LANE_COUNT_##SUFFIX; k++)                                                     \
            lane[k] = m;                                                                                  \
        const int64_t whole = n - n % LANE_COUNT_##SUFFIX;                                                \
        for (int64_t j = 0; j < whole; j += LANE_COUNT_##SUFFIX) {                                        \
            lanes_##SUFFIX v;                                                                             \
            memcpy(&v, row + j, sizeof v);                                                                \
            larger_lanes_##SUFFIX(&lane, &v, &nan);                                                       \
        }                                                                                                 \
        for (int k = 0; k < LANE_COUNT_##SUFFIX; k++)                                                     \
            m = larger_##SUFFIX(m, nan[k] ? (T)__builtin_nan("") : lane[k]);                              \
        for (int64_t j = whole; j < n; j++)                                                               \
            m = larger_##SUFFIX(m, row[j]);                                                               \
        return m;                                                                                         \
    }

#endif
