/* A strided copy that transposes, in cache-sized tiles (python/opemu/ops/mcdnn/conv_kernel.py,
 * _place_transposed: dy laid out positions by channels for the filter gradient). NumPy's copy walks one
 * side with a large stride and runs about a quarter as fast. A copy: the bits are the source's. */
#include "kernels.h"

#define TILE 16

#define DEFINE_TRANSPOSE(T, SUFFIX)                                                                       \
    static void transpose_##SUFFIX(int64_t planes, int64_t rows, int64_t cols, const T *src, int64_t src_plane, \
                                   int64_t src_row, int64_t src_col, T *dst, int64_t dst_plane, int64_t dst_row) \
    {                                                                                                     \
        for (int64_t p = 0; p < planes; p++, src += src_plane, dst += dst_plane)                          \
            for (int64_t r0 = 0; r0 < rows; r0 += TILE)                                                   \
                for (int64_t c0 = 0; c0 < cols; c0 += TILE) {                                             \
                    int64_t r1 = r0 + TILE < rows ? r0 + TILE : rows, c1 = c0 + TILE < cols ? c0 + TILE : cols; \
                    for (int64_t c = c0; c < c1; c++)                                                     \
                        for (int64_t r = r0; r < r1; r++)                                                 \
                            dst[c * dst_row + r] = src[r * src_row + c * src_col];                        \
                }                                                                                         \
    }

DEFINE_TRANSPOSE(float, F32)
DEFINE_TRANSPOSE(double, F64)

int opemu_kernel_transpose(int size, int64_t planes, int64_t rows, int64_t cols, const void *src, int64_t src_plane,
                           int64_t src_row, int64_t src_col, void *dst, int64_t dst_plane, int64_t dst_row)
{
    if (size == 4)
        transpose_F32(planes, rows, cols, (const float *)src, src_plane, src_row, src_col, (float *)dst, dst_plane,
                      dst_row);
    else if (size == 8)
        transpose_F64(planes, rows, cols, (const double *)src, src_plane, src_row, src_col, (double *)dst, dst_plane,
                      dst_row);
    else
        return -1;
    return 0;
}
