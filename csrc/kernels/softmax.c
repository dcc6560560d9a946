/* Softmax backward (python/opemu/ops/mcdnn/softmax.py backward, its reference): images of `channels` dense rows
 * of `spatial` elements, each image in two passes — its sums (in instance mode taken along the previous
 * image's dx pass), then dx — so the dx pass finds the image in cache. The dx pass computes a chunk of dx
 * into a stack buffer and stores it; with `streaming` set (outputs far larger than a core's cache) by
 * non-temporal stores, which skip reading dx's lines in first and leave the image's y and dy in cache — a
 * quarter less traffic on a memory-bound loop.
 *
 * sums:  CHANNEL: per position j, the channels' p = dy*y (accurate) or dy (log) added row after row, the
 *        first row taken as it is. INSTANCE: the image's p in 16 lanes (lane i mod 16, the first block
 *        taken as it is, a short last block padded with +0), then lane 0 + lane 1 + … + lane 15.
 * dx:    accurate (dy - total) * y;  log dy - exp(y) * total.
 * exp:   exp.h's, the one python/opemu/core/exp.py repeats. */
#include <math.h>
#include <string.h>
#include "exp.h"
#include "kernels.h"
#include "maxima.h"
#include "nontemporal.h"

DEFINE_MAXIMA(float, int32_t, F32)
DEFINE_MAXIMA(double, int64_t, F64)

#define LANES 16
#define CHUNK 512 /* elements of dx computed before they are stored */
#define L2_BLOCK_BYTES (512 << 10) /* y and dy of a block of positions, all channels: a core's L2 holds them */

/* Positions per block in channel mode: two arrays of all the block's channels fit L2_BLOCK_BYTES, whole
 * chunks of CHUNK positions */
static int64_t position_block(int64_t size, int64_t channels)
{
    int64_t block = L2_BLOCK_BYTES / (2 * size * channels);
    return block < CHUNK ? CHUNK : block - block % CHUNK;
}

#define DEFINE_SOFTMAX(T, SUFFIX)                                                                         \
    /* An image's total in LANES lanes (lane k: elements k, k + LANES, ...), built a range [lo, hi) at a time \
     * (lo a multiple of LANES): the first block taken as it is, later ones added, a short last block padded \
     * with +0; then lane 0 + lane 1 + ... + lane 15. */                                                  \
    INLINE void instance_lanes_##SUFFIX(int log, T lane[LANES], const T *y, const T *dy, int64_t lo, int64_t hi, \
                                        int64_t m)                                                        \
    {                                                                                                     \
        T acc[LANES]; /* in registers: the caller's array would be read and written every block */        \
        int64_t j = lo, whole = hi < m ? hi : m / LANES * LANES;                                          \
        if (j == 0) {                                                                                     \
            for (int k = 0; k < LANES; k++)                                                               \
                acc[k] = k < m ? (log ? dy[k] : dy[k] * y[k]) : (T)0;                                     \
            j = LANES;                                                                                    \
        } else                                                                                            \
            memcpy(acc, lane, sizeof acc);                                                                \
        for (; j < whole; j += LANES)                                                                     \
            for (int k = 0; k < LANES; k++) {                                                             \
                T p = log ? dy[j + k] : dy[j + k] * y[j + k];                                             \
                acc[k] = acc[k] + p;                                                                      \
            }                                                                                             \
        if (j < hi)                                                                                       \
            for (int k = 0; k < LANES; k++) {                                                             \
                T p = j + k < m ? (log ? dy[j + k] : dy[j + k] * y[j + k]) : (T)0;                        \
                acc[k] = acc[k] + p;                                                                      \
            }                                                                                             \
        memcpy(lane, acc, sizeof acc);                                                                    \
    }                                                                                                     \
    INLINE T lanes_total_##SUFFIX(const T lane[LANES])                                                    \
    {                                                                                                     \
        T total = lane[0];                                                                                \
        for (int k = 1; k < LANES; k++)                                                                   \
            total = total + lane[k];                                                                      \
        return total;                                                                                     \
    }                                                                                                     \
    INLINE T instance_total_##SUFFIX(int log, const T *y, const T *dy, int64_t m)                         \
    {                                                                                                     \
        T lane[LANES] = {0};                                                                              \
        instance_lanes_##SUFFIX(log, lane, y, dy, 0, m, m);                                               \
        return lanes_total_##SUFFIX(lane);                                                                \
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
    /* dx of n elements from the row's totals (step 1) or the image's one (step 0), chunk by chunk; with  \
     * `next` (instance mode), the next image's lanes over the same range meanwhile, so that its reads ride \
     * along this pass (accurate, 32x64x56x56 on two cores: 1.9-2.6 -> 1.6-2.1 ms) */                      \
    INLINE void dx_run_##SUFFIX(int log, int streaming, const T *y, const T *dy, T *dx, const T *total,   \
                                int64_t step, int64_t n, T *next)                                         \
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
                opemu_nontemporal_copy(dx + lo, chunk, (size_t)count * sizeof(T));                        \
            else                                                                                          \
                memcpy(dx + lo, chunk, (size_t)count * sizeof(T));                                        \
            if (next)                                                                                     \
                instance_lanes_##SUFFIX(log, next, y + n, dy + n, lo, lo + count, n);                     \
        }                                                                                                 \
    }                                                                                                     \
    INLINE void images_##SUFFIX(int log, int channel, int streaming, const T *y, const T *dy, T *dx,      \
                                T *total, int64_t images, int64_t channels, int64_t n)                    \
    {                                                                                                     \
        const int64_t m = channels * n;                                                                   \
        T lane[LANES] = {0};                                                                              \
        if (!channel && images)                                                                           \
            instance_lanes_##SUFFIX(log, lane, y, dy, 0, m, m);                                           \
        for (int64_t i = 0; i < images; i++, y += m, dy += m, dx += m) {                                  \
            if (!channel) {                                                                               \
                total[0] = lanes_total_##SUFFIX(lane);                                                    \
                dx_run_##SUFFIX(log, streaming, y, dy, dx, total, 0, m, i + 1 < images ? lane : NULL);    \
                continue;                                                                                 \
            }                                                                                             \
            /* a block of positions at a time: its y and dy, read for the totals, are still in L2 for dx */ \
            const int64_t block = position_block(sizeof(T), channels);                                    \
            for (int64_t j = 0; j < n; j += block) {                                                      \
                const int64_t width = n - j < block ? n - j : block;                                      \
                channel_totals_##SUFFIX(log, y + j, dy + j, total + j, channels, width, n);               \
                for (int64_t c = 0; c < channels; c++)                                                    \
                    dx_run_##SUFFIX(log, streaming, y + c * n + j, dy + c * n + j, dx + c * n + j, total + j, 1, \
                                    width, NULL);                                                         \
            }                                                                                             \
        }                                                                                                 \
    }                                                                                                     \
    /* the helpers inlined with `log` a constant: a loop per algorithm, not both blended in one */        \
    INLINE void backward_##SUFFIX(int log, int channel, int streaming, const T *y, const T *dy, T *dx,    \
                                  T *total, int64_t images, int64_t channels, int64_t n)                  \
    {                                                                                                     \
        if (log)                                                                                          \
            images_##SUFFIX(1, channel, streaming, y, dy, dx, total, images, channels, n);                \
        else                                                                                              \
            images_##SUFFIX(0, channel, streaming, y, dy, dx, total, images, channels, n);                \
        opemu_nontemporal_fence();                                                                        \
    }

DEFINE_SOFTMAX(float, F32)
DEFINE_SOFTMAX(double, F64)

/* Softmax forward (softmax.py forward, its reference), algorithms as mcdnnSoftmaxAlgorithm_t numbers them. Per
 * image (INSTANCE) or position (CHANNEL): the maximum m, + 0 (none for FAST), e = exp(x - m) into y, the totals
 * of e summed as the backward sums p; then y = e / total, or for LOG, after the caller has taken the totals'
 * logarithms (NumPy's log: its bits cannot be repeated here), y = (x - m) - log(total) in a second call. */
enum { SOFTMAX_FAST = 0, SOFTMAX_ACCURATE = 1, SOFTMAX_LOG = 2 };

#define DEFINE_SOFTMAX_FORWARD(T, SUFFIX)                                                                 \
    /* e = exp(x - m) (FAST: exp(x)) of n elements, m one value (step 0) or one per element (step 1) */   \
    INLINE void shifted_exps_##SUFFIX(int fast, const T *x, const T *m, int64_t step, T *e, int64_t n)    \
    {                                                                                                     \
        T chunk[CHUNK];                                                                                   \
        for (int64_t lo = 0; lo < n; lo += CHUNK) {                                                       \
            const int64_t count = n - lo < CHUNK ? n - lo : CHUNK;                                        \
            for (int64_t j = 0; j < count; j++)                                                           \
                chunk[j] = fast ? x[lo + j] : x[lo + j] - m[(lo + j) * step];                             \
            exps_##SUFFIX(chunk, e + lo, count);                                                          \
        }                                                                                                 \
    }                                                                                                     \
    /* the maxima (+ 0) of n positions whose channels lie `stride` apart: a plain max that GCC vectorises \
     * (a NaN it meets is passed over), with x - x summed alongside in `probe`, NaN where a channel holds  \
     * a NaN or an infinity; those positions are walked again, NaN-propagating */                        \
    INLINE void channel_maxima_##SUFFIX(const T *x, T *maximum, T *probe, int64_t channels, int64_t n,    \
                                        int64_t stride)                                                   \
    {                                                                                                     \
        for (int64_t j = 0; j < n; j++) {                                                                 \
            maximum[j] = x[j];                                                                            \
            probe[j] = x[j] - x[j];                                                                       \
        }                                                                                                 \
        for (int64_t c = 1; c < channels; c++)                                                            \
            for (int64_t j = 0; j < n; j++) {                                                             \
                const T v = x[c * stride + j], m = maximum[j];                                            \
                maximum[j] = v > m ? v : m;                                                               \
                probe[j] = probe[j] + (v - v);                                                            \
            }                                                                                             \
        for (int64_t j = 0; j < n; j++) {                                                                 \
            if (probe[j] != probe[j])                                                                     \
                for (int64_t c = 1; c < channels; c++)                                                    \
                    maximum[j] = larger_##SUFFIX(maximum[j], x[c * stride + j]);                          \
            maximum[j] = maximum[j] + (T)0;                                                               \
        }                                                                                                 \
    }                                                                                                     \
    /* one image: its maxima and totals (one, or one per position), y = e or e / total */                 \
    INLINE void forward_image_##SUFFIX(int algo, int channel, const T *x, T *y, T *maximum, T *total,    \
                                       int64_t channels, int64_t n)                                       \
    {                                                                                                     \
        const int fast = algo == SOFTMAX_FAST;                                                            \
        if (!channel) {                                                                                   \
            const int64_t m = channels * n;                                                               \
            maximum[0] = fast ? (T)0 : row_max_##SUFFIX(x, m, (T)-INFINITY) + (T)0;                       \
            shifted_exps_##SUFFIX(fast, x, maximum, 0, y, m);                                             \
            total[0] = instance_total_##SUFFIX(1, y, y, m);                                               \
            if (algo != SOFTMAX_LOG)                                                                      \
                for (int64_t i = 0; i < m; i++)                                                           \
                    y[i] = y[i] / total[0];                                                               \
            return;                                                                                       \
        }                                                                                                 \
        /* a block of positions at a time, x and y of all its channels in L2 (in place: each block's     \
         * maxima come before its exps overwrite x) */                                                    \
        const int64_t block = position_block(sizeof(T), channels);                                        \
        for (int64_t j0 = 0; j0 < n; j0 += block) {                                                       \
            const int64_t width = n - j0 < block ? n - j0 : block;                                        \
            if (!fast)                                                                                    \
                channel_maxima_##SUFFIX(x + j0, maximum + j0, total + j0, channels, width, n);            \
            for (int64_t c = 0; c < channels; c++)                                                        \
                shifted_exps_##SUFFIX(fast, x + c * n + j0, maximum + j0, 1, y + c * n + j0, width);      \
            channel_totals_##SUFFIX(1, y + j0, y + j0, total + j0, channels, width, n);                   \
            if (algo != SOFTMAX_LOG)                                                                      \
                for (int64_t c = 0; c < channels; c++)                                                    \
                    for (int64_t j = j0; j < j0 + width; j++)                                             \
                        y[c * n + j] = y[c * n + j] / total[j];                                           \
        }                                                                                                 \
    }                                                                                                     \
    /* LOG's second call: y = (x - m) - log_total */                                                      \
    INLINE void log_image_##SUFFIX(int channel, const T *x, T *y, const T *maximum, const T *log_total,   \
                                   int64_t channels, int64_t n)                                           \
    {                                                                                                     \
        for (int64_t c = 0; c < channels; c++)                                                            \
            for (int64_t j = 0; j < n; j++) {                                                             \
                const int64_t at = channel ? j : 0;                                                       \
                const T shifted = x[c * n + j] - maximum[at];                                             \
                y[c * n + j] = shifted - log_total[at];                                                   \
            }                                                                                             \
    }                                                                                                     \
    INLINE void forward_images_##SUFFIX(int algo, int channel, int phase, const T *x, T *y, T *maximum,  \
                                        T *total, int64_t images, int64_t channels, int64_t n)            \
    {                                                                                                     \
        const int64_t m = channels * n, per = channel ? n : 1;                                            \
        for (int64_t i = 0; i < images; i++, x += m, y += m, maximum += per, total += per)                \
            if (phase == 0)                                                                               \
                forward_image_##SUFFIX(algo, channel, x, y, maximum, total, channels, n);                 \
            else                                                                                          \
                log_image_##SUFFIX(channel, x, y, maximum, total, channels, n);                           \
    }                                                                                                     \
    /* the helpers inlined with the algorithm and the mode constants */                                   \
    INLINE void forward_##SUFFIX(int algo, int channel, int phase, const T *x, T *y, T *maximum, T *total, \
                                 int64_t images, int64_t channels, int64_t n)                             \
    {                                                                                                     \
        for (int a = SOFTMAX_FAST; a <= SOFTMAX_LOG; a++)                                                 \
            for (int ch = 0; ch <= 1; ch++)                                                               \
                if (a == algo && ch == channel)                                                           \
                    forward_images_##SUFFIX(a, ch, phase, x, y, maximum, total, images, channels, n);     \
    }

DEFINE_SOFTMAX_FORWARD(float, F32)
DEFINE_SOFTMAX_FORWARD(double, F64)

/* Each level's path: both directions inlined with its instructions */
#define DEFINE_SOFTMAX_PATHS(T, SUFFIX, ISA, TARGET)                                                      \
    TARGET static void backward_##SUFFIX##_##ISA(int log, int channel, int streaming, const T *y, const T *dy, \
                                                 T *dx, T *total, int64_t images, int64_t channels, int64_t n) \
    {                                                                                                     \
        backward_##SUFFIX(log, channel, streaming, y, dy, dx, total, images, channels, n);                \
    }                                                                                                     \
    TARGET static void forward_##SUFFIX##_##ISA(int algo, int channel, int phase, const T *x, T *y, T *maximum, \
                                                T *total, int64_t images, int64_t channels, int64_t n)    \
    {                                                                                                     \
        forward_##SUFFIX(algo, channel, phase, x, y, maximum, total, images, channels, n);                \
    }

OPEMU_FOR_EACH_ISA(DEFINE_SOFTMAX_PATHS, float, F32)
OPEMU_FOR_EACH_ISA(DEFINE_SOFTMAX_PATHS, double, F64)

int opemu_kernel_softmax_forward(int size, int algo, int channel, int phase, const void *x, void *y, void *maximum,
                                 void *total, int64_t images, int64_t channels, int64_t spatial)
{
    if (channels < 1 || spatial < 1 || (int64_t)(INT64_MAX / channels) < spatial || algo < SOFTMAX_FAST ||
        algo > SOFTMAX_LOG || phase < 0 || phase > 1 || (phase == 1 && algo != SOFTMAX_LOG))
        return -1;
    if (size == 4)
        OPEMU_BY_ISA(forward_F32_)(algo, channel != 0, phase, (const float *)x, (float *)y, (float *)maximum,
                                   (float *)total, images, channels, spatial);
    else if (size == 8)
        OPEMU_BY_ISA(forward_F64_)(algo, channel != 0, phase, (const double *)x, (double *)y, (double *)maximum,
                                   (double *)total, images, channels, spatial);
    else
        return -1;
    return 0;
}

struct softmax_backward_job {
    int size, log, channel, streaming;
    const char *y, *dy;
    char *dx, *total;
    int64_t channels, spatial, per;
};

static void softmax_backward_piece(const void *job, int index, int64_t lo, int64_t hi)
{
    const struct softmax_backward_job *j = job;
    int64_t off = lo * j->channels * j->spatial * j->size;
    char *total = j->total + index * j->per * j->size;
    if (j->size == 4)
        OPEMU_BY_ISA(backward_F32_)(j->log, j->channel, j->streaming, (const float *)(j->y + off),
                                    (const float *)(j->dy + off), (float *)(j->dx + off), (float *)total, hi - lo,
                                    j->channels, j->spatial);
    else
        OPEMU_BY_ISA(backward_F64_)(j->log, j->channel, j->streaming, (const double *)(j->y + off),
                                    (const double *)(j->dy + off), (double *)(j->dx + off), (double *)total, hi - lo,
                                    j->channels, j->spatial);
}

int opemu_kernel_softmax_backward(int pieces, int size, int log, int channel, int streaming, const void *y,
                                  const void *dy, void *dx, void *total, int64_t images, int64_t channels,
                                  int64_t spatial)
{
    if (channels < 1 || spatial < 1 || (int64_t)(INT64_MAX / channels) < spatial || (size != 4 && size != 8))
        return -1;
    struct softmax_backward_job job = {size, log, channel, streaming, y, dy, dx, total, channels, spatial,
                                       channel ? spatial : 1};
    opemu_pool_split(pieces, images, softmax_backward_piece, &job);
    return 0;
}
