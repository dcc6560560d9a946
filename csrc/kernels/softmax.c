/* Softmax backward (python/opemu/ops/mcdnn/softmax.py backward, its reference): images of `channels` dense rows
 * of `spatial` elements, each image in two passes — its sums, then dx — so the second pass finds the image
 * in cache. The second pass computes a chunk of dx into a stack buffer and stores it; with `streaming` set
 * (outputs far larger than a core's cache) by non-temporal stores, which skip reading dx's lines in
 * first and leave the image's y and dy in cache — a quarter less traffic on a memory-bound loop.
 *
 * sums:  CHANNEL: per position j, the channels' p = dy*y (accurate) or dy (log) added row after row, the
 *        first row taken as it is. INSTANCE: the image's p in 16 lanes (lane i mod 16, the first block
 *        taken as it is, a short last block padded with +0), then lane 0 + lane 1 + … + lane 15.
 * dx:    accurate (dy - total) * y;  log dy - exp(y) * total.
 * exp:   not libm's nor NumPy's (neither is reproducible from the other side) but one written out in
 *        plain operations that python/opemu/ops/mcdnn/softmax_exp.py repeats ufunc by ufunc: t = x clamped
 *        to [LO, HI] (NaN: LO), k = t*log2(e) rounded to an integer by adding and subtracting 1.5*2^mant,
 *        r = (t - k*ln2_hi) - k*ln2_lo, Horner's e^r (Taylor to degree 7 in float, 13 in double),
 *        times 2^(k>>1), times 2^(k - (k>>1)) (the first product is exact, so subnormal results round
 *        once), and NaN for NaN. */
#include <string.h>
#include "kernels.h"
#if defined(__SSE2__)
#include <emmintrin.h>
#endif

#define LANES 16
/* inlined into each clone (a helper compiled once would be the baseline's SSE2 code) with its constants */
#define INLINE static inline __attribute__((always_inline))
#define CHUNK 512 /* elements of dx computed before they are stored */
#define L2_BLOCK_BYTES (512 << 10) /* y and dy of a block of positions, all channels: a core's L2 holds them */

/* The loops are cloned for AVX-512 and AVX2 (chosen at load time: 16 or 8 floats a vector where the
 * x86-64 baseline has 4). Clones run the same operations; -ffp-contract=off keeps FMA out. */
#if defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__) && defined(__GLIBC__) /* ifunc */
#define VECTOR_CLONES __attribute__((target_clones("avx512f", "avx2", "default")))
/* Without it GCC keeps the exp's selects as branches under AVX2 (a compare may raise a flag it must not
 * speculate); it changes no value (no reassociation, no contraction), and no caller reads the flags. */
#pragma GCC optimize("no-trapping-math")
#else
#define VECTOR_CLONES
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
    /* e = exp(x) of n <= CHUNK elements: exp_normal's shorter loop when all of them allow it */          \
    INLINE void exps_##SUFFIX(const T *x, T *e, int64_t n)                                                \
    {                                                                                                     \
        int normal = 1;                                                                                   \
        for (int64_t i = 0; i < n; i++)                                                                   \
            normal &= (x[i] >= (T)(NORMAL_LO)) & (x[i] <= (T)(NORMAL_HI));                                \
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

/* Copies `bytes` (a whole number of elements) with non-temporal stores where SSE2 has them (the 16-byte
 * aligned part of `to`); fence() orders them before the kernel returns (another thread may read dx next). */
#if defined(__SSE2__)
static void stream(void *to, const void *from, size_t bytes)
{
    char *t = to;
    const char *f = from;
    size_t head = (16 - ((uintptr_t)t & 15)) & 15;
    if (head > bytes)
        head = bytes;
    memcpy(t, f, head);
    size_t i = head;
    for (; i + 16 <= bytes; i += 16)
        _mm_stream_si128((__m128i *)(t + i), _mm_loadu_si128((const __m128i *)(f + i)));
    memcpy(t + i, f + i, bytes - i);
}

static void fence(void)
{
    _mm_sfence();
}
#else
static void stream(void *to, const void *from, size_t bytes)
{
    memcpy(to, from, bytes);
}

static void fence(void)
{
}
#endif

#define DEFINE_SOFTMAX(T, SUFFIX)                                                                         \
    INLINE T instance_total_##SUFFIX(int log, const T *y, const T *dy, int64_t m)                         \
    {                                                                                                     \
        T lane[LANES];                                                                                    \
        for (int k = 0; k < LANES; k++)                                                                   \
            lane[k] = k < m ? (log ? dy[k] : dy[k] * y[k]) : (T)0;                                        \
        int64_t whole = m / LANES * LANES;                                                                \
        for (int64_t j = LANES; j < whole; j += LANES)                                                    \
            for (int k = 0; k < LANES; k++) {                                                             \
                T p = log ? dy[j + k] : dy[j + k] * y[j + k];                                             \
                lane[k] = lane[k] + p;                                                                    \
            }                                                                                             \
        if (whole >= LANES && whole < m)                                                                  \
            for (int k = 0; k < LANES; k++) {                                                             \
                T p = whole + k < m ? (log ? dy[whole + k] : dy[whole + k] * y[whole + k]) : (T)0;        \
                lane[k] = lane[k] + p;                                                                    \
            }                                                                                             \
        T total = lane[0];                                                                                \
        for (int k = 1; k < LANES; k++)                                                                   \
            total = total + lane[k];                                                                      \
        return total;                                                                                     \
    }                                                                                                     \
    /* the totals of n positions whose channels lie `stride` apart */                                   \
    INLINE void channel_totals_##SUFFIX(int log, const T *y, const T *dy, T *total, int64_t channels,     \
                                        int64_t n, int64_t stride)                                        \
    {                                                                                                     \
        for (int64_t j = 0; j < n; j++)                                                                   \
            total[j] = log ? dy[j] : dy[j] * y[j];                                                        \
        for (int64_t c = 1; c < channels; c++)                                                            \
            for (int64_t j = 0; j < n; j++) {                                                             \
                T p = log ? dy[c * stride + j] : dy[c * stride + j] * y[c * stride + j];                  \
                total[j] = total[j] + p;                                                                  \
            }                                                                                             \
    }                                                                                                     \
    /* dx of n elements from the row's totals (step 1) or the image's one (step 0), chunk by chunk */      \
    INLINE void dx_run_##SUFFIX(int log, int streaming, const T *y, const T *dy, T *dx, const T *total,   \
                                int64_t step, int64_t n)                                                  \
    {                                                                                                     \
        T chunk[CHUNK];                                                                                   \
        for (int64_t lo = 0; lo < n; lo += CHUNK) {                                                       \
            const int64_t count = n - lo < CHUNK ? n - lo : CHUNK;                                        \
            if (log) {                                                                                    \
                exps_##SUFFIX(y + lo, chunk, count);                                                      \
                for (int64_t j = 0; j < count; j++) {                                                     \
                    T g = chunk[j] * total[(lo + j) * step];                                              \
                    chunk[j] = dy[lo + j] - g;                                                            \
                }                                                                                         \
            } else                                                                                        \
                for (int64_t j = 0; j < count; j++) {                                                     \
                    T g = dy[lo + j] - total[(lo + j) * step];                                            \
                    chunk[j] = g * y[lo + j];                                                             \
                }                                                                                         \
            if (streaming)                                                                                \
                stream(dx + lo, chunk, (size_t)count * sizeof(T));                                        \
            else                                                                                          \
                memcpy(dx + lo, chunk, (size_t)count * sizeof(T));                                        \
        }                                                                                                 \
    }                                                                                                     \
    INLINE void images_##SUFFIX(int log, int channel, int streaming, const T *y, const T *dy, T *dx,      \
                                T *total, int64_t images, int64_t channels, int64_t n)                    \
    {                                                                                                     \
        const int64_t m = channels * n;                                                                   \
        for (int64_t i = 0; i < images; i++, y += m, dy += m, dx += m) {                                  \
            if (!channel) {                                                                               \
                total[0] = instance_total_##SUFFIX(log, y, dy, m);                                        \
                dx_run_##SUFFIX(log, streaming, y, dy, dx, total, 0, m);                                  \
                continue;                                                                                 \
            }                                                                                             \
            /* a block of positions at a time: its y and dy, read for the totals, are still in L2 for dx */ \
            int64_t block = L2_BLOCK_BYTES / (2 * (int64_t)sizeof(T) * channels);                        \
            block = block < CHUNK ? CHUNK : block - block % CHUNK;                                        \
            for (int64_t j = 0; j < n; j += block) {                                                      \
                const int64_t width = n - j < block ? n - j : block;                                      \
                channel_totals_##SUFFIX(log, y + j, dy + j, total + j, channels, width, n);               \
                for (int64_t c = 0; c < channels; c++)                                                    \
                    dx_run_##SUFFIX(log, streaming, y + c * n + j, dy + c * n + j, dx + c * n + j, total + j, 1, \
                                    width);                                                               \
            }                                                                                             \
        }                                                                                                 \
    }                                                                                                     \
    /* the helpers inlined with `log` a constant: a loop per algorithm, not both blended in one */        \
    VECTOR_CLONES static void backward_##SUFFIX(int log, int channel, int streaming, const T *y, const T *dy, \
                                                T *dx, T *total, int64_t images, int64_t channels,        \
                                                int64_t n)                                                \
    {                                                                                                     \
        if (log)                                                                                          \
            images_##SUFFIX(1, channel, streaming, y, dy, dx, total, images, channels, n);                \
        else                                                                                              \
            images_##SUFFIX(0, channel, streaming, y, dy, dx, total, images, channels, n);                \
        fence();                                                                                          \
    }                                                                                                     \
    VECTOR_CLONES static void exp_all_##SUFFIX(const T *x, T *e, int64_t n)                               \
    {                                                                                                     \
        for (int64_t lo = 0; lo < n; lo += CHUNK)                                                         \
            exps_##SUFFIX(x + lo, e + lo, n - lo < CHUNK ? n - lo : CHUNK);                               \
    }

DEFINE_SOFTMAX(float, F32)
DEFINE_SOFTMAX(double, F64)

int opemu_kernel_softmax_backward(int size, int log, int channel, int streaming, const void *y, const void *dy,
                                  void *dx, void *total, int64_t images, int64_t channels, int64_t spatial)
{
    if (channels < 1 || spatial < 1 || (int64_t)(INT64_MAX / channels) < spatial)
        return -1;
    if (size == 4)
        backward_F32(log, channel, streaming, (const float *)y, (const float *)dy, (float *)dx, (float *)total,
                     images, channels, spatial);
    else if (size == 8)
        backward_F64(log, channel, streaming, (const double *)y, (const double *)dy, (double *)dx, (double *)total,
                     images, channels, spatial);
    else
        return -1;
    return 0;
}

int opemu_kernel_softmax_exp(int size, const void *x, void *e, int64_t n)
{
    if (size == 4)
        exp_all_F32((const float *)x, (float *)e, n);
    else if (size == 8)
        exp_all_F64((const double *)x, (double *)e, n);
    else
        return -1;
    return 0;
}
