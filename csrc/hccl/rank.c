/* A rank's view of a communicator as a live object: its handle, its references and its
 * asynchronous error.
 *
 * A handle is checked against the handle table before use, so a destroyed or foreign pointer is an
 * error. The view outlives HcclCommDestroy while operations queued before it still hold it. */
#include <stdlib.h>
#include "hccl_internal.h"

hccl_rank *hccl_rank_of(const void *comm)
{
    if (comm == NULL || !opemu_handle_is(comm, HCCL_KIND_COMM))
        return NULL;
    hccl_rank *rank = (hccl_rank *)comm;
    return rank->destroyed ? NULL : rank;
}

void hccl_rank_hold(hccl_rank *rank) { __atomic_fetch_add(&rank->refs, 1, __ATOMIC_ACQ_REL); }

void hccl_rank_release(hccl_rank *rank)
{
    if (__atomic_sub_fetch(&rank->refs, 1, __ATOMIC_ACQ_REL) != 0)
        return;
    free(rank->members);
    pthread_mutex_destroy(&rank->lock);
    free(rank);
}

void hccl_rank_set_error(hccl_rank *rank, HcclResult code)
{
    pthread_mutex_lock(&rank->lock);
    if (rank->async_error == HCCL_SUCCESS)
        rank->async_error = code;
    pthread_mutex_unlock(&rank->lock);
}
