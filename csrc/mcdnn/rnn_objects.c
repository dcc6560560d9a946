/* mcDNN objects of the RNN (v8 API) and CTC-loss routines: RNN descriptors, RNN data descriptors, CTC-loss
 * descriptors. Cheap calls, all in C; the routines, the weight-space queries and the temporary-space
 * queries are Python (python/opemu/ops/mcdnn/rnn*.py, ctc_loss.py) reading these structs (adv_descriptors.h).
 *
 * Rules are cuDNN 8.9's, renamed: a NULL, destroyed or foreign descriptor, an enum outside its values or a
 * size that cannot be is BAD_PARAM; a valid configuration cuDNN has no kernel for is NOT_SUPPORTED. */
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include "mcdnn_internal.h"

#define LIVE_RNN(p, api) ((struct mcdnnRNNStruct *)opemu_mcdnn_live((p), OPEMU_KIND_MCDNN_RNN, "mcdnnRNNDescriptor_t", (api)))
#define LIVE_DATA(p, api) ((struct mcdnnRNNDataStruct *)opemu_mcdnn_live((p), OPEMU_KIND_MCDNN_RNN_DATA, \
                                                                          "mcdnnRNNDataDescriptor_t", (api)))
#define LIVE_CTC(p, api) ((struct mcdnnCTCLossStruct *)opemu_mcdnn_live((p), OPEMU_KIND_MCDNN_CTC_LOSS, \
                                                                        "mcdnnCTCLossDescriptor_t", (api)))

int32_t *opemu_mcdnn_copy_ints(const int *values, size_t n)
{
    if (n == 0)
        return NULL;
    int32_t *copy = malloc(n * sizeof *copy);
    if (copy != NULL)
        memcpy(copy, values, n * sizeof *copy);
    return copy;
}

int opemu_mcdnn_copy_fill(uint8_t out[8], int type, const void *value)
{
    memset(out, 0, 8);
    if (value == NULL)
        return 0;
    memcpy(out, value, (size_t)opemu_mcdnn_element_size(type));
    return 1;
}

/* ---- RNN descriptors ---- */

OPEMU_EXPORT mcdnnStatus_t mcdnnCreateRNNDescriptor(mcdnnRNNDescriptor_t *rnnDesc)
{
    return opemu_mcdnn_create((void **)rnnDesc, sizeof(struct mcdnnRNNStruct), OPEMU_KIND_MCDNN_RNN,
                              "mcdnnCreateRNNDescriptor");
}

OPEMU_EXPORT mcdnnStatus_t mcdnnDestroyRNNDescriptor(mcdnnRNNDescriptor_t rnnDesc)
{
    return opemu_mcdnn_destroy(rnnDesc, OPEMU_KIND_MCDNN_RNN, "mcdnnRNNDescriptor_t", "mcdnnDestroyRNNDescriptor");
}

/* cuDNN's RNN configurations: HALF data with HALF or FLOAT math, FLOAT with FLOAT, DOUBLE with DOUBLE. */
static int rnn_precision(int dataType, int mathPrec)
{
    switch (dataType) {
    case MCDNN_DATA_HALF: return mathPrec == MCDNN_DATA_HALF || mathPrec == MCDNN_DATA_FLOAT;
    case MCDNN_DATA_FLOAT: return mathPrec == MCDNN_DATA_FLOAT;
    case MCDNN_DATA_DOUBLE: return mathPrec == MCDNN_DATA_DOUBLE;
    }
    return 0;
}

OPEMU_EXPORT mcdnnStatus_t mcdnnSetRNNDescriptor_v8(mcdnnRNNDescriptor_t rnnDesc, mcdnnRNNAlgo_t algo,
                                                    mcdnnRNNMode_t cellMode, mcdnnRNNBiasMode_t biasMode,
                                                    mcdnnDirectionMode_t dirMode, mcdnnRNNInputMode_t inputMode,
                                                    mcdnnDataType_t dataType, mcdnnDataType_t mathPrec,
                                                    mcdnnMathType_t mathType, int32_t inputSize, int32_t hiddenSize,
                                                    int32_t projSize, int32_t numLayers,
                                                    mcdnnDropoutDescriptor_t dropoutDesc, uint32_t auxFlags)
{
    const char *api = "mcdnnSetRNNDescriptor_v8";
    struct mcdnnRNNStruct *d = LIVE_RNN(rnnDesc, api);
    if (d == NULL)
        return MCDNN_STATUS_BAD_PARAM;
    if ((unsigned)algo >= MCDNN_RNN_ALGO_COUNT)
        return MORE_BAD("%s: invalid mcdnnRNNAlgo_t %d", api, (int)algo);
    if ((unsigned)cellMode > MCDNN_GRU)
        return MORE_BAD("%s: invalid mcdnnRNNMode_t %d", api, (int)cellMode);
    if ((unsigned)biasMode > MCDNN_RNN_SINGLE_REC_BIAS)
        return MORE_BAD("%s: invalid mcdnnRNNBiasMode_t %d", api, (int)biasMode);
    if ((unsigned)dirMode > MCDNN_BIDIRECTIONAL)
        return MORE_BAD("%s: invalid mcdnnDirectionMode_t %d", api, (int)dirMode);
    if ((unsigned)inputMode > MCDNN_SKIP_INPUT)
        return MORE_BAD("%s: invalid mcdnnRNNInputMode_t %d", api, (int)inputMode);
    if ((unsigned)mathType > MCDNN_FMA_MATH)
        return MORE_BAD("%s: invalid mcdnnMathType_t %d", api, (int)mathType);
    if (auxFlags & ~(uint32_t)MCDNN_RNN_PADDED_IO_ENABLED)
        return MORE_BAD("%s: auxFlags 0x%x holds bits other than MCDNN_RNN_PADDED_IO_ENABLED", api, auxFlags);
    if (inputSize <= 0 || hiddenSize <= 0 || projSize <= 0 || numLayers <= 0)
        return MORE_BAD("%s: inputSize %d, hiddenSize %d, projSize %d and numLayers %d must be positive", api,
                        inputSize, hiddenSize, projSize, numLayers);
    if (projSize > hiddenSize)
        return MORE_BAD("%s: projSize %d is larger than hiddenSize %d", api, projSize, hiddenSize);
    if (inputMode == MCDNN_SKIP_INPUT && inputSize != hiddenSize)
        return MORE_BAD("%s: MCDNN_SKIP_INPUT needs inputSize %d equal to hiddenSize %d", api, inputSize,
                        hiddenSize);
    if (dropoutDesc != NULL && !opemu_handle_is(dropoutDesc, OPEMU_KIND_MCDNN_DROPOUT))
        return MORE_BAD("%s: dropoutDesc %p is not a live mcdnnDropoutDescriptor_t", api, (void *)dropoutDesc);
    if (opemu_mcdnn_element_size(dataType) == 0 || opemu_mcdnn_element_size(mathPrec) == 0)
        return MORE_BAD("%s: invalid data type %d or math precision %d", api, (int)dataType, (int)mathPrec);
    if (!rnn_precision(dataType, mathPrec))
        return MORE_NOT_SUPPORTED("%s: data type %d with math precision %d is not an RNN configuration (HALF "
                                  "with HALF or FLOAT math, FLOAT with FLOAT, DOUBLE with DOUBLE)", api, (int)dataType,
                                  (int)mathPrec);
    if (projSize < hiddenSize && cellMode != MCDNN_LSTM)
        return MORE_NOT_SUPPORTED("%s: a recurrent projection (projSize %d < hiddenSize %d) needs MCDNN_LSTM", api,
                                  projSize, hiddenSize);
    d->algo = algo;
    d->cellMode = cellMode;
    d->biasMode = biasMode;
    d->dirMode = dirMode;
    d->inputMode = inputMode;
    d->dataType = dataType;
    d->mathPrec = mathPrec;
    d->mathType = mathType;
    d->inputSize = inputSize;
    d->hiddenSize = hiddenSize;
    d->projSize = projSize;
    d->numLayers = numLayers;
    d->dropoutDesc = dropoutDesc;
    d->auxFlags = auxFlags;
    d->is_set = 1;
    return MCDNN_STATUS_SUCCESS;
}

#define PUT(out, value) do { if ((out) != NULL) *(out) = (value); } while (0)

OPEMU_EXPORT mcdnnStatus_t mcdnnGetRNNDescriptor_v8(mcdnnRNNDescriptor_t rnnDesc, mcdnnRNNAlgo_t *algo,
                                                    mcdnnRNNMode_t *cellMode, mcdnnRNNBiasMode_t *biasMode,
                                                    mcdnnDirectionMode_t *dirMode, mcdnnRNNInputMode_t *inputMode,
                                                    mcdnnDataType_t *dataType, mcdnnDataType_t *mathPrec,
                                                    mcdnnMathType_t *mathType, int32_t *inputSize, int32_t *hiddenSize,
                                                    int32_t *projSize, int32_t *numLayers,
                                                    mcdnnDropoutDescriptor_t *dropoutDesc, uint32_t *auxFlags)
{
    struct mcdnnRNNStruct *d = LIVE_RNN(rnnDesc, "mcdnnGetRNNDescriptor_v8");
    if (d == NULL)
        return MCDNN_STATUS_BAD_PARAM;
    if (!d->is_set)
        return MORE_BAD("mcdnnGetRNNDescriptor_v8: the descriptor was never set");
    PUT(algo, (mcdnnRNNAlgo_t)d->algo);
    PUT(cellMode, (mcdnnRNNMode_t)d->cellMode);
    PUT(biasMode, (mcdnnRNNBiasMode_t)d->biasMode);
    PUT(dirMode, (mcdnnDirectionMode_t)d->dirMode);
    PUT(inputMode, (mcdnnRNNInputMode_t)d->inputMode);
    PUT(dataType, (mcdnnDataType_t)d->dataType);
    PUT(mathPrec, (mcdnnDataType_t)d->mathPrec);
    PUT(mathType, (mcdnnMathType_t)d->mathType);
    PUT(inputSize, d->inputSize);
    PUT(hiddenSize, d->hiddenSize);
    PUT(projSize, d->projSize);
    PUT(numLayers, d->numLayers);
    PUT(dropoutDesc, (mcdnnDropoutDescriptor_t)d->dropoutDesc);
    PUT(auxFlags, d->auxFlags);
    return MCDNN_STATUS_SUCCESS;
}

/* One enumerated field of a live RNN descriptor: set (a value in [0, max]) or read into *out. */
static mcdnnStatus_t set_rnn_enum(mcdnnRNNDescriptor_t rnnDesc, size_t offset, int value, int max, const char *type,
                                  const char *api)
{
    struct mcdnnRNNStruct *d = LIVE_RNN(rnnDesc, api);
    if (d == NULL)
        return MCDNN_STATUS_BAD_PARAM;
    if (value < 0 || value > max)
        return MORE_BAD("%s: invalid %s %d", api, type, value);
    memcpy((char *)d + offset, &(int32_t){value}, sizeof(int32_t));
    return MCDNN_STATUS_SUCCESS;
}

static mcdnnStatus_t get_rnn_enum(mcdnnRNNDescriptor_t rnnDesc, size_t offset, int *out, const char *name,
                                  const char *api)
{
    struct mcdnnRNNStruct *d = LIVE_RNN(rnnDesc, api);
    if (d == NULL)
        return MCDNN_STATUS_BAD_PARAM;
    if (out == NULL)
        return MORE_BAD("%s: %s is null", api, name);
    int32_t value;
    memcpy(&value, (char *)d + offset, sizeof value);
    *out = value;
    return MCDNN_STATUS_SUCCESS;
}

OPEMU_EXPORT mcdnnStatus_t mcdnnSetRNNMatrixMathType(mcdnnRNNDescriptor_t rnnDesc, mcdnnMathType_t mType)
{
    return set_rnn_enum(rnnDesc, offsetof(struct mcdnnRNNStruct, mathType), (int)mType, MCDNN_FMA_MATH,
                        "mcdnnMathType_t", "mcdnnSetRNNMatrixMathType");
}

OPEMU_EXPORT mcdnnStatus_t mcdnnGetRNNMatrixMathType(mcdnnRNNDescriptor_t rnnDesc, mcdnnMathType_t *mType)
{
    return get_rnn_enum(rnnDesc, offsetof(struct mcdnnRNNStruct, mathType), (int *)mType, "mType",
                        "mcdnnGetRNNMatrixMathType");
}

OPEMU_EXPORT mcdnnStatus_t mcdnnSetRNNBiasMode(mcdnnRNNDescriptor_t rnnDesc, mcdnnRNNBiasMode_t biasMode)
{
    return set_rnn_enum(rnnDesc, offsetof(struct mcdnnRNNStruct, biasMode), (int)biasMode, MCDNN_RNN_SINGLE_REC_BIAS,
                        "mcdnnRNNBiasMode_t", "mcdnnSetRNNBiasMode");
}

OPEMU_EXPORT mcdnnStatus_t mcdnnGetRNNBiasMode(mcdnnRNNDescriptor_t rnnDesc, mcdnnRNNBiasMode_t *biasMode)
{
    return get_rnn_enum(rnnDesc, offsetof(struct mcdnnRNNStruct, biasMode), (int *)biasMode, "biasMode",
                        "mcdnnGetRNNBiasMode");
}

/* LSTM cell clipping: the cell state is clamped to [lclip, rclip] after each step (clipNanOpt: whether a
 * NaN cell state stays NaN). Disabled by default. */
OPEMU_EXPORT mcdnnStatus_t mcdnnRNNSetClip_v8(mcdnnRNNDescriptor_t rnnDesc, mcdnnRNNClipMode_t clipMode,
                                              mcdnnNanPropagation_t clipNanOpt, double lclip, double rclip)
{
    const char *api = "mcdnnRNNSetClip_v8";
    struct mcdnnRNNStruct *d = LIVE_RNN(rnnDesc, api);
    if (d == NULL)
        return MCDNN_STATUS_BAD_PARAM;
    if ((unsigned)clipMode > MCDNN_RNN_CLIP_MINMAX || (unsigned)clipNanOpt > MCDNN_PROPAGATE_NAN)
        return MORE_BAD("%s: invalid clipMode %d or clipNanOpt %d", api, (int)clipMode, (int)clipNanOpt);
    if (clipMode == MCDNN_RNN_CLIP_MINMAX && !(lclip <= rclip))
        return MORE_BAD("%s: lclip %g is greater than rclip %g", api, lclip, rclip);
    d->clipMode = clipMode;
    d->clipNanOpt = clipNanOpt;
    d->lclip = lclip;
    d->rclip = rclip;
    return MCDNN_STATUS_SUCCESS;
}

OPEMU_EXPORT mcdnnStatus_t mcdnnRNNGetClip_v8(mcdnnRNNDescriptor_t rnnDesc, mcdnnRNNClipMode_t *clipMode,
                                              mcdnnNanPropagation_t *clipNanOpt, double *lclip, double *rclip)
{
    struct mcdnnRNNStruct *d = LIVE_RNN(rnnDesc, "mcdnnRNNGetClip_v8");
    if (d == NULL)
        return MCDNN_STATUS_BAD_PARAM;
    if (!clipMode || !clipNanOpt || !lclip || !rclip)
        return MORE_BAD("mcdnnRNNGetClip_v8: an output pointer is null");
    *clipMode = (mcdnnRNNClipMode_t)d->clipMode;
    *clipNanOpt = (mcdnnNanPropagation_t)d->clipNanOpt;
    *lclip = d->lclip;
    *rclip = d->rclip;
    return MCDNN_STATUS_SUCCESS;
}

OPEMU_EXPORT mcdnnStatus_t mcdnnSetRNNPaddingMode(mcdnnRNNDescriptor_t rnnDesc, unsigned paddingMode)
{
    struct mcdnnRNNStruct *d = LIVE_RNN(rnnDesc, "mcdnnSetRNNPaddingMode");
    if (d == NULL)
        return MCDNN_STATUS_BAD_PARAM;
    if (paddingMode & ~(unsigned)MCDNN_RNN_PADDED_IO_ENABLED)
        return MORE_BAD("mcdnnSetRNNPaddingMode: invalid paddingMode 0x%x", paddingMode);
    d->auxFlags = (d->auxFlags & ~(uint32_t)MCDNN_RNN_PADDED_IO_ENABLED) | paddingMode;
    return MCDNN_STATUS_SUCCESS;
}

OPEMU_EXPORT mcdnnStatus_t mcdnnGetRNNPaddingMode(mcdnnRNNDescriptor_t rnnDesc, unsigned *paddingMode)
{
    struct mcdnnRNNStruct *d = LIVE_RNN(rnnDesc, "mcdnnGetRNNPaddingMode");
    if (d == NULL)
        return MCDNN_STATUS_BAD_PARAM;
    if (paddingMode == NULL)
        return MORE_BAD("mcdnnGetRNNPaddingMode: paddingMode is null");
    *paddingMode = d->auxFlags & MCDNN_RNN_PADDED_IO_ENABLED;
    return MCDNN_STATUS_SUCCESS;
}

/* ---- RNN data descriptors ---- */

OPEMU_EXPORT mcdnnStatus_t mcdnnCreateRNNDataDescriptor(mcdnnRNNDataDescriptor_t *rnnDataDesc)
{
    return opemu_mcdnn_create((void **)rnnDataDesc, sizeof(struct mcdnnRNNDataStruct), OPEMU_KIND_MCDNN_RNN_DATA,
                              "mcdnnCreateRNNDataDescriptor");
}

OPEMU_EXPORT mcdnnStatus_t mcdnnDestroyRNNDataDescriptor(mcdnnRNNDataDescriptor_t rnnDataDesc)
{
    struct mcdnnRNNDataStruct *d = rnnDataDesc;
    if (d != NULL && opemu_handle_is(d, OPEMU_KIND_MCDNN_RNN_DATA))
        free(d->seqLengthArray);
    return opemu_mcdnn_destroy(rnnDataDesc, OPEMU_KIND_MCDNN_RNN_DATA, "mcdnnRNNDataDescriptor_t",
                               "mcdnnDestroyRNNDataDescriptor");
}

/* Sequence lengths must lie in [0, maxSeqLength]; the packed layout needs them sorted, longest first. */
OPEMU_EXPORT mcdnnStatus_t mcdnnSetRNNDataDescriptor(mcdnnRNNDataDescriptor_t rnnDataDesc, mcdnnDataType_t dataType,
                                                     mcdnnRNNDataLayout_t layout, int maxSeqLength, int batchSize,
                                                     int vectorSize, const int seqLengthArray[], void *paddingFill)
{
    const char *api = "mcdnnSetRNNDataDescriptor";
    struct mcdnnRNNDataStruct *d = LIVE_DATA(rnnDataDesc, api);
    if (d == NULL)
        return MCDNN_STATUS_BAD_PARAM;
    if (opemu_mcdnn_element_size(dataType) == 0)
        return MORE_BAD("%s: invalid mcdnnDataType_t %d", api, (int)dataType);
    if ((unsigned)layout > MCDNN_RNN_DATA_LAYOUT_BATCH_MAJOR_UNPACKED)
        return MORE_BAD("%s: invalid mcdnnRNNDataLayout_t %d", api, (int)layout);
    if (maxSeqLength <= 0 || batchSize <= 0 || vectorSize <= 0)
        return MORE_BAD("%s: maxSeqLength %d, batchSize %d and vectorSize %d must be positive", api, maxSeqLength,
                        batchSize, vectorSize);
    if (seqLengthArray == NULL)
        return MORE_BAD("%s: seqLengthArray is null", api);
    for (int i = 0; i < batchSize; i++) {
        if (seqLengthArray[i] < 0 || seqLengthArray[i] > maxSeqLength)
            return MORE_BAD("%s: seqLengthArray[%d] = %d is outside [0, maxSeqLength %d]", api, i, seqLengthArray[i],
                            maxSeqLength);
        if (layout == MCDNN_RNN_DATA_LAYOUT_SEQ_MAJOR_PACKED && i > 0 && seqLengthArray[i] > seqLengthArray[i - 1])
            return MORE_BAD("%s: the packed layout needs sequence lengths in decreasing order (seqLengthArray[%d] = "
                            "%d follows %d)", api, i, seqLengthArray[i], seqLengthArray[i - 1]);
    }
    if ((long long)maxSeqLength * batchSize * vectorSize > 2147483647LL)
        return MORE_NOT_SUPPORTED("%s: the data exceeds 2 Giga-elements", api);
    int32_t *lengths = opemu_mcdnn_copy_ints(seqLengthArray, (size_t)batchSize);
    if (lengths == NULL)
        return opemu_mcdnn_fail(MCDNN_STATUS_ALLOC_FAILED, "%s: out of host memory", api);
    free(d->seqLengthArray);
    d->seqLengthArray = lengths;
    d->dataType = dataType;
    d->layout = layout;
    d->maxSeqLength = maxSeqLength;
    d->batchSize = batchSize;
    d->vectorSize = vectorSize;
    d->has_fill = opemu_mcdnn_copy_fill(d->paddingFill, dataType, paddingFill);
    d->is_set = 1;
    return MCDNN_STATUS_SUCCESS;
}

OPEMU_EXPORT mcdnnStatus_t mcdnnGetRNNDataDescriptor(mcdnnRNNDataDescriptor_t rnnDataDesc, mcdnnDataType_t *dataType,
                                                     mcdnnRNNDataLayout_t *layout, int *maxSeqLength, int *batchSize,
                                                     int *vectorSize, int arrayLengthRequested, int seqLengthArray[],
                                                     void *paddingFill)
{
    const char *api = "mcdnnGetRNNDataDescriptor";
    struct mcdnnRNNDataStruct *d = LIVE_DATA(rnnDataDesc, api);
    if (d == NULL)
        return MCDNN_STATUS_BAD_PARAM;
    if (!d->is_set)
        return MORE_BAD("%s: the descriptor was never set", api);
    if (!dataType || !layout || !maxSeqLength || !batchSize || !vectorSize)
        return MORE_BAD("%s: an output pointer is null", api);
    if (arrayLengthRequested < 0 || (arrayLengthRequested > 0 && seqLengthArray == NULL))
        return MORE_BAD("%s: arrayLengthRequested %d with seqLengthArray %p", api, arrayLengthRequested,
                        (void *)seqLengthArray);
    *dataType = (mcdnnDataType_t)d->dataType;
    *layout = (mcdnnRNNDataLayout_t)d->layout;
    *maxSeqLength = d->maxSeqLength;
    *batchSize = d->batchSize;
    *vectorSize = d->vectorSize;
    for (int i = 0; i < arrayLengthRequested && i < d->batchSize; i++)
        seqLengthArray[i] = d->seqLengthArray[i];
    if (paddingFill != NULL)
        memcpy(paddingFill, d->paddingFill, (size_t)opemu_mcdnn_element_size(d->dataType));
    return MCDNN_STATUS_SUCCESS;
}

/* ---- CTC-loss descriptors ----
 * cudnnSetCTCLossDescriptor leaves normalization NONE and gradients NOT_PROPAGATE_NAN; the legacy
 * routine's labels are at most 256 long, the maximum the _v8 setter makes explicit. */

#define CTC_DEFAULT_MAX_LABEL_LENGTH 256

OPEMU_EXPORT mcdnnStatus_t mcdnnCreateCTCLossDescriptor(mcdnnCTCLossDescriptor_t *ctcLossDesc)
{
    return opemu_mcdnn_create((void **)ctcLossDesc, sizeof(struct mcdnnCTCLossStruct), OPEMU_KIND_MCDNN_CTC_LOSS,
                              "mcdnnCreateCTCLossDescriptor");
}

OPEMU_EXPORT mcdnnStatus_t mcdnnDestroyCTCLossDescriptor(mcdnnCTCLossDescriptor_t ctcLossDesc)
{
    return opemu_mcdnn_destroy(ctcLossDesc, OPEMU_KIND_MCDNN_CTC_LOSS, "mcdnnCTCLossDescriptor_t",
                               "mcdnnDestroyCTCLossDescriptor");
}

static mcdnnStatus_t set_ctc(mcdnnCTCLossDescriptor_t ctcLossDesc, mcdnnDataType_t compType,
                             mcdnnLossNormalizationMode_t normMode, mcdnnNanPropagation_t gradMode,
                             int maxLabelLength, const char *api)
{
    struct mcdnnCTCLossStruct *d = LIVE_CTC(ctcLossDesc, api);
    if (d == NULL)
        return MCDNN_STATUS_BAD_PARAM;
    if (opemu_mcdnn_element_size(compType) == 0)
        return MORE_BAD("%s: invalid mcdnnDataType_t %d", api, (int)compType);
    if ((unsigned)normMode > MCDNN_LOSS_NORMALIZATION_SOFTMAX || (unsigned)gradMode > MCDNN_PROPAGATE_NAN)
        return MORE_BAD("%s: invalid normMode %d or gradMode %d", api, (int)normMode, (int)gradMode);
    if (maxLabelLength <= 0)
        return MORE_BAD("%s: maxLabelLength %d must be positive", api, maxLabelLength);
    d->compType = compType;
    d->normMode = normMode;
    d->gradMode = gradMode;
    d->maxLabelLength = maxLabelLength;
    d->is_set = 1;
    return MCDNN_STATUS_SUCCESS;
}

OPEMU_EXPORT mcdnnStatus_t mcdnnSetCTCLossDescriptor(mcdnnCTCLossDescriptor_t ctcLossDesc, mcdnnDataType_t compType)
{
    return set_ctc(ctcLossDesc, compType, MCDNN_LOSS_NORMALIZATION_NONE, MCDNN_NOT_PROPAGATE_NAN,
                   CTC_DEFAULT_MAX_LABEL_LENGTH, "mcdnnSetCTCLossDescriptor");
}

OPEMU_EXPORT mcdnnStatus_t mcdnnSetCTCLossDescriptorEx(mcdnnCTCLossDescriptor_t ctcLossDesc, mcdnnDataType_t compType,
                                                       mcdnnLossNormalizationMode_t normMode,
                                                       mcdnnNanPropagation_t gradMode)
{
    return set_ctc(ctcLossDesc, compType, normMode, gradMode, CTC_DEFAULT_MAX_LABEL_LENGTH,
                   "mcdnnSetCTCLossDescriptorEx");
}

OPEMU_EXPORT mcdnnStatus_t mcdnnSetCTCLossDescriptor_v8(mcdnnCTCLossDescriptor_t ctcLossDesc,
                                                        mcdnnDataType_t compType,
                                                        mcdnnLossNormalizationMode_t normMode,
                                                        mcdnnNanPropagation_t gradMode, int maxLabelLength)
{
    return set_ctc(ctcLossDesc, compType, normMode, gradMode, maxLabelLength, "mcdnnSetCTCLossDescriptor_v8");
}

static mcdnnStatus_t get_ctc(mcdnnCTCLossDescriptor_t ctcLossDesc, mcdnnDataType_t *compType,
                             mcdnnLossNormalizationMode_t *normMode, mcdnnNanPropagation_t *gradMode,
                             int *maxLabelLength, const char *api)
{
    struct mcdnnCTCLossStruct *d = LIVE_CTC(ctcLossDesc, api);
    if (d == NULL)
        return MCDNN_STATUS_BAD_PARAM;
    if (compType == NULL)
        return MORE_BAD("%s: compType is null", api);
    *compType = (mcdnnDataType_t)d->compType;
    PUT(normMode, (mcdnnLossNormalizationMode_t)d->normMode);
    PUT(gradMode, (mcdnnNanPropagation_t)d->gradMode);
    PUT(maxLabelLength, d->maxLabelLength);
    return MCDNN_STATUS_SUCCESS;
}

OPEMU_EXPORT mcdnnStatus_t mcdnnGetCTCLossDescriptor(mcdnnCTCLossDescriptor_t ctcLossDesc, mcdnnDataType_t *compType)
{
    return get_ctc(ctcLossDesc, compType, NULL, NULL, NULL, "mcdnnGetCTCLossDescriptor");
}

OPEMU_EXPORT mcdnnStatus_t mcdnnGetCTCLossDescriptorEx(mcdnnCTCLossDescriptor_t ctcLossDesc, mcdnnDataType_t *compType,
                                                       mcdnnLossNormalizationMode_t *normMode,
                                                       mcdnnNanPropagation_t *gradMode)
{
    if (normMode == NULL || gradMode == NULL)
        return MORE_BAD("mcdnnGetCTCLossDescriptorEx: an output pointer is null");
    return get_ctc(ctcLossDesc, compType, normMode, gradMode, NULL, "mcdnnGetCTCLossDescriptorEx");
}

OPEMU_EXPORT mcdnnStatus_t mcdnnGetCTCLossDescriptor_v8(mcdnnCTCLossDescriptor_t ctcLossDesc,
                                                        mcdnnDataType_t *compType,
                                                        mcdnnLossNormalizationMode_t *normMode,
                                                        mcdnnNanPropagation_t *gradMode, int *maxLabelLength)
{
    if (normMode == NULL || gradMode == NULL || maxLabelLength == NULL)
        return MORE_BAD("mcdnnGetCTCLossDescriptor_v8: an output pointer is null");
    return get_ctc(ctcLossDesc, compType, normMode, gradMode, maxLabelLength, "mcdnnGetCTCLossDescriptor_v8");
}
