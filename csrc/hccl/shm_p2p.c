/* Sends and receives through the shared segment: each ordered pair of ranks has a mailbox and a
 * slot; a message goes piece by piece (a slot's size each), in order per pair. A batch makes
 * progress on every transfer it can before it sleeps, so rings of sends and receives complete. */
#include <stdio.h>
#include <string.h>
#include "shm.h"

static void ring(shm_link *l, uint32_t rank)
{
    __atomic_fetch_add(&l->control[rank].doorbell, 1, __ATOMIC_ACQ_REL);
    shm_futex_wake(&l->control[rank].doorbell);
}

/* Progress on one transfer: 1 when something moved, 0 when it must wait, -1 on a mismatch. */
static int send_piece(shm_link *l, hccl_rank *r, hccl_p2p *it, uint64_t *offset)
{
    shm_mailbox *box = &l->mailbox[(uint64_t)r->rank * r->size + it->peer];
    if (__atomic_load_n(&box->full, __ATOMIC_ACQUIRE))
        return 0;
    uint64_t slot = l->header->slot_bytes, piece = it->bytes - *offset < slot ? it->bytes - *offset : slot;
    memcpy(shm_slot(l, l->p2p, r->rank, it->peer), it->ptr + *offset, piece);
    box->seq = l->send_seq[it->peer] + 1;
    box->total = it->bytes;
    box->dtype = it->dtype;
    box->offset = *offset;
    box->bytes = piece;
    __atomic_store_n(&box->full, 1, __ATOMIC_RELEASE);
    ring(l, it->peer);
    *offset += piece;
    if (*offset >= it->bytes) {
        l->send_seq[it->peer]++;
        it->done = 1;
    }
    return 1;
}

static int recv_piece(shm_link *l, hccl_rank *r, hccl_p2p *it, char *message, size_t size)
{
    shm_mailbox *box = &l->mailbox[(uint64_t)it->peer * r->size + r->rank];
    if (!__atomic_load_n(&box->full, __ATOMIC_ACQUIRE) || box->seq != l->recv_seq[it->peer] + 1)
        return 0;
    if (box->total != it->bytes || box->dtype != it->dtype) {
        snprintf(message, size, "[TaskExecStage][OpInconsistent] rank %u sends rank %u %llu bytes of %s, rank %u "
                 "receives %llu bytes of %s", it->peer, r->rank, (unsigned long long)box->total,
                 hccl_dtype_name(box->dtype), r->rank, (unsigned long long)it->bytes, hccl_dtype_name(it->dtype));
        return -1;
    }
    memcpy(it->ptr + box->offset, shm_slot(l, l->p2p, it->peer, r->rank), box->bytes);
    int last = box->offset + box->bytes >= box->total;
    __atomic_store_n(&box->full, 0, __ATOMIC_RELEASE);
    ring(l, it->peer);
    if (last) {
        l->recv_seq[it->peer]++;
        it->done = 1;
    }
    return 1;
}

HcclResult shm_p2p(shm_link *l, hccl_rank *r, hccl_op *op, char *message, size_t size)
{
    uint64_t *offsets = hccl_op_alloc(op, op->n_p2p * sizeof *offsets);
    if (offsets == NULL) {
        snprintf(message, size, "out of host memory");
        return HCCL_E_MEMORY;
    }
    uint32_t left = op->n_p2p;
    while (left) {
        uint32_t rung = __atomic_load_n(&l->control[r->rank].doorbell, __ATOMIC_ACQUIRE);
        int moved = 0;
        for (uint32_t k = 0; k < op->n_p2p; k++) {
            hccl_p2p *it = &op->p2p[k];
            if (it->done)
                continue;
            int earlier = 0; /* transfers to one peer go in order */
            for (uint32_t e = 0; e < k && !earlier; e++)
                earlier = !op->p2p[e].done && op->p2p[e].peer == it->peer && op->p2p[e].is_send == it->is_send;
            if (earlier)
                continue;
            int step = it->is_send ? send_piece(l, r, it, &offsets[k]) : recv_piece(l, r, it, message, size);
            if (step < 0)
                return HCCL_E_PARA;
            if (step > 0) {
                moved = 1;
                left -= it->done;
            }
        }
        if (moved || left == 0)
            continue;
        HcclResult rc = shm_check(l, r, op, message, size);
        if (rc)
            return rc;
        shm_futex_wait(&l->control[r->rank].doorbell, rung);
    }
    return HCCL_SUCCESS;
}
