/* LayerNorm and RmsNorm over rows (python/opemu/ops/aclnn/norms.py _normalize is the reference): per row
 * the mean (LayerNorm) and the mean of the squares as NumPy's row sums over the row's length, then
 * out = (x - mean) * rstd * weight + bias with rstd = 1 / sqrt(mean square + epsilon), every step in
 * fp32 rounded where NumPy's separate passes round. Three walks over a row, in cache, instead of about
 * eight NumPy passes over a block. */
#include <math.h>

#include "kernels.h"
#include "pairwise.h"

int opemu_kernel_norm_rows(int centre, const float *x, int64_t x_stride, int64_t rows, int64_t cols, float epsilon,
                           const float *weight, const float *bias, float *out, int64_t out_stride, float *means,
                           float *rstds, float *squares)
{
    if (cols < 1)
        return -1;
    const float count = (float)cols;
    for (int64_t r = 0; r < rows; r++) {
        const float *row = x + r * x_stride;
        float *dest = out + r * out_stride;
        float mean = centre ? (0.0f + opemu_pairwise_float(row, cols)) / count : 0.0f;
        for (int64_t j = 0; j < cols; j++) {
            float c = centre ? row[j] - mean : row[j];
            squares[j] = c * c;
        }
        float rstd = 1.0f / sqrtf((0.0f + opemu_pairwise_float(squares, cols)) / count + epsilon);
        for (int64_t j = 0; j < cols; j++) {
            float value = (centre ? row[j] - mean : row[j]) * rstd;
            if (weight)
                value *= weight[j];
            if (bias)
                value += bias[j];
            dest[j] = value;
        }
        if (means)
            means[r] = mean;
        rstds[r] = rstd;
    }
    return 0;
}
