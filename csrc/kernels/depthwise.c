/* Depthwise convolutions on the padded grid (python/opemu/ops/mcdnn/conv_kernel.py, the depthwise
 * functions): one channel per row, so each output is a short sum of taps, which BLAS would run as
 * thousands of 1-row GEMMs.
 *
 * taps:   out[r][j] = +0 + w[r][0]*in[r][j + offsets[0]] + w[r][1]*in[r][j + offsets[1]] + …, left to
 *         right, each product rounded, then each sum (the reference's multiply and add passes).
 * filter: dw[r][t] = the products dy[r][j] * in[r][j + offsets[t]] over j < m summed in 16 lanes
 *         (lane j mod 16, each from +0 in j order, the last block padded with +0 products), then the
 *         lanes from +0 in lane order: the reference sums a (m/16, 16) matrix down its rows.
 * Both walk a row in blocks of positions with every tap inside a block (same order per output or lane),
 * so a block's outputs, or dy, stay in L1 across the taps instead of a row's passing through L2 per tap. */
#include "kernels.h"

#define LANES 16
#define BLOCK 1024      /* positions of a row whose taps are summed together: their outputs stay in L1 */
#define MAX_TAPS 64     /* the filter gradient's lanes of every tap on the stack; more taps go tap by tap */

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
    }                                                                                                     \
    /* lane[t][k] += the products of positions lo..hi (whole blocks of LANES) for each of taps t0..t1 */  \
    static inline void filter_lanes_##SUFFIX(T lane[][LANES], int64_t t0, int64_t t1, const int64_t *offsets, \
                                             const T *g, const T *ir, int64_t lo, int64_t hi)             \
    {                                                                                                     \
        for (int64_t t = t0; t < t1; t++) {                                                               \
            const T *x = ir + offsets[t];                                                                 \
            for (int64_t j = lo; j < hi; j += LANES)                                                      \
                for (int k = 0; k < LANES; k++) {                                                         \
                    T p = g[j + k] * x[j + k];                                                            \
                    lane[t - t0][k] = lane[t - t0][k] + p;                                                \
                }                                                                                         \
        }                                                                                                 \
    }                                                                                                     \
    __attribute__((target_clones("avx512f", "avx2", "default")))                                         \
    static void filter_##SUFFIX(int64_t rows, int64_t taps, const int64_t *offsets, const T *dy,          \
                                int64_t dy_row, const T *in, int64_t in_row, T *dw, int64_t dw_row,       \
                                int64_t m)                                                                \
    {                                                                                                     \
        const int64_t whole = m / LANES * LANES;                                                          \
        for (int64_t r = 0; r < rows; r++)                                                                \
            for (int64_t t0 = 0; t0 < taps; t0 += MAX_TAPS) { /* up to MAX_TAPS taps walk a block together */ \
                const int64_t t1 = taps - t0 < MAX_TAPS ? taps : t0 + MAX_TAPS;                           \
                const T *g = dy + r * dy_row, *ir = in + r * in_row;                                      \
                T lane[MAX_TAPS][LANES];                                                                  \
                for (int64_t t = t0; t < t1; t++)                                                         \
                    for (int k = 0; k < LANES; k++)                                                       \
                        lane[t - t0][k] = (T)0;                                                           \
                for (int64_t lo = 0; lo < whole; lo += BLOCK)                                             \
                    filter_lanes_##SUFFIX(lane, t0, t1, offsets, g, ir, lo, whole - lo < BLOCK ? whole : lo + BLOCK); \
                for (int64_t t = t0; t < t1; t++) {                                                       \
                    const T *x = ir + offsets[t];                                                         \
                    if (whole < m)                                                                        \
                        for (int k = 0; k < LANES; k++) {                                                 \
                            T p = whole + k < m ? g[whole + k] * x[whole + k] : (T)0;                     \
                            lane[t - t0][k] = lane[t - t0][k] + p;                                        \
                        }                                                                                 \
                    T total = (T)0;                                                                       \
                    for (int k = 0; k < LANES; k++)                                                       \
                        total = total + lane[t - t0][k];                                                  \
                    dw[r * dw_row + t] = total;                                                           \
                }                                                                                         \
            }                                                                                             \
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

int opemu_kernel_depthwise_filter(int size, int64_t rows, int64_t taps, const int64_t *offsets, const void *dy,
                                  int64_t dy_row, const void *in, int64_t in_row, void *dw, int64_t dw_row, int64_t m)
{
    if (size == 4)
        filter_f32(rows, taps, offsets, (const float *)dy, dy_row, (const float *)in, in_row, (float *)dw, dw_row, m);
    else if (size == 8)
        filter_f64(rows, taps, offsets, (const double *)dy, dy_row, (const double *)in, in_row, (double *)dw, dw_row,
                   m);
    else
        return -1;
    return 0;
}
