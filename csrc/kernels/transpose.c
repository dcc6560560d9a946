/* Strided copies that transpose, in cache-sized tiles: dy laid out positions by channels for the filter
 * gradient (python/opemu/ops/mcdnn/conv_kernel.py, _place_transposed), and a half-precision weight chunk
 * widened to fp32 with H as its rows (python/opemu/ops/aclnn/_vocab_parallel.py, to_f32_transposed). NumPy's
 * copy walks one side with a large stride and runs a quarter (a twentieth, casting) as fast. Copies: the
 * bits are the source's, widened exactly. */
#include "isa.h"
#include "widen.h"
#include "transpose16.h"
#include "transpose8.h"

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

#define WIDEN_TILE 16

/* dst's columns c0..c1 (rows of the source) from source rows r0..r1, one element at a time */
#define DEFINE_WIDEN_BLOCK(SUFFIX, WIDEN)                                                                 \
    static void widen_block_##SUFFIX(const uint16_t *src, int64_t src_row, float *dst, int64_t dst_row,     \
                                     int64_t r0, int64_t r1, int64_t c0, int64_t c1)                       \
    {                                                                                                     \
        for (int64_t c = c0; c < c1; c++)                                                                 \
            for (int64_t r = r0; r < r1; r++)                                                             \
                dst[c * dst_row + r] = WIDEN(src[r * src_row + c]);                                       \
    }

DEFINE_WIDEN_BLOCK(F16, opemu_half_to_float)
DEFINE_WIDEN_BLOCK(BF16, opemu_bf16_to_float)

#if OPEMU_X86
/* A 16 × 16 bf16 tile: each row widened in a register (the bits moved up by 16), then transposed there; with
 * AVX2 as four 8 x 8 tiles. */
__attribute__((target("avx512f"))) static void widen_tile_bf16_avx512(const uint16_t *src, int64_t src_row,
                                                                     float *dst, int64_t dst_row)
{
    __m512i r[16];
    for (int i = 0; i < 16; i++)
        r[i] = _mm512_slli_epi32(_mm512_cvtepu16_epi32(_mm256_loadu_si256((const __m256i *)(src + i * src_row))),
                                 16);
    opemu_transpose16_store(r, dst, dst_row);
}

OPEMU_TARGET_BASELINE static void widen_tile_bf16_baseline(const uint16_t *src, int64_t src_row, float *dst,
                                                           int64_t dst_row)
{
    for (int r0 = 0; r0 < WIDEN_TILE; r0 += 8)
        for (int c0 = 0; c0 < WIDEN_TILE; c0 += 8) {
            __m256i r[8];
            for (int i = 0; i < 8; i++)
                r[i] = _mm256_slli_epi32(
                    _mm256_cvtepu16_epi32(_mm_loadu_si128((const __m128i *)(src + (r0 + i) * src_row + c0))), 16);
            opemu_transpose8(r);
            for (int j = 0; j < 8; j++)
                _mm256_storeu_si256((__m256i *)(dst + (c0 + j) * dst_row + r0), r[j]);
        }
}
#endif

int opemu_kernel_widen_transposed(int dtype, int64_t rows, int64_t cols, const void *src, int64_t src_row,
                                  float *dst, int64_t dst_row)
{
    const uint16_t *s = src;
    if (dtype != 1 && dtype != 2)
        return -1;
#if OPEMU_X86
    void (*tile)(const uint16_t *, int64_t, float *, int64_t) =
        dtype != 2 ? NULL
        : opemu_isa() >= OPEMU_ISA_AVX512 ? widen_tile_bf16_avx512
        : opemu_isa() >= OPEMU_ISA_BASELINE ? widen_tile_bf16_baseline : NULL;
#endif
    for (int64_t r0 = 0; r0 < rows; r0 += WIDEN_TILE)
        for (int64_t c0 = 0; c0 < cols; c0 += WIDEN_TILE) {
            int64_t r1 = r0 + WIDEN_TILE < rows ? r0 + WIDEN_TILE : rows;
            int64_t c1 = c0 + WIDEN_TILE < cols ? c0 + WIDEN_TILE : cols;
#if OPEMU_X86
            if (tile && r1 - r0 == WIDEN_TILE && c1 - c0 == WIDEN_TILE) {
                tile(s + r0 * src_row + c0, src_row, dst + c0 * dst_row + r0, dst_row);
                continue;
            }
#endif
            if (dtype == 2)
                widen_block_BF16(s, src_row, dst, dst_row, r0, r1, c0, c1);
            else
                widen_block_F16(s, src_row, dst, dst_row, r0, r1, c0, c1);
        }
    return 0;
}
