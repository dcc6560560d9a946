/* EmbeddingDenseBackward's segment sums (python/opemu/ops/aclnn/embedding_dense_backward.py
 * _sum_segments is the reference): each output row is the sum, in index order, of the grad rows whose
 * index is that row's, read straight from grad (NumPy gathers a block of rows into a copy first).
 *
 * A segment of `length` <= long_segment rows starts from its first row and adds the others one by one;
 * a longer one sums blocks of block_rows rows from +0 one by one and adds each block's sum to a total
 * from +0 (NumPy's add.reduce over the block's rows, then an add). With `scale`, a sum of more than one
 * row is multiplied by the fp32 reciprocal of its length. */
#include "kernels.h"

static void add_row(float *total, const float *row, int64_t dim)
{
    for (int64_t j = 0; j < dim; j++)
        total[j] += row[j];
}

static void sum_segment(const float *rows, int64_t row_stride, int64_t dim, const int64_t *order, int64_t length,
                        int64_t long_segment, int64_t block_rows, float *total, float *part)
{
    if (length <= long_segment) {
        const float *first = rows + order[0] * row_stride;
        for (int64_t j = 0; j < dim; j++)
            total[j] = first[j];
        for (int64_t r = 1; r < length; r++)
            add_row(total, rows + order[r] * row_stride, dim);
        return;
    }
    for (int64_t j = 0; j < dim; j++)
        total[j] = 0.0f;
    for (int64_t b = 0; b < length; b += block_rows) {
        int64_t end = b + block_rows < length ? b + block_rows : length;
        for (int64_t j = 0; j < dim; j++)
            part[j] = 0.0f;
        for (int64_t r = b; r < end; r++)
            add_row(part, rows + order[r] * row_stride, dim);
        add_row(total, part, dim);
    }
}

int opemu_kernel_segment_sums(const float *rows, int64_t row_stride, int64_t dim, const int64_t *order,
                              const int64_t *starts, const int64_t *lengths, const int64_t *targets, int64_t segments,
                              int scale, int64_t long_segment, int64_t block_rows, float *out, int64_t out_stride,
                              float *part)
{
    if (dim < 0 || block_rows < 1)
        return -1;
    for (int64_t s = 0; s < segments; s++) {
        float *total = out + targets[s] * out_stride;
        sum_segment(rows, row_stride, dim, order + starts[s], lengths[s], long_segment, block_rows, total, part);
        if (scale && lengths[s] > 1) {
            float reciprocal = 1.0f / (float)lengths[s];
            for (int64_t j = 0; j < dim; j++)
                total[j] *= reciprocal;
        }
    }
    return 0;
}
