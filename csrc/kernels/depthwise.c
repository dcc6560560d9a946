/* Depthwise convolutions (python/opemu/ops/mcdnn/conv_depthwise.py): one channel per group, so each output
 * is a short sum of taps, which BLAS would run as thousands of 1-row GEMMs.
 *
 * On the padded grid (the forward with a non-finite filter: its padding terms are inf * 0, NaN):
 * taps:   out[r][j] = +0 + w[r][0]*in[r][j + offsets[0]] + w[r][1]*in[r][j + offsets[1]] + …, left to
 *         right, each product rounded, then each sum (the reference's multiply and add passes).
 * It walks a row in blocks of positions with every tap inside a block, so a block's outputs stay in L1
 * across the taps instead of a row's passing through L2 per tap. */
#include <stddef.h>
#include <string.h>

#include "isa.h"

#define LANES 16
#define BLOCK 1024      /* positions of a row whose taps are summed together: their outputs stay in L1 */
#define TAP_GROUP 32    /* taps whose source rows a block of outputs reads in one pass */
#define IN_FLIGHT 4     /* blocks of outputs summed side by side (python/opemu/ops/mcdnn/conv_depthwise.py) */

#define DEFINE_DEPTHWISE(T, SUFFIX, ISA, TARGET)                                                          \
    TARGET static void taps_##SUFFIX##_##ISA(int64_t rows, int64_t taps, const int64_t *offsets, const T *w, \
                                             int64_t w_row, const T *in, int64_t in_row, T *out,          \
                                             int64_t out_row, int64_t m)                                  \
    {                                                                                                     \
        for (int64_t r = 0; r < rows; r++) {                                                              \
            const T *wr = w + r * w_row, *ir = in + r * in_row;                                           \
            T *o = out + r * out_row;                                                                     \
            for (int64_t lo = 0; lo < m; lo += BLOCK) {                                                   \
                const int64_t hi = m - lo < BLOCK ? m : lo + BLOCK;                                       \
                for (int64_t j = lo; j < hi; j++)                                                         \
                    o[j] = (T)0;                                                                          \
                for (int64_t t = 0; t < taps; t++) {                                                      \
                    const T wt = wr[t], *src = ir + offsets[t];                                           \
                    for (int64_t j = lo; j < hi; j++) {                                                   \
                        T p = wt * src[j];                                                                \
                        o[j] = o[j] + p;                                                                  \
                    }                                                                                     \
                }                                                                                         \
            }                                                                                             \
        }                                                                                                 \
    }

OPEMU_FOR_EACH_ISA(DEFINE_DEPTHWISE, float, f32)
OPEMU_FOR_EACH_ISA(DEFINE_DEPTHWISE, double, f64)

int opemu_kernel_depthwise_taps(int size, int64_t rows, int64_t taps, const int64_t *offsets, const void *w,
                                int64_t w_row, const void *in, int64_t in_row, void *out, int64_t out_row, int64_t m)
{
    if (size == 4)
        OPEMU_BY_ISA(taps_f32_)(rows, taps, offsets, (const float *)w, w_row, (const float *)in, in_row, (float *)out,
                                out_row, m);
    else if (size == 8)
        OPEMU_BY_ISA(taps_f64_)(rows, taps, offsets, (const double *)w, w_row, (const double *)in, in_row,
                                (double *)out, out_row, m);
    else
        return -1;
    return 0;
}

/* ---- straight from the images ----
 * The images lie as the app holds them, each plane (image, channel) its rows one after another: `rows`
 * output rows of `width` positions (the last spatial dimension; the others make the rows). Tap t of
 * output row r reads source row source[r * taps + t] (-1: a row of padding) from position j + shift[t].
 * Each source plane is first copied into `buf` with `left` zeros before each row, zeros after it up to
 * `pitch`, and a last row of zeros (the one padding rows read), so the taps read every position of a
 * block without a test. The sums stay in registers: four blocks of 16 outputs across the taps (each
 * block's sum is a chain of dependent adds, so four run side by side), or a tap's 16 lanes along a row.
 * While a plane is summed the next one is prefetched, a share per row: a plane is 12 KiB at 56x56, too
 * short a stream for the hardware's prefetcher to get ahead of (1.3x faster on one core).
 *
 * rows:   out[j] = +0 + w[0]*src[..] + w[1]*src[..] + …, in t order, each product rounded, then each
 *         sum; padding reads +0 (w * 0 adds nothing to a sum that starts at +0, for the finite w the
 *         caller passes): the grid's sums, to the bit.
 * filter: lanes[t][k] += dy[j] * x[..] for the positions j = 16b + k of each row (padding reads +0, and
 *         a row's last block is padded with +0 products), rows in order; the caller carries the lanes from
 *         chunk to chunk and sums them from +0 in lane order. */
#define DEFINE_DIRECT(T, I, SUFFIX)                                                                       \
    typedef T vec_##SUFFIX __attribute__((vector_size(LANES * sizeof(T))));                              \
    typedef I mask_##SUFFIX __attribute__((vector_size(LANES * sizeof(T))));                             \
    /* buf's zeros first (they stay: each plane then writes only its rows' positions) */                 \
    static void clear_##SUFFIX(int64_t rows, int64_t pitch, T *buf)                                       \
    {                                                                                                     \
        memset(buf, 0, (rows + 1) * pitch * sizeof(T));                                                   \
    }                                                                                                     \
    static void pad_plane_##SUFFIX(const T *plane, int64_t rows, int64_t width, int64_t left, int64_t pitch, \
                                   T *buf)                                                                \
    {                                                                                                     \
        for (int64_t r = 0; r < rows; r++)                                                                \
            memcpy(buf + r * pitch + left, plane + r * width, width * sizeof(T));                         \
    }                                                                                                     \
    /* The plane after (image n, channel c), images first, or NULL after the last */                     \
    static inline const T *next_plane_##SUFFIX(const T *base, int64_t n, int64_t images, int64_t image,   \
                                               int64_t c, int64_t channels, int64_t channel)              \
    {                                                                                                     \
        return n + 1 < images ? base + (n + 1) * image + c * channel                                      \
               : c + 1 < channels ? base + (c + 1) * channel : NULL;                                      \
    }                                                                                                     \
    /* Share r of `rows` of a plane's lines (`elements` long) into the cache: the next plane, read while \
     * this one is summed, so its rows come from the cache rather than DRAM. */                           \
    static inline void prefetch_share_##SUFFIX(const T *plane, int64_t elements, int64_t r, int64_t rows) \
    {                                                                                                     \
        const int64_t lines = (elements * (int64_t)sizeof(T) + 63) / 64;                                  \
        for (int64_t l = r * lines / rows; l < (r + 1) * lines / rows; l++)                               \
            __builtin_prefetch((const char *)plane + l * 64, 0, 3);                                       \
    }

/* Each level's path through the planes */
#define DEFINE_DIRECT_PATHS(T, I, SUFFIX, ISA, TARGET)                                                    \
    TARGET static void rows_##SUFFIX##_##ISA(int64_t images, int64_t channels, int64_t taps, const int64_t *source, \
                                             const int64_t *shift, int64_t rows, int64_t width, const T *w, \
                                             int64_t w_row, const T *src, int64_t src_image,              \
                                             int64_t src_channel, int64_t src_rows, int64_t src_width, T *out, \
                                             int64_t out_image, int64_t out_channel, T *buf, int64_t left, \
                                             int64_t pitch)                                               \
    {                                                                                                     \
        const T *at[TAP_GROUP];                                                                           \
        clear_##SUFFIX(src_rows, pitch, buf);                                                             \
        for (int64_t c = 0; c < channels; c++)                                                            \
            for (int64_t n = 0; n < images; n++) {                                                        \
                const T *wr = w + c * w_row;                                                              \
                T *o = out + n * out_image + c * out_channel;                                             \
                pad_plane_##SUFFIX(src + n * src_image + c * src_channel, src_rows, src_width, left, pitch, buf); \
                const T *next = next_plane_##SUFFIX(src, n, images, src_image, c, channels, src_channel); \
                for (int64_t r = 0; r < rows; r++, o += width) {                                          \
                    if (next)                                                                             \
                        prefetch_share_##SUFFIX(next, src_rows * src_width, r, rows);                     \
                    for (int64_t t0 = 0; t0 < taps; t0 += TAP_GROUP) { /* a later group adds to o */      \
                        const int64_t group = taps - t0 < TAP_GROUP ? taps - t0 : TAP_GROUP;              \
                        for (int64_t t = 0; t < group; t++) {                                             \
                            const int64_t row = source[r * taps + t0 + t];                                \
                            at[t] = buf + (row < 0 ? src_rows : row) * pitch + left + shift[t0 + t];      \
                        }                                                                                 \
                        /* IN_FLIGHT blocks at once: each block's sum is a chain of dependent adds */     \
                        for (int64_t b = 0; b < width; b += IN_FLIGHT * LANES) {                          \
                            vec_##SUFFIX acc[IN_FLIGHT] = {{0}}, in;                                      \
                            for (int u = 0; u < IN_FLIGHT; u++)                                           \
                                for (int64_t k = 0; t0 > 0 && k < LANES && b + u * LANES + k < width; k++) \
                                    acc[u][k] = o[b + u * LANES + k];                                     \
                            for (int64_t t = 0; t < group; t++)                                           \
                                for (int u = 0; u < IN_FLIGHT; u++) {                                     \
                                    memcpy(&in, at[t] + b + u * LANES, sizeof in);                        \
                                    vec_##SUFFIX p = wr[t0 + t] * in;                                     \
                                    acc[u] = acc[u] + p;                                                  \
                                }                                                                         \
                            for (int u = 0; u < IN_FLIGHT; u++) {                                         \
                                const int64_t at_u = b + u * LANES;                                       \
                                if (at_u + LANES <= width)                                                \
                                    memcpy(o + at_u, &acc[u], sizeof acc[u]);                             \
                                else                                                                      \
                                    for (int64_t k = 0; at_u + k < width; k++)                            \
                                        o[at_u + k] = acc[u][k];                                          \
                            }                                                                             \
                        }                                                                                 \
                    }                                                                                     \
                }                                                                                         \
            }                                                                                             \
    }                                                                                                     \
    TARGET static void filter_rows_##SUFFIX##_##ISA(int64_t images, int64_t channels, int64_t taps,       \
                                                    const int64_t *source, const int64_t *shift, int64_t rows, \
                                                    int64_t width, const T *dy, int64_t dy_image,         \
                                                    int64_t dy_channel, const T *x, int64_t x_image,      \
                                                    int64_t x_channel, int64_t x_rows, int64_t x_width,   \
                                                    T *lanes, T *buf, int64_t left, int64_t pitch)        \
    {                                                                                                     \
        const int64_t whole = width / LANES * LANES, tail = width - whole;                               \
        mask_##SUFFIX keep;                                 /* the tail block's lanes that hold positions */ \
        for (int k = 0; k < LANES; k++)                                                                   \
            keep[k] = k < tail ? (I)-1 : 0;                                                               \
        clear_##SUFFIX(x_rows, pitch, buf);                                                               \
        for (int64_t c = 0; c < channels; c++)                                                            \
            for (int64_t n = 0; n < images; n++) {                                                        \
                const T *g = dy + n * dy_image + c * dy_channel;                                          \
                const T *next_x = next_plane_##SUFFIX(x, n, images, x_image, c, channels, x_channel);    \
                const T *next_dy = next_plane_##SUFFIX(dy, n, images, dy_image, c, channels, dy_channel); \
                pad_plane_##SUFFIX(x + n * x_image + c * x_channel, x_rows, x_width, left, pitch, buf);  \
                for (int64_t r = 0; r < rows; r++, g += width) {                                          \
                    vec_##SUFFIX last = {0}, d, in, lane;                                                 \
                    if (next_x) {                                                                         \
                        prefetch_share_##SUFFIX(next_x, x_rows * x_width, r, rows);                       \
                        prefetch_share_##SUFFIX(next_dy, rows * width, r, rows);                          \
                    }                                                                                     \
                    for (int64_t k = 0; k < tail; k++)                                                    \
                        last[k] = g[whole + k];                                                           \
                    for (int64_t t = 0; t < taps; t++) { /* each tap's lanes in registers along the row */ \
                        const int64_t row = source[r * taps + t];                                         \
                        const T *at = buf + (row < 0 ? x_rows : row) * pitch + left + shift[t];          \
                        T *sums = lanes + (c * taps + t) * LANES;                                         \
                        memcpy(&lane, sums, sizeof lane);                                                 \
                        for (int64_t b = 0; b < whole; b += LANES) {                                      \
                            memcpy(&d, g + b, sizeof d);                                                  \
                            memcpy(&in, at + b, sizeof in);                                               \
                            vec_##SUFFIX p = d * in;                                                      \
                            lane = lane + p;                                                              \
                        }                                                                                 \
                        if (tail) {                                                                       \
                            memcpy(&in, at + whole, sizeof in);                                           \
                            vec_##SUFFIX p = last * in;                                                   \
                            lane = lane + (vec_##SUFFIX)((mask_##SUFFIX)p & keep);                        \
                        }                                                                                 \
                        memcpy(sums, &lane, sizeof lane);                                                 \
                    }                                                                                     \
                }                                                                                         \
            }                                                                                             \
    }

DEFINE_DIRECT(float, int32_t, f32)
DEFINE_DIRECT(double, int64_t, f64)
OPEMU_FOR_EACH_ISA(DEFINE_DIRECT_PATHS, float, int32_t, f32)
OPEMU_FOR_EACH_ISA(DEFINE_DIRECT_PATHS, double, int64_t, f64)

int opemu_kernel_depthwise_rows(int size, int64_t images, int64_t channels, int64_t taps, const int64_t *source,
                                const int64_t *shift, int64_t rows, int64_t width, const void *w, int64_t w_row,
                                const void *src, int64_t src_image, int64_t src_channel, int64_t src_rows,
                                int64_t src_width, void *out, int64_t out_image, int64_t out_channel, void *buf,
                                int64_t left, int64_t pitch)
{
    if (size == 4)
        OPEMU_BY_ISA(rows_f32_)(images, channels, taps, source, shift, rows, width, w, w_row, src, src_image,
                                src_channel, src_rows, src_width, out, out_image, out_channel, buf, left, pitch);
    else if (size == 8)
        OPEMU_BY_ISA(rows_f64_)(images, channels, taps, source, shift, rows, width, w, w_row, src, src_image,
                                src_channel, src_rows, src_width, out, out_image, out_channel, buf, left, pitch);
    else
        return -1;
    return 0;
}

int opemu_kernel_depthwise_filter_rows(int size, int64_t images, int64_t channels, int64_t taps,
                                       const int64_t *source, const int64_t *shift, int64_t rows, int64_t width,
                                       const void *dy, int64_t dy_image, int64_t dy_channel, const void *x,
                                       int64_t x_image, int64_t x_channel, int64_t x_rows, int64_t x_width,
                                       void *lanes, void *buf, int64_t left, int64_t pitch)
{
    if (size == 4)
        OPEMU_BY_ISA(filter_rows_f32_)(images, channels, taps, source, shift, rows, width, dy, dy_image, dy_channel,
                                       x, x_image, x_channel, x_rows, x_width, lanes, buf, left, pitch);
    else if (size == 8)
        OPEMU_BY_ISA(filter_rows_f64_)(images, channels, taps, source, shift, rows, width, dy, dy_image, dy_channel,
                                       x, x_image, x_channel, x_rows, x_width, lanes, buf, left, pitch);
    else
        return -1;
    return 0;
}
