/* mcDNN activation descriptors: mode, NaN propagation, clipping/alpha coefficient and swish beta
 * (cuDNN 8.5's rules, renamed: reference mcdnn.md §3). */
#include <stdlib.h>
#include "mcdnn_internal.h"

#define bad_param(...) opemu_mcdnn_fail(MCDNN_STATUS_BAD_PARAM, __VA_ARGS__)

static struct mcdnnActivationStruct *live_activation(const void *desc, const char *api)
{
    return opemu_mcdnn_live(desc, OPEMU_KIND_MCDNN_ACTIVATION, "mcdnnActivationDescriptor_t", api);
}

OPEMU_EXPORT mcdnnStatus_t mcdnnCreateActivationDescriptor(mcdnnActivationDescriptor_t *activationDesc)
{
    if (activationDesc == NULL)
        return bad_param("mcdnnCreateActivationDescriptor: activationDesc is null");
    struct mcdnnActivationStruct *d = calloc(1, sizeof *d);
    if (d == NULL)
        return MCDNN_STATUS_ALLOC_FAILED;
    d->swishBeta = 1.0; /* swish(x) = x * sigmoid(x) until mcdnnSetActivationDescriptorSwishBeta */
    opemu_handle_add(d, OPEMU_KIND_MCDNN_ACTIVATION);
    *activationDesc = d;
    return MCDNN_STATUS_SUCCESS;
}

OPEMU_EXPORT mcdnnStatus_t mcdnnSetActivationDescriptor(mcdnnActivationDescriptor_t activationDesc,
                                                        mcdnnActivationMode_t mode, mcdnnNanPropagation_t reluNanOpt,
                                                        double coef)
{
    const char *api = "mcdnnSetActivationDescriptor";
    struct mcdnnActivationStruct *d = live_activation(activationDesc, api);
    if (d == NULL)
        return MCDNN_STATUS_BAD_PARAM;
    if ((unsigned)mode > MCDNN_ACTIVATION_SWISH)
        return bad_param("%s: invalid mcdnnActivationMode_t %d", api, (int)mode);
    if ((unsigned)reluNanOpt > MCDNN_PROPAGATE_NAN)
        return bad_param("%s: invalid mcdnnNanPropagation_t %d", api, (int)reluNanOpt);
    d->mode = mode;
    d->reluNanOpt = reluNanOpt;
    d->coef = coef;
    d->is_set = 1;
    return MCDNN_STATUS_SUCCESS;
}

OPEMU_EXPORT mcdnnStatus_t mcdnnGetActivationDescriptor(const mcdnnActivationDescriptor_t activationDesc,
                                                        mcdnnActivationMode_t *mode,
                                                        mcdnnNanPropagation_t *reluNanOpt, double *coef)
{
    const char *api = "mcdnnGetActivationDescriptor";
    struct mcdnnActivationStruct *d = live_activation(activationDesc, api);
    if (d == NULL)
        return MCDNN_STATUS_BAD_PARAM;
    if (mode == NULL || reluNanOpt == NULL || coef == NULL)
        return bad_param("%s: an output pointer is null", api);
    *mode = (mcdnnActivationMode_t)d->mode;
    *reluNanOpt = (mcdnnNanPropagation_t)d->reluNanOpt;
    *coef = d->coef;
    return MCDNN_STATUS_SUCCESS;
}

OPEMU_EXPORT mcdnnStatus_t mcdnnSetActivationDescriptorSwishBeta(mcdnnActivationDescriptor_t activationDesc,
                                                                 double swish_beta)
{
    struct mcdnnActivationStruct *d = live_activation(activationDesc, "mcdnnSetActivationDescriptorSwishBeta");
    if (d == NULL)
        return MCDNN_STATUS_BAD_PARAM;
    d->swishBeta = swish_beta;
    return MCDNN_STATUS_SUCCESS;
}

OPEMU_EXPORT mcdnnStatus_t mcdnnGetActivationDescriptorSwishBeta(mcdnnActivationDescriptor_t activationDesc,
                                                                 double *swish_beta)
{
    struct mcdnnActivationStruct *d = live_activation(activationDesc, "mcdnnGetActivationDescriptorSwishBeta");
    if (d == NULL)
        return MCDNN_STATUS_BAD_PARAM;
    if (swish_beta == NULL)
        return bad_param("mcdnnGetActivationDescriptorSwishBeta: swish_beta is null");
    *swish_beta = d->swishBeta;
    return MCDNN_STATUS_SUCCESS;
}

OPEMU_EXPORT mcdnnStatus_t mcdnnDestroyActivationDescriptor(mcdnnActivationDescriptor_t activationDesc)
{
    return opemu_mcdnn_destroy(activationDesc, OPEMU_KIND_MCDNN_ACTIVATION, "mcdnnActivationDescriptor_t",
                               "mcdnnDestroyActivationDescriptor");
}
