/* Sums of GEMM products as NumPy's BLAS forms them, in one pass (python/opemu/core/blas.py, chain_sums).
 *
 * The grid convolutions (python/opemu/ops/mcdnn/conv_kernel.py) add up one GEMM product per window
 * element, or per block of the grid; BLAS rereads and rewrites the whole result for each. Here a tile of
 * the result stays in registers while one term's products are summed, and in L1 while the terms are added.
 *
 * The bundled OpenBLAS (the NumPy twin's matmul) forms each element of a product whose inner dimension
 * fits its K block as one chain of fused multiply-adds from +0 in k order; this kernel forms the same
 * chain, so the two agree to the bit. Whether that holds for the BLAS at hand is a measured fact, not an
 * assumption: opemu.core.blas compares the two on a probe before the kernel is used (OpenBLAS's Haswell kernels
 * split most tiles' sums over two accumulators, so on them the convolutions keep BLAS). The kernel's own twin
 * is blas.chain_reference, each step an exact fused multiply-add in NumPy.
 *
 * Paths: AVX-512 (below) and the baseline's AVX2 (chain_avx2.c); in plain C there is none (-1: BLAS runs). */
#include "chain.h"
#include "transpose16.h"

#if OPEMU_X86
#include <immintrin.h>

/* The tiles' vector operations (chain.h) */
#define V512_VEC __m512
#define V512_MASK __mmask16
#define V512_LANES 16
#define V512_TARGET __attribute__((target("avx512f")))
#define V512_ZERO() _mm512_setzero_ps()
#define V512_LOAD(p) _mm512_loadu_ps(p)
#define V512_LOAD_MASKED(p, m) _mm512_maskz_loadu_ps((m), (p))
#define V512_BROADCAST(p) _mm512_set1_ps(*(p))
#define V512_FMA(a, b, c) _mm512_fmadd_ps((a), (b), (c))
#define V512_ADD(a, b) _mm512_add_ps((a), (b))
#define V512_STORE(p, v) _mm512_storeu_ps((p), (v))
#define V512_STORE_MASKED(p, m, v) _mm512_mask_storeu_ps((p), (m), (v))
#define V512_MASKS(mask, vecs, cols)                                                                      \
    for (int v = 0; v < (vecs); v++) {                                                                    \
        int64_t left = (cols) - (int64_t)v * V512_LANES;                                                  \
        mask[v] = left >= V512_LANES ? (__mmask16)0xFFFF : left <= 0 ? 0 : (__mmask16)((1u << left) - 1); \
    }
#define LANES V512_LANES

/* The next column tile's share of b, into L2: the rows of b are far apart (a grid's channels), too many
 * streams for the hardware's prefetchers. The first and last terms span what the others read (their
 * offsets grow term by term); 21% faster on one core, 5-10% on two. */
__attribute__((target("avx512f"))) static inline void prefetch_next(const float *b, int64_t ldb, int64_t inner,
                                                                    int vecs)
{
    for (int64_t k = 0; k < inner; k++)
        for (int v = 0; v <= vecs; v++)
            _mm_prefetch((const char *)(b + k * ldb + (vecs + v) * LANES), _MM_HINT_T1);
}

/* b given transposed (a 1x1 filter gradient reads dy as it lies, positions innermost): a term's share of the
 * column tile, inner rows by `cols` columns, packed row-major `width` apart into L1 first, in 16 x 16
 * register tiles, so the tiles read it as they read b. The chains are the same either way. */
#define PACKED_INNER OPEMU_CHAIN_PACKED_INNER
#define PACKED_WIDTH 64    /* the widest column tile */

__attribute__((target("avx512f"))) static void pack_transposed(const float *bt, int64_t ldb, int64_t inner,
                                                              int64_t cols, float *packed, int64_t width)
{
    int64_t n0 = 0;
    for (; n0 + LANES <= cols; n0 += LANES) {
        int64_t k0 = 0;
        for (; k0 + LANES <= inner; k0 += LANES) {
            __m512i r[LANES];
            for (int i = 0; i < LANES; i++)
                r[i] = _mm512_loadu_si512(bt + (n0 + i) * ldb + k0);
            opemu_transpose16_store(r, packed + k0 * width + n0, width);
        }
        for (; k0 < inner; k0++)
            for (int64_t n = n0; n < n0 + LANES; n++)
                packed[k0 * width + n] = bt[n * ldb + k0];
    }
    for (; n0 < cols; n0++)
        for (int64_t k = 0; k < inner; k++)
            packed[k * width + n0] = bt[n0 * ldb + k];
}

OPEMU_CHAIN_COLUMN_TILE(V512, columns_48, 8, 3, 0)
OPEMU_CHAIN_COLUMN_TILE(V512, columns_48_masked, 8, 3, 1)
OPEMU_CHAIN_COLUMN_TILE(V512, columns_64, 6, 4, 0)
OPEMU_CHAIN_COLUMN_TILE(V512, columns_64_masked, 6, 4, 1)

void opemu_chain_sums_avx512(int64_t rows, int64_t cols, int64_t terms, const int64_t *inner, const float *a,
                             const int64_t *a_row, const int64_t *a_at, const float *b, const int64_t *b_at,
                             int64_t ldb, int b_transposed, float *c, int64_t ldc, int accumulate)
{
    float packed[PACKED_INNER * PACKED_WIDTH] __attribute__((aligned(64)));
    /* 8 rows by 48 columns, or 6 by 64 where that wastes fewer lanes (a 64-wide filter gradient) */
    int wide = (cols + 63) / 64 * 64 < (cols + 47) / 48 * 48;
    int64_t width = wide ? 64 : 48, n = 0;
    float *pack = b_transposed ? packed : NULL;
    for (; n + width <= cols; n += width)
        (wide ? columns_64 : columns_48)(rows, width, terms, inner, a, a_row, a_at, b + n * (b_transposed ? ldb : 1),
                                         b_at, ldb, pack, c + n, ldc, accumulate, n + width < cols);
    if (n < cols)
        (wide ? columns_64_masked : columns_48_masked)(rows, cols - n, terms, inner, a, a_row, a_at,
                                                       b + n * (b_transposed ? ldb : 1), b_at, ldb, pack, c + n,
                                                       ldc, accumulate, 0);
}
#endif

int opemu_kernel_chain_sums(int64_t rows, int64_t cols, int64_t terms, const int64_t *inner, const float *a,
                            const int64_t *a_row, const int64_t *a_at, const float *b, const int64_t *b_at,
                            int64_t ldb, int b_transposed, float *c, int64_t ldc, int accumulate)
{
    if (opemu_isa() < OPEMU_ISA_BASELINE)
        return -1;
    for (int64_t t = 0; b_transposed && t < terms; t++)
        if (inner[t] > OPEMU_CHAIN_PACKED_INNER)
            return -2;
#if OPEMU_X86
    if (opemu_isa() >= OPEMU_ISA_AVX512)
        opemu_chain_sums_avx512(rows, cols, terms, inner, a, a_row, a_at, b, b_at, ldb, b_transposed, c, ldc,
                                accumulate);
    else
        opemu_chain_sums_baseline(rows, cols, terms, inner, a, a_row, a_at, b, b_at, ldb, b_transposed, c, ldc,
                                  accumulate);
#endif
    return 0;
}
