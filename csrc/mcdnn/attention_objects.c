/* mcDNN objects of the multi-head attention routines: attention descriptors and sequence-data
 * descriptors. Cheap calls, all in C; the buffer and weight queries and the routines are Python
 * (python/opemu/ops/mcdnn/attention*.py) reading these structs (adv_descriptors.h). Rules are cuDNN 8.9's. */
#include <stdlib.h>
#include <string.h>
#include "mcdnn_internal.h"

#define LIVE_ATTN(p, api) ((struct mcdnnAttnStruct *)opemu_mcdnn_live((p), OPEMU_KIND_MCDNN_ATTENTION, \
                                                                       "mcdnnAttnDescriptor_t", (api)))
#define LIVE_SEQ(p, api) ((struct mcdnnSeqDataStruct *)opemu_mcdnn_live((p), OPEMU_KIND_MCDNN_SEQ_DATA, \
                                                                         "mcdnnSeqDataDescriptor_t", (api)))
#define ATTN_MODE_BITS (MCDNN_ATTN_QUERYMAP_ONE_TO_ONE | MCDNN_ATTN_ENABLE_PROJ_BIASES)

OPEMU_EXPORT mcdnnStatus_t mcdnnCreateAttnDescriptor(mcdnnAttnDescriptor_t *attnDesc)
{
    return opemu_mcdnn_create((void **)attnDesc, sizeof(struct mcdnnAttnStruct), OPEMU_KIND_MCDNN_ATTENTION,
                              "mcdnnCreateAttnDescriptor");
}

OPEMU_EXPORT mcdnnStatus_t mcdnnDestroyAttnDescriptor(mcdnnAttnDescriptor_t attnDesc)
{
    return opemu_mcdnn_destroy(attnDesc, OPEMU_KIND_MCDNN_ATTENTION, "mcdnnAttnDescriptor_t",
                               "mcdnnDestroyAttnDescriptor");
}

/* cuDNN's attention configurations: HALF data with HALF or FLOAT compute, FLOAT with FLOAT, DOUBLE with
 * DOUBLE. */
static int attn_precision(int dataType, int computePrec)
{
    switch (dataType) {
    case MCDNN_DATA_HALF: return computePrec == MCDNN_DATA_HALF || computePrec == MCDNN_DATA_FLOAT;
    case MCDNN_DATA_FLOAT: return computePrec == MCDNN_DATA_FLOAT;
    case MCDNN_DATA_DOUBLE: return computePrec == MCDNN_DATA_DOUBLE;
    }
    return 0;
}

OPEMU_EXPORT mcdnnStatus_t mcdnnSetAttnDescriptor(mcdnnAttnDescriptor_t attnDesc, unsigned attnMode, int nHeads,
                                                  double smScaler, mcdnnDataType_t dataType,
                                                  mcdnnDataType_t computePrec, mcdnnMathType_t mathType,
                                                  mcdnnDropoutDescriptor_t attnDropoutDesc,
                                                  mcdnnDropoutDescriptor_t postDropoutDesc, int qSize, int kSize,
                                                  int vSize, int qProjSize, int kProjSize, int vProjSize,
                                                  int oProjSize, int qoMaxSeqLength, int kvMaxSeqLength,
                                                  int maxBatchSize, int maxBeamSize)
{
    const char *api = "mcdnnSetAttnDescriptor";
    struct mcdnnAttnStruct *d = LIVE_ATTN(attnDesc, api);
    if (d == NULL)
        return MCDNN_STATUS_BAD_PARAM;
    if (attnMode & ~(unsigned)ATTN_MODE_BITS)
        return MORE_BAD("%s: attnMode 0x%x holds bits that are neither a query map nor a bias setting", api, attnMode);
    if (nHeads <= 0 || qSize <= 0 || kSize <= 0 || vSize <= 0)
        return MORE_BAD("%s: nHeads %d, qSize %d, kSize %d and vSize %d must be positive", api, nHeads, qSize, kSize,
                        vSize);
    if (qProjSize < 0 || kProjSize < 0 || vProjSize < 0 || oProjSize < 0)
        return MORE_BAD("%s: projection sizes must not be negative (q %d, k %d, v %d, o %d)", api, qProjSize,
                        kProjSize, vProjSize, oProjSize);
    if (qoMaxSeqLength <= 0 || kvMaxSeqLength <= 0 || maxBatchSize <= 0 || maxBeamSize <= 0)
        return MORE_BAD("%s: qoMaxSeqLength %d, kvMaxSeqLength %d, maxBatchSize %d and maxBeamSize %d must be "
                        "positive", api, qoMaxSeqLength, kvMaxSeqLength, maxBatchSize, maxBeamSize);
    if (!(smScaler >= 0))
        return MORE_BAD("%s: smScaler %g is negative", api, smScaler);
    if ((qProjSize ? qProjSize : qSize) != (kProjSize ? kProjSize : kSize))
        return MORE_BAD("%s: queries and keys meet in a dot product: their projected lengths (q %d, k %d) must be "
                        "equal", api, qProjSize ? qProjSize : qSize, kProjSize ? kProjSize : kSize);
    if ((unsigned)mathType > MCDNN_FMA_MATH)
        return MORE_BAD("%s: invalid mcdnnMathType_t %d", api, (int)mathType);
    if ((attnDropoutDesc != NULL && !opemu_handle_is(attnDropoutDesc, OPEMU_KIND_MCDNN_DROPOUT)) ||
        (postDropoutDesc != NULL && !opemu_handle_is(postDropoutDesc, OPEMU_KIND_MCDNN_DROPOUT)))
        return MORE_BAD("%s: a dropout descriptor is not a live mcdnnDropoutDescriptor_t", api);
    if (opemu_mcdnn_element_size(dataType) == 0 || opemu_mcdnn_element_size(computePrec) == 0)
        return MORE_BAD("%s: invalid data type %d or compute precision %d", api, (int)dataType, (int)computePrec);
    if (!attn_precision(dataType, computePrec))
        return MORE_NOT_SUPPORTED("%s: data type %d with compute precision %d is not an attention configuration "
                                  "(HALF with HALF or FLOAT, FLOAT with FLOAT, DOUBLE with DOUBLE)", api,
                                  (int)dataType, (int)computePrec);
    d->attnMode = attnMode;
    d->nHeads = nHeads;
    d->smScaler = smScaler;
    d->dataType = dataType;
    d->computePrec = computePrec;
    d->mathType = mathType;
    d->attnDropoutDesc = attnDropoutDesc;
    d->postDropoutDesc = postDropoutDesc;
    d->qSize = qSize;
    d->kSize = kSize;
    d->vSize = vSize;
    d->qProjSize = qProjSize;
    d->kProjSize = kProjSize;
    d->vProjSize = vProjSize;
    d->oProjSize = oProjSize;
    d->qoMaxSeqLength = qoMaxSeqLength;
    d->kvMaxSeqLength = kvMaxSeqLength;
    d->maxBatchSize = maxBatchSize;
    d->maxBeamSize = maxBeamSize;
    d->is_set = 1;
    return MCDNN_STATUS_SUCCESS;
}

#define PUT(out, value) do { if ((out) != NULL) *(out) = (value); } while (0)

OPEMU_EXPORT mcdnnStatus_t mcdnnGetAttnDescriptor(mcdnnAttnDescriptor_t attnDesc, unsigned *attnMode, int *nHeads,
                                                  double *smScaler, mcdnnDataType_t *dataType,
                                                  mcdnnDataType_t *computePrec, mcdnnMathType_t *mathType,
                                                  mcdnnDropoutDescriptor_t *attnDropoutDesc,
                                                  mcdnnDropoutDescriptor_t *postDropoutDesc, int *qSize, int *kSize,
                                                  int *vSize, int *qProjSize, int *kProjSize, int *vProjSize,
                                                  int *oProjSize, int *qoMaxSeqLength, int *kvMaxSeqLength,
                                                  int *maxBatchSize, int *maxBeamSize)
{
    struct mcdnnAttnStruct *d = LIVE_ATTN(attnDesc, "mcdnnGetAttnDescriptor");
    if (d == NULL)
        return MCDNN_STATUS_BAD_PARAM;
    if (!d->is_set)
        return MORE_BAD("mcdnnGetAttnDescriptor: the descriptor was never set");
    PUT(attnMode, d->attnMode);
    PUT(nHeads, d->nHeads);
    PUT(smScaler, d->smScaler);
    PUT(dataType, (mcdnnDataType_t)d->dataType);
    PUT(computePrec, (mcdnnDataType_t)d->computePrec);
    PUT(mathType, (mcdnnMathType_t)d->mathType);
    PUT(attnDropoutDesc, (mcdnnDropoutDescriptor_t)d->attnDropoutDesc);
    PUT(postDropoutDesc, (mcdnnDropoutDescriptor_t)d->postDropoutDesc);
    PUT(qSize, d->qSize);
    PUT(kSize, d->kSize);
    PUT(vSize, d->vSize);
    PUT(qProjSize, d->qProjSize);
    PUT(kProjSize, d->kProjSize);
    PUT(vProjSize, d->vProjSize);
    PUT(oProjSize, d->oProjSize);
    PUT(qoMaxSeqLength, d->qoMaxSeqLength);
    PUT(kvMaxSeqLength, d->kvMaxSeqLength);
    PUT(maxBatchSize, d->maxBatchSize);
    PUT(maxBeamSize, d->maxBeamSize);
    return MCDNN_STATUS_SUCCESS;
}

/* ---- sequence data ---- */

OPEMU_EXPORT mcdnnStatus_t mcdnnCreateSeqDataDescriptor(mcdnnSeqDataDescriptor_t *seqDataDesc)
{
    return opemu_mcdnn_create((void **)seqDataDesc, sizeof(struct mcdnnSeqDataStruct), OPEMU_KIND_MCDNN_SEQ_DATA,
                              "mcdnnCreateSeqDataDescriptor");
}

OPEMU_EXPORT mcdnnStatus_t mcdnnDestroySeqDataDescriptor(mcdnnSeqDataDescriptor_t seqDataDesc)
{
    struct mcdnnSeqDataStruct *d = seqDataDesc;
    if (d != NULL && opemu_handle_is(d, OPEMU_KIND_MCDNN_SEQ_DATA))
        free(d->seqLengthArray);
    return opemu_mcdnn_destroy(seqDataDesc, OPEMU_KIND_MCDNN_SEQ_DATA, "mcdnnSeqDataDescriptor_t",
                               "mcdnnDestroySeqDataDescriptor");
}

/* Four dims indexed by axis; `axes` a permutation of the axes, outermost first, the vector innermost; one
 * length per batch x beam element, each in [0, time]. */
OPEMU_EXPORT mcdnnStatus_t mcdnnSetSeqDataDescriptor(mcdnnSeqDataDescriptor_t seqDataDesc, mcdnnDataType_t dataType,
                                                     int nbDims, const int dimA[], const mcdnnSeqDataAxis_t axes[],
                                                     size_t seqLengthArraySize, const int seqLengthArray[],
                                                     void *paddingFill)
{
    const char *api = "mcdnnSetSeqDataDescriptor";
    struct mcdnnSeqDataStruct *d = LIVE_SEQ(seqDataDesc, api);
    if (d == NULL)
        return MCDNN_STATUS_BAD_PARAM;
    if (opemu_mcdnn_element_size(dataType) == 0)
        return MORE_BAD("%s: invalid mcdnnDataType_t %d", api, (int)dataType);
    if (nbDims != MCDNN_SEQDATA_DIM_COUNT)
        return MORE_BAD("%s: nbDims %d is not %d", api, nbDims, MCDNN_SEQDATA_DIM_COUNT);
    if (dimA == NULL || axes == NULL || seqLengthArray == NULL)
        return MORE_BAD("%s: dimA, axes and seqLengthArray must not be null", api);
    int seen = 0;
    long long elements = 1;
    for (int i = 0; i < MCDNN_SEQDATA_DIM_COUNT; i++) {
        if (dimA[i] <= 0)
            return MORE_BAD("%s: dimA[%d] = %d must be positive", api, i, dimA[i]);
        elements *= dimA[i];
        if ((unsigned)axes[i] >= MCDNN_SEQDATA_DIM_COUNT || (seen & (1 << axes[i])))
            return MORE_BAD("%s: axes is not a permutation of the four mcdnnSeqDataAxis_t values", api);
        seen |= 1 << axes[i];
    }
    if (axes[MCDNN_SEQDATA_DIM_COUNT - 1] != MCDNN_SEQDATA_VECT_DIM)
        return MORE_NOT_SUPPORTED("%s: the vector dimension must be innermost (axes[3] = %d)", api, (int)axes[3]);
    if (elements > 2147483647LL)
        return MORE_NOT_SUPPORTED("%s: the data exceeds 2 Giga-elements", api);
    size_t sequences = (size_t)dimA[MCDNN_SEQDATA_BATCH_DIM] * (size_t)dimA[MCDNN_SEQDATA_BEAM_DIM];
    if (seqLengthArraySize != sequences)
        return MORE_BAD("%s: seqLengthArraySize %zu is not batch x beam = %zu", api, seqLengthArraySize, sequences);
    for (size_t i = 0; i < sequences; i++)
        if (seqLengthArray[i] < 0 || seqLengthArray[i] > dimA[MCDNN_SEQDATA_TIME_DIM])
            return MORE_BAD("%s: seqLengthArray[%zu] = %d is outside [0, %d]", api, i, seqLengthArray[i],
                            dimA[MCDNN_SEQDATA_TIME_DIM]);
    int32_t *lengths = opemu_mcdnn_copy_ints(seqLengthArray, sequences);
    if (lengths == NULL)
        return opemu_mcdnn_fail(MCDNN_STATUS_ALLOC_FAILED, "%s: out of host memory", api);
    free(d->seqLengthArray);
    d->seqLengthArray = lengths;
    d->seqLengthArraySize = sequences;
    d->dataType = dataType;
    for (int i = 0; i < MCDNN_SEQDATA_DIM_COUNT; i++) {
        d->dimA[i] = dimA[i];
        d->axes[i] = axes[i];
    }
    d->has_fill = opemu_mcdnn_copy_fill(d->paddingFill, dataType, paddingFill);
    d->is_set = 1;
    return MCDNN_STATUS_SUCCESS;
}

OPEMU_EXPORT mcdnnStatus_t mcdnnGetSeqDataDescriptor(const mcdnnSeqDataDescriptor_t seqDataDesc,
                                                     mcdnnDataType_t *dataType, int *nbDims, int nbDimsRequested,
                                                     int dimA[], mcdnnSeqDataAxis_t axes[], size_t *seqLengthArraySize,
                                                     size_t seqLengthSizeRequested, int seqLengthArray[],
                                                     void *paddingFill)
{
    const char *api = "mcdnnGetSeqDataDescriptor";
    struct mcdnnSeqDataStruct *d = LIVE_SEQ(seqDataDesc, api);
    if (d == NULL)
        return MCDNN_STATUS_BAD_PARAM;
    if (!d->is_set)
        return MORE_BAD("%s: the descriptor was never set", api);
    if (!dataType || !nbDims || !seqLengthArraySize || nbDimsRequested < 0 ||
        (nbDimsRequested > 0 && (!dimA || !axes)) || (seqLengthSizeRequested > 0 && !seqLengthArray))
        return MORE_BAD("%s: an output pointer is null or a requested size is negative", api);
    *dataType = (mcdnnDataType_t)d->dataType;
    *nbDims = MCDNN_SEQDATA_DIM_COUNT;
    for (int i = 0; i < nbDimsRequested && i < MCDNN_SEQDATA_DIM_COUNT; i++) {
        dimA[i] = d->dimA[i];
        axes[i] = (mcdnnSeqDataAxis_t)d->axes[i];
    }
    *seqLengthArraySize = d->seqLengthArraySize;
    for (size_t i = 0; i < seqLengthSizeRequested && i < d->seqLengthArraySize; i++)
        seqLengthArray[i] = d->seqLengthArray[i];
    if (paddingFill != NULL)
        memcpy(paddingFill, d->paddingFill, (size_t)opemu_mcdnn_element_size(d->dataType));
    return MCDNN_STATUS_SUCCESS;
}
