/* EmbeddingDenseBackward's segment sums (python/opemu/ops/aclnn/embedding_dense_backward.py
 * _sum_segments is the reference): each output row is the sum, in index order, of the grad rows whose
 * index is that row's, read straight from grad (NumPy gathers a block of rows into a copy first).
 *
 * A segment of `length` <= long_segment rows starts from its first row and adds the others one by one;
 * a longer one sums blocks of block_rows rows from +0 one by one and adds each block's sum to a total
 * from +0 (NumPy's add.reduce over the block's rows, then an add). With `scale`, a sum of more than one
 * row is multiplied by the fp32 reciprocal of its length.
 *
 * Speed: the rows come in index order, scattered over grad, so each is a stretch of memory the hardware
 * prefetcher meets cold; every pass over a row therefore prefetches the row read next, a cache line for each
 * line it reads. An out far larger than the caches (`streaming`) is summed a row at a time in scratch and
 * written by non-temporal stores, so its rows are not read first; the sums are the same. */
#include "kernels.h"
#include "nontemporal.h"

enum { LINE_FLOATS = 16 };

/* total = row (copy) or total += row, prefetching `next` (NULL: nothing follows) as it goes */
static void pass_row(float *total, const float *row, const float *next, int64_t dim, int add)
{
    int64_t j = 0;
    if (next)
        for (; j + LINE_FLOATS <= dim; j += LINE_FLOATS) {
            __builtin_prefetch(next + j);
            if (add)
                for (int k = 0; k < LINE_FLOATS; k++)
                    total[j + k] += row[j + k];
            else
                for (int k = 0; k < LINE_FLOATS; k++)
                    total[j + k] = row[j + k];
        }
    if (add)
        for (; j < dim; j++)
            total[j] += row[j];
    else
        for (; j < dim; j++)
            total[j] = row[j];
}

static void zero(float *total, int64_t dim)
{
    for (int64_t j = 0; j < dim; j++)
        total[j] = 0.0f;
}

/* the segment's sum into total; `after` is the row read once this segment is done (NULL: none) */
static void sum_segment(const float *rows, int64_t row_stride, int64_t dim, const int64_t *order, int64_t length,
                        const float *after, int64_t long_segment, int64_t block_rows, float *total, float *part)
{
#define ROW(r) (rows + order[r] * row_stride)
#define NEXT(r) ((r) + 1 < length ? ROW((r) + 1) : after)
    if (length <= long_segment) {
        pass_row(total, ROW(0), NEXT(0), dim, 0);
        for (int64_t r = 1; r < length; r++)
            pass_row(total, ROW(r), NEXT(r), dim, 1);
        return;
    }
    zero(total, dim);
    for (int64_t b = 0; b < length; b += block_rows) {
        int64_t end = b + block_rows < length ? b + block_rows : length;
        zero(part, dim);
        for (int64_t r = b; r < end; r++)
            pass_row(part, ROW(r), NEXT(r), dim, 1);
        pass_row(total, part, NULL, dim, 1);
    }
#undef NEXT
#undef ROW
}

int opemu_kernel_segment_sums(const float *rows, int64_t row_stride, int64_t dim, const int64_t *order,
                              const int64_t *starts, const int64_t *lengths, const int64_t *targets, int64_t segments,
                              int scale, int64_t long_segment, int64_t block_rows, int streaming, float *out,
                              int64_t out_stride, float *scratch)
{
    if (dim < 0 || block_rows < 1)
        return -1;
    float *part = scratch, *row_sum = scratch + dim;
    for (int64_t s = 0; s < segments; s++) {
        float *target = out + targets[s] * out_stride, *total = streaming ? row_sum : target;
        const float *after = s + 1 < segments ? rows + order[starts[s + 1]] * row_stride : NULL;
        sum_segment(rows, row_stride, dim, order + starts[s], lengths[s], after, long_segment, block_rows, total, part);
        if (scale && lengths[s] > 1) {
            float reciprocal = 1.0f / (float)lengths[s];
            for (int64_t j = 0; j < dim; j++)
                total[j] *= reciprocal;
        }
        if (streaming)
            opemu_nontemporal_copy(target, total, (size_t)dim * sizeof(float));
    }
    if (streaming)
        opemu_nontemporal_fence();   /* the sums are in out before the caller reads it */
    return 0;
}
