/* Depthwise convolutions (python/opemu/ops/mcdnn/conv_depthwise.py): one channel per group, so each output
 * is a short sum of taps, which BLAS would run as thousands of 1-row GEMMs.
 *
 * On the padded grid (the forward with a non-finite filter: its padding terms are inf * 0, NaN):
 * taps:   out[r][j] = +0 + w[r][0]*in[r][j + offsets[0]] + w[r][1]*in[r][j + offsets[1]] + …, left to
 *         right, each product rounded, then each sum (the reference's multiply and add passes).
 * It walks a row in blocks of positions with every tap inside a block, so a block's outputs stay in L1
 * across the taps instead of a row's passing through L2 per tap. */
#include <string.h>

#include "kernels.h"

#define LANES 16
#define BLOCK 1024      /* positions of a row whose taps are summed together: their outputs stay in L1 */

#define DEFINE_DEPTHWISE(T, SUFFIX)                                                                       \
    __attribute__((target_clones("avx512f", "avx2", "default")))                                         \
    static void taps_##SUFFIX(int64_t rows, int64_t taps, const int64_t *offsets, const T *w, int64_t w_row, \
                              const T *in, int64_t in_row, T *out, int64_t out_row, int64_t m)             \
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

DEFINE_DEPTHWISE(float, f32)
DEFINE_DEPTHWISE(double, f64)

int opemu_kernel_depthwise_taps(int size, int64_t rows, int64_t taps, const int64_t *offsets, const void *w,
                                int64_t w_row, const void *in, int64_t in_row, void *out, int64_t out_row, int64_t m)
{
    if (size == 4)
        taps_f32(rows, taps, offsets, (const float *)w, w_row, (const float *)in, in_row, (float *)out, out_row, m);
    else if (size == 8)
        taps_f64(rows, taps, offsets, (const double *)w, w_row, (const double *)in, in_row, (double *)out, out_row,
                 m);
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
 * block without a test: a block of 16 outputs, or each tap's 16 lanes, stays in registers across them.
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
    __attribute__((target_clones("avx512f", "avx2", "default")))                                         \
    static void rows_##SUFFIX(int64_t images, int64_t channels, int64_t taps, const int64_t *source,      \
                              const int64_t *shift, int64_t rows, int64_t width, const T *w, int64_t w_row,   \
                              const T *src, int64_t src_image, int64_t src_channel, int64_t src_rows,      \
                              int64_t src_width, T *out, int64_t out_image, int64_t out_channel, T *buf,   \
                              int64_t left, int64_t pitch)                                                \
    {                                                                                                     \
        clear_##SUFFIX(src_rows, pitch, buf);                                                             \
        for (int64_t c = 0; c < channels; c++)                                                            \
            for (int64_t n = 0; n < images; n++) {                                                        \
                const T *wr = w + c * w_row;                                                              \
                T *o = out + n * out_image + c * out_channel;                                             \
                pad_plane_##SUFFIX(src + n * src_image + c * src_channel, src_rows, src_width, left, pitch, buf); \
                for (int64_t r = 0; r < rows; r++, o += width)                                            \
                    for (int64_t b = 0; b < width; b += LANES) {                                          \
                        vec_##SUFFIX acc = {0}, in;                                                       \
                        for (int64_t t = 0; t < taps; t++) {                                              \
                            const int64_t row = source[r * taps + t];                                     \
                            memcpy(&in, buf + (row < 0 ? src_rows : row) * pitch + left + shift[t] + b, sizeof in); \
                            vec_##SUFFIX p = wr[t] * in;                                                  \
                            acc = acc + p;                                                                \
                        }                                                                                 \
                        if (width - b >= LANES)                                                           \
                            memcpy(o + b, &acc, sizeof acc);                                              \
                        else                                                                              \
                            memcpy(o + b, &acc, (width - b) * sizeof(T));                                 \
                    }                                                                                     \
            }                                                                                             \
    }                                                                                                     \
    __attribute__((target_clones("avx512f", "avx2", "default")))                                         \
    static void filter_rows_##SUFFIX(int64_t images, int64_t channels, int64_t taps, const int64_t *source, \
                                     const int64_t *shift, int64_t rows, int64_t width, const T *dy,        \
                                     int64_t dy_image, int64_t dy_channel, const T *x, int64_t x_image,     \
                                     int64_t x_channel, int64_t x_rows, int64_t x_width, T *lanes, T *buf,  \
                                     int64_t left, int64_t pitch)                                           \
    {                                                                                                     \
        clear_##SUFFIX(x_rows, pitch, buf);                                                               \
        for (int64_t c = 0; c < channels; c++)                                                            \
            for (int64_t n = 0; n < images; n++) {                                                        \
                const T *g = dy + n * dy_image + c * dy_channel;                                          \
                pad_plane_##SUFFIX(x + n * x_image + c * x_channel, x_rows, x_width, left, pitch, buf);  \
                for (int64_t r = 0; r < rows; r++, g += width)                                            \
                    for (int64_t b = 0; b < width; b += LANES) {                                          \
                        const int64_t n_in = width - b < LANES ? width - b : LANES;                       \
                        vec_##SUFFIX d = {0}, in, lane;                                                   \
                        mask_##SUFFIX keep;                                                               \
                        for (int k = 0; k < LANES; k++)                                                   \
                            keep[k] = k < n_in ? (I)-1 : 0;                                               \
                        if (n_in == LANES)                                                                \
                            memcpy(&d, g + b, sizeof d);                                                  \
                        else                                                                              \
                            for (int k = 0; k < n_in; k++)                                                \
                                d[k] = g[b + k];                                                          \
                        for (int64_t t = 0; t < taps; t++) {                                              \
                            const int64_t row = source[r * taps + t];                                     \
                            T *at = lanes + (c * taps + t) * LANES;                                       \
                            memcpy(&in, buf + (row < 0 ? x_rows : row) * pitch + left + shift[t] + b, sizeof in); \
                            memcpy(&lane, at, sizeof lane);                                               \
                            vec_##SUFFIX p = d * in;                                                      \
                            lane = lane + (vec_##SUFFIX)((mask_##SUFFIX)p & keep);                        \
                            memcpy(at, &lane, sizeof lane);                                               \
                        }                                                                                 \
                    }                                                                                     \
            }                                                                                             \
    }

DEFINE_DIRECT(float, int32_t, f32)
DEFINE_DIRECT(double, int64_t, f64)

int opemu_kernel_depthwise_rows(int size, int64_t images, int64_t channels, int64_t taps, const int64_t *source,
                                const int64_t *shift, int64_t rows, int64_t width, const void *w, int64_t w_row,
                                const void *src, int64_t src_image, int64_t src_channel, int64_t src_rows,
                                int64_t src_width, void *out, int64_t out_image, int64_t out_channel, void *buf,
                                int64_t left, int64_t pitch)
{
    if (size == 4)
        rows_f32(images, channels, taps, source, shift, rows, width, w, w_row, src, src_image, src_channel, src_rows,
                 src_width, out, out_image, out_channel, buf, left, pitch);
    else if (size == 8)
        rows_f64(images, channels, taps, source, shift, rows, width, w, w_row, src, src_image, src_channel, src_rows,
                 src_width, out, out_image, out_channel, buf, left, pitch);
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
        filter_rows_f32(images, channels, taps, source, shift, rows, width, dy, dy_image, dy_channel, x, x_image,
                        x_channel, x_rows, x_width, lanes, buf, left, pitch);
    else if (size == 8)
        filter_rows_f64(images, channels, taps, source, shift, rows, width, dy, dy_image, dy_channel, x, x_image,
                        x_channel, x_rows, x_width, lanes, buf, left, pitch);
    else
        return -1;
    return 0;
}
