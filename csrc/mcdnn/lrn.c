/* mcDNN LRN descriptors: the window, alpha, beta and k of local response normalization, with cuDNN's
 * defaults and limits (cuDNN 8.5's rules, renamed: reference mcdnn.md §3). */
#include <stdlib.h>
#include "mcdnn_internal.h"

#define bad_param(...) opemu_mcdnn_fail(MCDNN_STATUS_BAD_PARAM, __VA_ARGS__)

static struct mcdnnLRNStruct *live_lrn(const void *desc, const char *api)
{
    return opemu_mcdnn_live(desc, OPEMU_KIND_MCDNN_LRN, "mcdnnLRNDescriptor_t", api);
}

OPEMU_EXPORT mcdnnStatus_t mcdnnCreateLRNDescriptor(mcdnnLRNDescriptor_t *normDesc)
{
    if (normDesc == NULL)
        return bad_param("mcdnnCreateLRNDescriptor: normDesc is null");
    struct mcdnnLRNStruct *d = calloc(1, sizeof *d);
    if (d == NULL)
        return MCDNN_STATUS_ALLOC_FAILED;
    d->lrnN = 5;
    d->lrnAlpha = 1e-4;
    d->lrnBeta = 0.75;
    d->lrnK = 2.0;
    opemu_handle_add(d, OPEMU_KIND_MCDNN_LRN);
    *normDesc = d;
    return MCDNN_STATUS_SUCCESS;
}

OPEMU_EXPORT mcdnnStatus_t mcdnnSetLRNDescriptor(mcdnnLRNDescriptor_t normDesc, unsigned lrnN, double lrnAlpha,
                                                 double lrnBeta, double lrnK)
{
    const char *api = "mcdnnSetLRNDescriptor";
    struct mcdnnLRNStruct *d = live_lrn(normDesc, api);
    if (d == NULL)
        return MCDNN_STATUS_BAD_PARAM;
    if (lrnN < MCDNN_LRN_MIN_N || lrnN > MCDNN_LRN_MAX_N || !(lrnK >= MCDNN_LRN_MIN_K) ||
        !(lrnBeta >= MCDNN_LRN_MIN_BETA))
        return bad_param("%s: lrnN %u must be in [%d, %d], lrnK %g >= %g and lrnBeta %g >= %g", api, lrnN,
                         MCDNN_LRN_MIN_N, MCDNN_LRN_MAX_N, lrnK, MCDNN_LRN_MIN_K, lrnBeta, MCDNN_LRN_MIN_BETA);
    d->lrnN = lrnN;
    d->lrnAlpha = lrnAlpha;
    d->lrnBeta = lrnBeta;
    d->lrnK = lrnK;
    return MCDNN_STATUS_SUCCESS;
}

OPEMU_EXPORT mcdnnStatus_t mcdnnGetLRNDescriptor(mcdnnLRNDescriptor_t normDesc, unsigned *lrnN, double *lrnAlpha,
                                                 double *lrnBeta, double *lrnK)
{
    const char *api = "mcdnnGetLRNDescriptor";
    struct mcdnnLRNStruct *d = live_lrn(normDesc, api);
    if (d == NULL)
        return MCDNN_STATUS_BAD_PARAM;
    if (!lrnN || !lrnAlpha || !lrnBeta || !lrnK)
        return bad_param("%s: an output pointer is null", api);
    *lrnN = d->lrnN;
    *lrnAlpha = d->lrnAlpha;
    *lrnBeta = d->lrnBeta;
    *lrnK = d->lrnK;
    return MCDNN_STATUS_SUCCESS;
}

OPEMU_EXPORT mcdnnStatus_t mcdnnDestroyLRNDescriptor(mcdnnLRNDescriptor_t lrnDesc)
{
    return opemu_mcdnn_destroy(lrnDesc, OPEMU_KIND_MCDNN_LRN, "mcdnnLRNDescriptor_t",
                               "mcdnnDestroyLRNDescriptor");
}
