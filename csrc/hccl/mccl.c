/* MCCL, MACA's NCCL-style collectives, on the same core as HCCL: the unique id is the root info's
 * address in 128 bytes, a communicator is the same rank view, the operations queue the same steps.
 * What differs is NCCL's: its status codes, its data type and reduction numbering (mcclAvg is the
 * rank-order sum divided by the number of ranks), MACA streams (NULL: the device's default
 * stream), and groups that may create several communicators from one thread (their creations run
 * together at mcclGroupEnd). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "mccl.h"
#include "call.h"

#define MCCL_AVG 4 /* the reducer's code for the average */

static mcclResult_t from_hccl(HcclResult rc)
{
    switch (rc) {
    case HCCL_SUCCESS: return mcclSuccess;
    case HCCL_E_PARA: case HCCL_E_PTR: case HCCL_E_NOT_SUPPORT: return mcclInvalidArgument;
    case HCCL_E_INTERNAL: return mcclInternalError;
    case HCCL_E_REMOTE: return mcclRemoteError;
    case HCCL_E_RUNTIME: return mcclUnhandledMacaError;
    default: return mcclSystemError;
    }
}

static mcclResult_t invalid(const char *api, const char *what)
{
    hccl_fail(HCCL_E_PARA, "%s: %s", api, what);
    return mcclInvalidArgument;
}

OPEMU_EXPORT mcclResult_t mcclGetVersion(int *version)
{
    if (version == NULL)
        return invalid("mcclGetVersion", "version is NULL");
    *version = MCCL_VERSION_CODE;
    return mcclSuccess;
}

OPEMU_EXPORT mcclResult_t mcclGetUniqueId(mcclUniqueId *uniqueId)
{
    if (uniqueId == NULL)
        return invalid("mcclGetUniqueId", "uniqueId is NULL");
    hccl_root_address address;
    HcclResult rc = hccl_root_open(&address);
    if (rc == HCCL_SUCCESS)
        hccl_unique_id_encode(&address, uniqueId->internal);
    return from_hccl(rc);
}

/* ---- creation, and creations deferred to the end of a group ---- */

typedef struct deferred {
    mcclComm_t *comm;
    int nranks, rank;
    int32_t device;
    hccl_root_address root;
    HcclResult rc;
    struct deferred *next;
} deferred;

static __thread deferred *pending_inits;

static HcclResult create(deferred *d)
{
    hccl_rank *r = NULL;
    HcclResult rc = hccl_comm_init(&d->root, 0, (uint32_t)d->nranks, (uint32_t)d->rank, NULL, 1, d->device, &r);
    *d->comm = rc == HCCL_SUCCESS ? (mcclComm_t)r : NULL;
    return rc;
}

static void *create_thread(void *arg)
{
    deferred *d = arg;
    d->rc = create(d);
    return NULL;
}

static mcclResult_t init_rank(const char *api, mcclComm_t *comm, int nranks, const mcclUniqueId *id, int rank,
                              const mcclConfig_t *config)
{
    if (comm == NULL)
        return invalid(api, "comm is NULL");
    if (nranks < 1 || rank < 0 || rank >= nranks) {
        hccl_fail(HCCL_E_PARA, "%s: rank %d is not in [0, nranks %d)", api, rank, nranks);
        return mcclInvalidArgument;
    }
    if (config != NULL && (config->magic != 0xcafebeef || config->size < offsetof(mcclConfig_t, blocking)))
        return invalid(api, "config was not initialised with MCCL_CONFIG_INITIALIZER");
    deferred d = {comm, nranks, rank, opemu_mc_current_device(), {{0}, 0, 0, {0}}, HCCL_SUCCESS, NULL};
    HcclResult rc = hccl_unique_id_decode(id->internal, &d.root);
    if (rc)
        return from_hccl(rc);
    if (hccl_group_open()) { /* NCCL's idiom for several ranks from one thread: they meet at mcclGroupEnd */
        deferred *later = malloc(sizeof *later);
        if (later == NULL)
            return mcclSystemError;
        *later = d;
        later->next = pending_inits;
        pending_inits = later;
        *comm = NULL;
        return mcclSuccess;
    }
    return from_hccl(create(&d));
}

OPEMU_EXPORT mcclResult_t mcclCommInitRank(mcclComm_t *comm, int nranks, mcclUniqueId commId, int rank)
{
    return init_rank("mcclCommInitRank", comm, nranks, &commId, rank, NULL);
}

OPEMU_EXPORT mcclResult_t mcclCommInitRankMulti(mcclComm_t *comm, int nranks, mcclUniqueId commId, int rank,
                                                int virtualId)
{
    (void)virtualId; /* several ranks may share an emulated device anyway */
    return init_rank("mcclCommInitRankMulti", comm, nranks, &commId, rank, NULL);
}

OPEMU_EXPORT mcclResult_t mcclCommInitRankConfig(mcclComm_t *comm, int nranks, mcclUniqueId commId, int rank,
                                                 mcclConfig_t *config)
{
    return init_rank("mcclCommInitRankConfig", comm, nranks, &commId, rank, config); /* creation always completes */
}

OPEMU_EXPORT mcclResult_t mcclCommInitAll(mcclComm_t *comm, int ndev, const int *devlist)
{
    if (comm == NULL)
        return invalid("mcclCommInitAll", "comm is NULL");
    if (ndev < 1)
        return invalid("mcclCommInitAll", "ndev is below 1");
    return from_hccl(hccl_init_all("mcclCommInitAll", (uint32_t)ndev, devlist, 1, (void **)comm));
}

OPEMU_EXPORT mcclResult_t mcclGroupStart(void) { return from_hccl(hccl_group_start()); }

OPEMU_EXPORT mcclResult_t mcclGroupEnd(void)
{
    HcclResult rc = hccl_group_end();
    if (rc || hccl_group_open() || pending_inits == NULL)
        return from_hccl(rc);
    deferred *list = pending_inits;
    pending_inits = NULL;
    size_t n = 0;
    for (deferred *d = list; d; d = d->next)
        n++;
    pthread_t *threads = calloc(n, sizeof *threads);
    char *started = calloc(n ? n : 1, 1);
    size_t i = 0;
    for (deferred *d = list; d; d = d->next, i++)
        if (threads && started)
            started[i] = pthread_create(&threads[i], NULL, create_thread, d) == 0;
    i = 0;
    for (deferred *d = list, *next; d; d = next, i++) {
        next = d->next;
        if (threads && started && started[i])
            pthread_join(threads[i], NULL);
        else
            d->rc = create(d);
        if (d->rc && !rc)
            rc = d->rc;
        free(d);
    }
    free(threads);
    free(started);
    return from_hccl(rc);
}

/* ---- communicators ---- */

static hccl_rank *mccl_rank(const char *api, mcclComm_t comm, mcclResult_t *rc)
{
    hccl_rank *r = hccl_rank_of(comm);
    *rc = mcclSuccess;
    if (r == NULL || !r->is_mccl) {
        hccl_fail(HCCL_E_PARA, "%s: %p is not a live MCCL communicator", api, (void *)comm);
        *rc = mcclInvalidArgument;
        return NULL;
    }
    return r;
}

static mcclResult_t end_comm(const char *api, mcclComm_t comm)
{
    mcclResult_t rc;
    hccl_rank *r = mccl_rank(api, comm, &rc);
    if (r)
        hccl_rank_destroy(r);
    return rc;
}

OPEMU_EXPORT mcclResult_t mcclCommDestroy(mcclComm_t comm) { return end_comm("mcclCommDestroy", comm); }
OPEMU_EXPORT mcclResult_t mcclCommAbort(mcclComm_t comm) { return end_comm("mcclCommAbort", comm); }

/* Operations already queued complete on their streams; nothing else is held back. */
OPEMU_EXPORT mcclResult_t mcclCommFinalize(mcclComm_t comm)
{
    mcclResult_t rc;
    mccl_rank("mcclCommFinalize", comm, &rc);
    return rc;
}

OPEMU_EXPORT mcclResult_t mcclCommGetAsyncError(mcclComm_t comm, mcclResult_t *asyncError)
{
    mcclResult_t rc;
    hccl_rank *r = mccl_rank("mcclCommGetAsyncError", comm, &rc);
    if (r && asyncError == NULL)
        return invalid("mcclCommGetAsyncError", "asyncError is NULL");
    if (r) {
        pthread_mutex_lock(&r->lock);
        *asyncError = from_hccl((HcclResult)r->async_error);
        pthread_mutex_unlock(&r->lock);
    }
    return rc;
}

static mcclResult_t query(const char *api, mcclComm_t comm, int *out, int which)
{
    mcclResult_t rc;
    hccl_rank *r = mccl_rank(api, comm, &rc);
    if (r && out == NULL)
        return invalid(api, "the output is NULL");
    if (r)
        *out = which == 0 ? (int)r->size : which == 1 ? (int)r->rank : (int)r->device;
    return rc;
}

OPEMU_EXPORT mcclResult_t mcclCommCount(const mcclComm_t comm, int *count) { return query("mcclCommCount", comm, count, 0); }
OPEMU_EXPORT mcclResult_t mcclCommUserRank(const mcclComm_t comm, int *rank) { return query("mcclCommUserRank", comm, rank, 1); }
OPEMU_EXPORT mcclResult_t mcclCommMcDevice(const mcclComm_t comm, int *device) { return query("mcclCommMcDevice", comm, device, 2); }

OPEMU_EXPORT const char *mcclGetErrorString(mcclResult_t result)
{
    static const char *texts[] = {"no error", "unhandled maca error", "unhandled system error", "internal error",
                                  "invalid argument", "invalid usage", "remote process exited or there was a network "
                                  "error", "MCCL operation in progress"};
    if ((unsigned)result < sizeof texts / sizeof texts[0])
        return opemu_status_text((int)result, texts[result]);
    return "unknown result code";
}

OPEMU_EXPORT const char *mcclGetLastError(mcclComm_t comm)
{
    (void)comm; /* the vendor's ignores it too */
    return opemu_error_last();
}
