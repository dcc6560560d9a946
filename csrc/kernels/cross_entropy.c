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

/* A row's logits rounded to bf16 in place (when `round_bf16`) and its largest (NaN when any is) and smallest
 * values, in one pass. */
INLINE void round_and_extremes(float *row, int64_t n, int round_bf16, float *largest, float *smallest)
{
    lanes_F32 high, low;
    lane_masks_F32 nan = {0};
    for (int k = 0; k < LANE_COUNT_F32; k++)
        high[k] = *largest, low[k] = *smallest;
    const int64_t whole = n - n % LANE_COUNT_F32;
    for (int64_t j = 0; j < whole; j += LANE_COUNT_F32) {
        lanes_F32 v;
        memcpy(&v, row + j, sizeof v);
        if (round_bf16) {
            for (int k = 0; k < LANE_COUNT_F32; k++)
                v[k] = opemu_round_bf16(v[k]);
            memcpy(row + j, &v, sizeof v);
        }
        larger_lanes_F32(&high, &v, &nan);
        const lane_masks_F32 below = v < low;
        low = (lanes_F32)((below & (lane_masks_F32)v) | (~below & (lane_masks_F32)low));
    }
    for (int k = 0; k < LANE_COUNT_F32; k++) {
        *largest = larger_F32(*largest, nan[k] ? __builtin_nanf("") : high[k]);
        *smallest = low[k] < *smallest ? low[k] : *smallest;
    }
    for (int64_t j = whole; j < n; j++) {
        if (round_bf16)
            row[j] = opemu_round_bf16(row[j]);
        *largest = larger_F32(*largest, row[j]);
        *smallest = row[j] < *smallest ? row[j] : *smallest;
    }
}

/* NumPy's pairwise sum (pairwise.c) of exp(row[j] - m), each exp made as the sum takes it: exp_normal, which
 * the caller has checked covers every row[j] - m. A leaf's eight running sums are one vector. */
INLINE float exp_leaf(const float *row, int64_t n, float m)
{
    if (n < 8) {
        float sum = 0.0f;
        for (int64_t i = 0; i < n; i++)
            sum += exp_normal_F32(row[i] - m);
        return sum;
    }
    float r[8];
    for (int j = 0; j < 8; j++)
        r[j] = exp_normal_F32(row[j] - m);
    int64_t i = 8;
    /* sixteen exps a step (one AVX-512 vector), added as the two steps of eight they are: 15 % faster than eight
     * (wider steps, or several vectors a step, were slower) */
    for (; i + 16 <= n - n % 8; i += 16) {
        float e[16];
        for (int j = 0; j < 16; j++)
            e[j] = exp_normal_F32(row[i + j] - m);
        for (int j = 0; j < 8; j++)
            r[j] += e[j];
        for (int j = 0; j < 8; j++)
            r[j] += e[8 + j];
    }
    for (; i < n - n % 8; i += 8)
        for (int j = 0; j < 8; j++)
            r[j] += exp_normal_F32(row[i + j] - m);
    float sum = ((r[0] + r[1]) + (r[2] + r[3])) + ((r[4] + r[5]) + (r[6] + r[7]));
    for (int64_t k = n - n % 8; k < n; k++)
        sum += exp_normal_F32(row[k] - m);
    return sum;
}

#define DEFINE_EXP_NODE(T, ISA, TARGET)                                                                   \
    TARGET static T exp_node_##ISA(const T *row, int64_t n, T m)                                          \
    {                                                                                                     \
        if (n <= 128)                                                                                     \
            return exp_leaf(row, n, m);                                                                   \
        int64_t half = n / 2;                                                                             \
        half -= half % 8;                                                                                 \
        return exp_node_##ISA(row, half, m) + exp_node_##ISA(row + half, n - half, m);                    \
    }

OPEMU_FOR_EACH_ISA(DEFINE_EXP_NODE, float)

typedef float (*exp_node_path)(const float *row, int64_t n, float m);

/* Two passes a row where the reference makes six: rounding with the extremes, then the exps summed as they
 * are made. A row where exp_normal does not cover every logit - m (NaN, infinities, a span past 87) takes
 * the reference's steps through e[]. */
INLINE void online_rows(exp_node_path exp_node, float *logits, int64_t rows, int64_t columns, int64_t ld,
                        int round_bf16, float *running_max, float *running_sum, const int64_t *target,
                        int64_t first_column, float *picked)
{
    float e[OPEMU_EPILOGUE_COLUMNS];
    for (int64_t r = 0; r < rows; r++) {
        float *row = logits + r * ld;
        const float previous = running_max[r];
        float largest = previous, smallest = __builtin_inff();
        round_and_extremes(row, columns, round_bf16, &largest, &smallest);
        if (target && target[r] >= first_column && target[r] - first_column < columns)
            picked[r] = row[target[r] - first_column];
        const float m = largest + 0.0f;
        float sum;
        if (exp_normal_covers_F32(smallest - m, 0.0f))
            sum = exp_node(row, columns, m);
        else {
            for (int64_t j = 0; j < columns; j++)
                e[j] = row[j] - m;
            exps_F32(e, e, columns);
            sum = opemu_pairwise_float(e, columns);
        }
        float rescale = previous - m;
        exps_F32(&rescale, &rescale, 1);
        const float kept = running_sum[r] * rescale;
        running_sum[r] = kept + (0.0f + sum);
        running_max[r] = m;
    }
}

/* A softmax tile's row is a short run (a chunk's 2-4 KiB) a row of the whole BT x V matrix apart: too short for the
 * hardware's stream prefetch, so each row asks for the one this many rows ahead. */
enum { SOFTMAX_AHEAD = 2 };

/* the `softmax_given` and `round_bf16` choices made once per call, the loops below specialised for each */
INLINE void gradient_rows(int softmax_given, int round_bf16, float *g, int64_t rows, int64_t columns, int64_t ld,
                          const float *softmax, int64_t softmax_ld, const float *maximum, const float *reciprocal,
                          const int64_t *target, const float *grad)
{
    for (int64_t r = 0; r < rows; r++) {
        float *row = g + r * ld;
        if (softmax_given) {
            /* the row ahead a line beside each line copied: all its lines asked for at once, at the row's start,
             * filled the core's miss buffers (high-performance FLCE, medians of 8 and 10 interleaved calls:
             * 681.6 -> 673.9 and 703.4 -> 678.3 ms) */
            const float *source = softmax + r * softmax_ld;
            const int fetch = r + SOFTMAX_AHEAD < rows;
            const float *ahead = fetch ? source + SOFTMAX_AHEAD * softmax_ld : source;
            for (int64_t j = 0; j < columns; j += 16) {
                if (fetch)
                    __builtin_prefetch(ahead + j);
                memcpy(row + j, source + j, (size_t)(columns - j < 16 ? columns - j : 16) * sizeof(float));
            }
        }
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

INLINE void gradient(int softmax_given, int round_bf16, float *g, int64_t rows, int64_t columns, int64_t ld,
                     const float *softmax, int64_t softmax_ld, const float *maximum, const float *reciprocal,
                     const int64_t *target, const float *grad)
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

/* Each level's path: the row loops above inlined with its instructions */
#define DEFINE_EPILOGUES(T, ISA, TARGET)                                                                  \
    TARGET static void online_rows_##ISA(T *logits, int64_t rows, int64_t columns, int64_t ld, int round_bf16, \
                                         T *running_max, T *running_sum, const int64_t *target,           \
                                         int64_t first_column, T *picked)                                 \
    {                                                                                                     \
        online_rows(exp_node_##ISA, logits, rows, columns, ld, round_bf16, running_max, running_sum, target, \
                    first_column, picked);                                                                \
    }                                                                                                     \
    TARGET static void gradient_##ISA(int softmax_given, int round_bf16, T *g, int64_t rows, int64_t columns, \
                                      int64_t ld, const T *softmax, int64_t softmax_ld, const T *maximum, \
                                      const T *reciprocal, const int64_t *target, const T *grad)          \
    {                                                                                                     \
        gradient(softmax_given, round_bf16, g, rows, columns, ld, softmax, softmax_ld, maximum, reciprocal, \
                 target, grad);                                                                           \
    }

OPEMU_FOR_EACH_ISA(DEFINE_EPILOGUES, float)

int opemu_kernel_online_max_sum(float *logits, int64_t rows, int64_t columns, int64_t ld, int round_bf16,
                                float *running_max, float *running_sum, const int64_t *target, int64_t first_column,
                                float *picked)
{
    if (rows < 0 || columns < 1 || columns > OPEMU_EPILOGUE_COLUMNS || ld < columns)
        return -1;
    OPEMU_BY_ISA(online_rows_)(logits, rows, columns, ld, round_bf16, running_max, running_sum, target, first_column,
                               picked);
    return 0;
}

int opemu_kernel_cross_entropy_gradient(float *g, int64_t rows, int64_t columns, int64_t ld, const float *softmax,
                                        int64_t softmax_ld, const float *maximum, const float *reciprocal,
                                        const int64_t *target, const float *grad, int round_bf16)
{
    if (rows < 0 || columns < 1 || ld < columns || (softmax != 0 && softmax_ld < columns))
        return -1;
    OPEMU_BY_ISA(gradient_)(softmax != 0, round_bf16, g, rows, columns, ld, softmax, softmax_ld, maximum, reciprocal,
                            target, grad);
    return 0;
}
