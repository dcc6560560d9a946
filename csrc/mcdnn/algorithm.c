/* mcDNN's algorithm descriptors and algorithm-performance objects (deprecated in cuDNN 8, still in
 * ops_infer) and their serialisation (Get…SpaceSize, Save, Restore). All C.
 *
 * An algorithm descriptor holds one mcdnnAlgorithm_t; a performance object an algorithm descriptor, a
 * status, a time and a memory size. Saved algorithm space is a small record: a tag that says it is
 * one, then the mcdnnAlgorithm_t; Restore refuses a buffer without the tag (BAD_PARAM). */
#include <string.h>
#include "mcdnn_internal.h"

#define FAIL opemu_mcdnn_fail
#define LIVE_ALGO(p, api) ((struct algorithm *)opemu_mcdnn_live((p), OPEMU_KIND_MCDNN_ALGORITHM, \
                                                                "mcdnnAlgorithmDescriptor_t", (api)))
#define LIVE_PERF(p, api) ((struct performance *)opemu_mcdnn_live((p), OPEMU_KIND_MCDNN_ALGORITHM_PERF, \
                                                                  "mcdnnAlgorithmPerformance_t", (api)))

struct algorithm {
    mcdnnAlgorithm_t value;
};

struct performance {
    mcdnnAlgorithmDescriptor_t algo;
    mcdnnStatus_t status;
    float time;
    size_t memory;
};

static const char SAVED_TAG[8] = {'o', 'p', 'e', 'm', 'u', 'a', 'l', 'g'};

OPEMU_EXPORT mcdnnStatus_t mcdnnCreateAlgorithmDescriptor(mcdnnAlgorithmDescriptor_t *algoDesc)
{
    return opemu_mcdnn_create((void **)algoDesc, sizeof(struct algorithm), OPEMU_KIND_MCDNN_ALGORITHM,
                              "mcdnnCreateAlgorithmDescriptor");
}

OPEMU_EXPORT mcdnnStatus_t mcdnnDestroyAlgorithmDescriptor(mcdnnAlgorithmDescriptor_t algoDesc)
{
    return opemu_mcdnn_destroy(algoDesc, OPEMU_KIND_MCDNN_ALGORITHM, "mcdnnAlgorithmDescriptor_t",
                               "mcdnnDestroyAlgorithmDescriptor");
}

OPEMU_EXPORT mcdnnStatus_t mcdnnSetAlgorithmDescriptor(mcdnnAlgorithmDescriptor_t algoDesc, mcdnnAlgorithm_t algorithm)
{
    struct algorithm *d = LIVE_ALGO(algoDesc, "mcdnnSetAlgorithmDescriptor");
    if (d == NULL)
        return MCDNN_STATUS_BAD_PARAM;
    d->value = algorithm;
    return MCDNN_STATUS_SUCCESS;
}

OPEMU_EXPORT mcdnnStatus_t mcdnnGetAlgorithmDescriptor(const mcdnnAlgorithmDescriptor_t algoDesc,
                                                       mcdnnAlgorithm_t *algorithm)
{
    struct algorithm *d = LIVE_ALGO(algoDesc, "mcdnnGetAlgorithmDescriptor");
    if (d == NULL)
        return MCDNN_STATUS_BAD_PARAM;
    if (algorithm == NULL)
        return FAIL(MCDNN_STATUS_BAD_PARAM, "mcdnnGetAlgorithmDescriptor: algorithm is null");
    *algorithm = d->value;
    return MCDNN_STATUS_SUCCESS;
}

OPEMU_EXPORT mcdnnStatus_t mcdnnCopyAlgorithmDescriptor(const mcdnnAlgorithmDescriptor_t src,
                                                        mcdnnAlgorithmDescriptor_t dest)
{
    struct algorithm *s = LIVE_ALGO(src, "mcdnnCopyAlgorithmDescriptor");
    struct algorithm *d = s ? LIVE_ALGO(dest, "mcdnnCopyAlgorithmDescriptor") : NULL;
    if (d == NULL)
        return MCDNN_STATUS_BAD_PARAM;
    d->value = s->value;
    return MCDNN_STATUS_SUCCESS;
}

/* numberToCreate objects into algoPerf[0..n); on a failure the ones made are destroyed again. */
OPEMU_EXPORT mcdnnStatus_t mcdnnCreateAlgorithmPerformance(mcdnnAlgorithmPerformance_t *algoPerf, int numberToCreate)
{
    const char *api = "mcdnnCreateAlgorithmPerformance";
    if (algoPerf == NULL || numberToCreate <= 0)
        return FAIL(MCDNN_STATUS_BAD_PARAM, "%s: algoPerf is null or numberToCreate %d is not positive", api,
                    numberToCreate);
    for (int i = 0; i < numberToCreate; i++) {
        mcdnnStatus_t rc = opemu_mcdnn_create((void **)&algoPerf[i], sizeof(struct performance),
                                              OPEMU_KIND_MCDNN_ALGORITHM_PERF, api);
        if (rc) {
            for (int j = 0; j < i; j++)
                opemu_mcdnn_destroy(algoPerf[j], OPEMU_KIND_MCDNN_ALGORITHM_PERF, "mcdnnAlgorithmPerformance_t", api);
            return rc;
        }
    }
    return MCDNN_STATUS_SUCCESS;
}

OPEMU_EXPORT mcdnnStatus_t mcdnnDestroyAlgorithmPerformance(mcdnnAlgorithmPerformance_t *algoPerf, int numberToDestroy)
{
    const char *api = "mcdnnDestroyAlgorithmPerformance";
    if (algoPerf == NULL || numberToDestroy <= 0)
        return FAIL(MCDNN_STATUS_BAD_PARAM, "%s: algoPerf is null or numberToDestroy %d is not positive", api,
                    numberToDestroy);
    for (int i = 0; i < numberToDestroy; i++)
        if (algoPerf[i] != NULL && !LIVE_PERF(algoPerf[i], api))
            return MCDNN_STATUS_BAD_PARAM;
    for (int i = 0; i < numberToDestroy; i++)
        opemu_mcdnn_destroy(algoPerf[i], OPEMU_KIND_MCDNN_ALGORITHM_PERF, "mcdnnAlgorithmPerformance_t", api);
    return MCDNN_STATUS_SUCCESS;
}

OPEMU_EXPORT mcdnnStatus_t mcdnnSetAlgorithmPerformance(mcdnnAlgorithmPerformance_t algoPerf,
                                                        mcdnnAlgorithmDescriptor_t algoDesc, mcdnnStatus_t status,
                                                        float time, size_t memory)
{
    const char *api = "mcdnnSetAlgorithmPerformance";
    struct performance *p = LIVE_PERF(algoPerf, api);
    if (p == NULL || !LIVE_ALGO(algoDesc, api))
        return MCDNN_STATUS_BAD_PARAM;
    p->algo = algoDesc;
    p->status = status;
    p->time = time;
    p->memory = memory;
    return MCDNN_STATUS_SUCCESS;
}

OPEMU_EXPORT mcdnnStatus_t mcdnnGetAlgorithmPerformance(const mcdnnAlgorithmPerformance_t algoPerf,
                                                        mcdnnAlgorithmDescriptor_t *algoDesc, mcdnnStatus_t *status,
                                                        float *time, size_t *memory)
{
    struct performance *p = LIVE_PERF(algoPerf, "mcdnnGetAlgorithmPerformance");
    if (p == NULL)
        return MCDNN_STATUS_BAD_PARAM;
    if (algoDesc)
        *algoDesc = p->algo;
    if (status)
        *status = p->status;
    if (time)
        *time = p->time;
    if (memory)
        *memory = p->memory;
    return MCDNN_STATUS_SUCCESS;
}

OPEMU_EXPORT mcdnnStatus_t mcdnnGetAlgorithmSpaceSize(mcdnnHandle_t handle, mcdnnAlgorithmDescriptor_t algoDesc,
                                                      size_t *algoSpaceSizeInBytes)
{
    const char *api = "mcdnnGetAlgorithmSpaceSize";
    if (!opemu_mcdnn_live(handle, OPEMU_KIND_MCDNN_HANDLE, "mcdnnHandle_t", api) || !LIVE_ALGO(algoDesc, api))
        return MCDNN_STATUS_BAD_PARAM;
    if (algoSpaceSizeInBytes == NULL)
        return FAIL(MCDNN_STATUS_BAD_PARAM, "%s: algoSpaceSizeInBytes is null", api);
    *algoSpaceSizeInBytes = sizeof SAVED_TAG + sizeof(mcdnnAlgorithm_t);
    return MCDNN_STATUS_SUCCESS;
}

/* algoSpace is host memory, as in cuDNN. */
OPEMU_EXPORT mcdnnStatus_t mcdnnSaveAlgorithm(mcdnnHandle_t handle, mcdnnAlgorithmDescriptor_t algoDesc,
                                              void *algoSpace, size_t algoSpaceSizeInBytes)
{
    const char *api = "mcdnnSaveAlgorithm";
    struct algorithm *d = NULL;
    if (!opemu_mcdnn_live(handle, OPEMU_KIND_MCDNN_HANDLE, "mcdnnHandle_t", api) || !(d = LIVE_ALGO(algoDesc, api)))
        return MCDNN_STATUS_BAD_PARAM;
    if (algoSpace == NULL || algoSpaceSizeInBytes < sizeof SAVED_TAG + sizeof d->value)
        return FAIL(MCDNN_STATUS_BAD_PARAM, "%s: algoSpace is null or smaller than mcdnnGetAlgorithmSpaceSize", api);
    memcpy(algoSpace, SAVED_TAG, sizeof SAVED_TAG);
    memcpy((char *)algoSpace + sizeof SAVED_TAG, &d->value, sizeof d->value);
    return MCDNN_STATUS_SUCCESS;
}

OPEMU_EXPORT mcdnnStatus_t mcdnnRestoreAlgorithm(mcdnnHandle_t handle, void *algoSpace, size_t algoSpaceSizeInBytes,
                                                 mcdnnAlgorithmDescriptor_t algoDesc)
{
    const char *api = "mcdnnRestoreAlgorithm";
    struct algorithm *d = NULL;
    if (!opemu_mcdnn_live(handle, OPEMU_KIND_MCDNN_HANDLE, "mcdnnHandle_t", api) || !(d = LIVE_ALGO(algoDesc, api)))
        return MCDNN_STATUS_BAD_PARAM;
    if (algoSpace == NULL || algoSpaceSizeInBytes < sizeof SAVED_TAG + sizeof d->value ||
        memcmp(algoSpace, SAVED_TAG, sizeof SAVED_TAG) != 0)
        return FAIL(MCDNN_STATUS_BAD_PARAM, "%s: algoSpace does not hold an algorithm saved by mcdnnSaveAlgorithm",
                    api);
    memcpy(&d->value, (const char *)algoSpace + sizeof SAVED_TAG, sizeof d->value);
    return MCDNN_STATUS_SUCCESS;
}
