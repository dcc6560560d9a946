/* What chain.c shares with its baseline path (chain_avx2.c). */
#ifndef OPEMU_KERNELS_CHAIN_H
#define OPEMU_KERNELS_CHAIN_H

#include "isa.h"

#define OPEMU_CHAIN_PACKED_INNER 128 /* a transposed term's rows the packing holds: the callers' K blocks */

/* A term's share of b given transposed, `inner` rows by `cols` columns, packed row-major `width` apart (plain C). */
void opemu_chain_pack_transposed(const float *bt, int64_t ldb, int64_t inner, int64_t cols, float *packed,
                                 int64_t width);

#if OPEMU_X86
/* opemu_kernel_chain_sums on each level's instructions */
void opemu_chain_sums_avx512(int64_t rows, int64_t cols, int64_t terms, const int64_t *inner, const float *a,
                             const int64_t *a_row, const int64_t *a_at, const float *b, const int64_t *b_at,
                             int64_t ldb, int b_transposed, float *c, int64_t ldc, int accumulate);
void opemu_chain_sums_baseline(int64_t rows, int64_t cols, int64_t terms, const int64_t *inner, const float *a,
                               const int64_t *a_row, const int64_t *a_at, const float *b, const int64_t *b_at,
                               int64_t ldb, int b_transposed, float *c, int64_t ldc, int accumulate);
#endif

#endif
