/* The shared-memory transport's segment and per-rank state (shm.c, shm_p2p.c, shm_wait.c). */
#ifndef OPEMU_HCCL_SHM_H
#define OPEMU_HCCL_SHM_H

#include "hccl_internal.h"

enum { SHM_ABSENT = 0, SHM_ATTACHED = 1, SHM_GONE = 2, SHM_BROKEN = 3 };

/* One rank's corner of the segment. */
/* Steps alternate between two areas (by the parity of their count), so one step's blocks can be
 * written while peers still read the previous step's. */
typedef struct {
    int32_t pid;
    uint32_t state;
    uint32_t doorbell;     /* rung when a transfer to or from this rank moved */
    uint32_t broadcast[2]; /* the step's blocks are one block, written once to the rank's own slot */
    uint32_t padding;
    hccl_signature sig[2]; /* the op whose first step this is */
} shm_control;

/* Sender → receiver mailbox of the point-to-point area: one piece at a time. */
typedef struct {
    uint32_t full;  /* 0 empty, 1 a piece is there */
    int32_t dtype;
    uint64_t seq;   /* the message's number on this pair */
    uint64_t total; /* bytes of the whole message */
    uint64_t offset;
    uint64_t bytes; /* of this piece */
} shm_mailbox;

typedef struct {
    uint32_t magic;
    uint32_t size;
    uint64_t slot_bytes;
    uint32_t attached;
    uint32_t arrive; /* the barrier's count */
} shm_header;

typedef struct shm_link {
    char *base;
    size_t mapped;
    shm_header *header;
    shm_control *control;  /* [size] */
    uint64_t *sent;        /* [2][size][size]: bytes rank i sends rank j in a step */
    uint64_t *expected;    /* [2][size][size]: bytes rank i expects from rank j */
    shm_mailbox *mailbox;  /* [size][size] */
    char *slots;           /* collective areas: [2][size][size] slots */
    char *p2p;             /* point-to-point area: [size][size] slots */
    uint32_t barriers;
    uint64_t steps;        /* steps run: the next one's parity picks its area */
    int *pidfd;            /* [size] */
    uint64_t *send_seq, *recv_seq; /* [size] */
    uint32_t rank;
    hccl_worker *worker;
} shm_link;

static inline char *shm_slot(const shm_link *l, char *area, uint32_t from, uint32_t to)
{
    return area + ((uint64_t)from * l->header->size + to) * l->header->slot_bytes;
}

/* The collective slot from -> to of area `parity`. */
static inline char *shm_step_slot(const shm_link *l, int parity, uint32_t from, uint32_t to)
{
    uint64_t n = l->header->size;
    return l->slots + ((uint64_t)parity * n * n + (uint64_t)from * n + to) * l->header->slot_bytes;
}

/* ---- shm_wait.c ---- */
/* Waits until *word differs from `seen` or ~100 ms pass (FUTEX_WAIT, shared). */
void shm_futex_wait(uint32_t *word, uint32_t seen);
void shm_futex_wake(uint32_t *word);
/* HCCL_SUCCESS, or why waiting should stop: the deadline passed, a peer left, broke or died
 * (message written). */
HcclResult shm_check(shm_link *l, hccl_rank *r, const hccl_op *op, char *message, size_t size);
/* Runs a point-to-point batch (shm_p2p.c). */
HcclResult shm_p2p(shm_link *l, hccl_rank *r, hccl_op *op, char *message, size_t size);

#endif
