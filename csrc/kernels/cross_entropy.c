/* The epilogues of the vocab-parallel cross-entropy operators, one logits tile at a time while it is still in
 * cache: the statistics of aclnnFusedLinearOnlineMaxSum and the gradient tile of
 * aclnnFusedLinearCrossEntropyLossGrad (their NumPy references: online_statistics and gradient_tile in
 * python/opemu/ops/aclnn/_vocab_parallel.py). Each row is one pass where NumPy makes five to seven over the
 * tile, with exp.h's exp, NumPy's pairwise row sum (pairwise.h) and rounding.h's bf16 rounding.
 *
 * The running maximum gets +0 added, as the reference does (maxima.h says why); x - m and exp(m' - m) do not
 * depend on the zero's sign. */
#include "exp.h"
#include "kernels.h"
#include "maxima.h"
#include "pairwise.h"
#include "rounding.h"

DEFINE_MAXIMA(float, int32_t, F32)

VECTOR_CLONES static void online_rows(float *logits, int64_t rows, int64_t columns, int64_t ld, int round_bf16,
                                      float *running_max, float *running_sum)
{
    float e[OPEMU_EPILOGUE_COLUMNS];
    for (int64_t r = 0; r < rows; r++) {
        float *row = logits + r * ld;
        if (round_bf16)
            for (int64_t j = 0; j < columns; j++)
                row[j] = opemu_round_bf16(row[j]);
        const float previous = running_max[r];
        const float m = row_max_F32(row, columns, previous) + 0.0f;
        for (int64_t j = 0; j < columns; j++)
            e[j] = row[j] - m;
        exps_F32(e, e, columns);
        float rescale = previous - m;
        exps_F32(&rescale, &rescale, 1);
        const float sum = 0.0f + opemu_pairwise_float(e, columns);
        const float kept = running_sum[r] * rescale;
        running_sum[r] = kept + sum;
        running_max[r] = m;
    }
}

int opemu_kernel_online_max_sum(float *logits, int64_t rows, int64_t columns, int64_t ld, int round_bf16,
                                float *running_max, float *running_sum)
{
    if (rows < 0 || columns < 1 || columns > OPEMU_EPILOGUE_COLUMNS || ld < columns)
        return -1;
    online_rows(logits, rows, columns, ld, round_bf16, running_max, running_sum);
    return 0;
}

/* the `softmax_given` and `round_bf16` choices made once per call, the loops below specialised for each */
INLINE void gradient_rows(int softmax_given, int round_bf16, float *g, int64_t rows, int64_t columns, int64_t ld,
                          const float *softmax, int64_t softmax_ld, const float *maximum, const float *reciprocal,
                          const int64_t *target, const float *grad)
{
    for (int64_t r = 0; r < rows; r++) {
        float *row = g + r * ld;
        if (softmax_given)
            memcpy(row, softmax + r * softmax_ld, (size_t)columns * sizeof(float));
        else {
            const float m = maximum[r], scale = reciprocal[r];
            for (int64_t j = 0; j < columns; j++)
                row[j] = row[j] - m;
            exps_F32(row, row, columns);
            for (int64_t j = 0; j < columns; j++)
                row[j] = row[j] * scale;
        }
        if (target[r] >= 0 && target[r] < columns)
            row[target[r]] = row[target[r]] - 1.0f;
        const float weight = grad[r];
        for (int64_t j = 0; j < columns; j++) {
            const float v = row[j] * weight;
            row[j] = round_bf16 ? opemu_round_bf16(v) : v;
        }
    }
}

VECTOR_CLONES static void gradient(int softmax_given, int round_bf16, float *g, int64_t rows, int64_t columns,
                                   int64_t ld, const float *softmax, int64_t softmax_ld, const float *maximum,
                                   const float *reciprocal, const int64_t *target, const float *grad)
{
    if (softmax_given && round_bf16)
        gradient_rows(1, 1, g, rows, columns, ld, softmax, softmax_ld, maximum, reciprocal, target, grad);
    else if (softmax_given)
        gradient_rows(1, 0, g, rows, columns, ld, softmax, softmax_ld, maximum, reciprocal, target, grad);
    else if (round_bf16)
        gradient_rows(0, 1, g, rows, columns, ld, softmax, softmax_ld, maximum, reciprocal, target, grad);
    else
        gradient_rows(0, 0, g, rows, columns, ld, softmax, softmax_ld, maximum, reciprocal, target, grad);
}

int opemu_kernel_cross_entropy_gradient(float *g, int64_t rows, int64_t columns, int64_t ld, const float *softmax,
                                        int64_t softmax_ld, const float *maximum, const float *reciprocal,
                                        const int64_t *target, const float *grad, int round_bf16)
{
    if (rows < 0 || columns < 1 || ld < columns || (softmax != 0 && softmax_ld < columns))
        return -1;
    gradient(softmax != 0, round_bf16, g, rows, columns, ld, softmax, softmax_ld, maximum, reciprocal, target, grad);
    return 0;
}
