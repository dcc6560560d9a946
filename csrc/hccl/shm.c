/* The shared-memory transport: the ranks are processes on one host.
 *
 * The communicator's ranks map one POSIX shared-memory segment (its name is unlinked once every
 * rank has it): a control block per rank, the sizes of the current step, a slot per ordered pair of
 * ranks for collectives and another for point-to-point transfers. A progress thread per rank
 * (worker.c) runs its ops in order: each step publishes its sizes and signature, meets the others at a barrier (a
 * futex on a shared counter), then moves blocks through the slots in rounds of a slot's size; a
 * reduce-scatter reduces, in rank order, the pieces straight from the peers' slots. A block sent to
 * every peer (the gather after a reduction) is written once.
 *
 * Waits sleep on futexes and wake every ~100 ms to check the execution deadline and the peers
 * (shm_wait.c), never a hang. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>
#include "shm.h"

#define SHM_MAGIC 0x48434d53U /* "SMCH" */
#define COLLECTIVE_AREA (64ULL << 20) /* both areas of the collective slots */

static HcclResult barrier(shm_link *l, hccl_rank *r, const hccl_op *op, char *message, size_t size)
{
    uint32_t target = ++l->barriers * r->size;
    __atomic_fetch_add(&l->header->arrive, 1, __ATOMIC_ACQ_REL);
    shm_futex_wake(&l->header->arrive);
    for (;;) {
        uint32_t now = __atomic_load_n(&l->header->arrive, __ATOMIC_ACQUIRE);
        if ((int32_t)(now - target) >= 0)
            return HCCL_SUCCESS;
        HcclResult rc = shm_check(l, r, op, message, size);
        if (rc)
            return rc;
        shm_futex_wait(&l->header->arrive, now);
    }
}

/* ---- steps ---- */

/* Sends another block of the same rank overlaps are copied aside first. */
static HcclResult stage(hccl_op *op, hccl_step *st, uint32_t n, uint32_t me)
{
    for (uint32_t j = 0; j < n; j++) {
        hccl_block *src = &st->send[j];
        int aside = 0;
        for (uint32_t k = 0; k < n && !aside; k++)
            aside = !(k == me && j == me && st->recv[k].ptr == src->ptr) &&
                    hccl_overlap(src->ptr, src->bytes, st->recv[k].ptr, st->recv[k].bytes);
        if (aside) {
            char *copy = hccl_op_alloc(op, src->bytes);
            if (copy == NULL)
                return HCCL_E_MEMORY;
            memcpy(copy, src->ptr, src->bytes);
            src->ptr = copy;
        }
    }
    return HCCL_SUCCESS;
}

/* After the first barrier of an op's first step: every rank must be in the same op, and, for an
 * all-to-all, send what the others expect. */
static HcclResult consistent(shm_link *l, hccl_rank *r, hccl_op *op, const hccl_step *st, int parity, int first,
                             uint64_t *most, char *message, size_t size)
{
    uint32_t n = r->size;
    if (first)
        for (uint32_t k = 1; k < n; k++)
            if (hccl_signatures_differ(&l->control[0].sig[parity], 0, &l->control[k].sig[parity], k, message, size))
                return HCCL_E_PARA;
    *most = 0;
    if (st->kind != HCCL_STEP_ALLTOALL)
        return HCCL_SUCCESS;
    const uint64_t *sent = l->sent + (uint64_t)parity * n * n, *expected = l->expected + (uint64_t)parity * n * n;
    for (uint32_t i = 0; i < n; i++)
        for (uint32_t j = 0; j < n; j++) {
            if (sent[(uint64_t)i * n + j] != expected[(uint64_t)j * n + i]) {
                snprintf(message, size, "[TaskExecStage][OpInconsistent] %s #%llu: rank %u sends rank %u %llu bytes, "
                         "rank %u expects %llu bytes from rank %u", hccl_cmd_name(op->sig.cmd),
                         (unsigned long long)op->sig.seq, i, j, (unsigned long long)sent[(uint64_t)i * n + j], j,
                         (unsigned long long)expected[(uint64_t)j * n + i], i);
                return HCCL_E_PARA;
            }
            if (sent[(uint64_t)i * n + j] > *most)
                *most = sent[(uint64_t)i * n + j];
        }
    return HCCL_SUCCESS;
}

/* This rank's pieces of round `first` (bytes, or elements for a reduce-scatter) into its slots. */
static void write_round(shm_link *l, hccl_rank *r, const hccl_step *st, int parity, uint64_t first, int broadcast)
{
    uint32_t n = r->size, me = r->rank;
    int reduce = st->kind == HCCL_STEP_REDUCE_SCATTER;
    uint64_t es = reduce ? hccl_dtype_size(st->dtype) : 1, per = l->header->slot_bytes / es;
    for (uint32_t j = 0; j < n; j++) {
        uint64_t total = reduce ? st->counts[j] : st->send[j].bytes;
        if (j == me || total <= first)
            continue;
        uint64_t piece = total - first < per ? total - first : per;
        memcpy(shm_step_slot(l, parity, me, broadcast ? me : j), st->send[j].ptr + first * es, piece * es);
        if (broadcast)
            break;
    }
}

/* The peers' pieces of round `first`: copied out, or reduced in rank order with this rank's own. */
static HcclResult read_round(shm_link *l, hccl_rank *r, const hccl_step *st, int parity, uint64_t first,
                             char **inputs, char *message, size_t size)
{
    uint32_t n = r->size, me = r->rank;
    if (st->kind == HCCL_STEP_REDUCE_SCATTER) {
        uint64_t es = hccl_dtype_size(st->dtype), per = l->header->slot_bytes / es;
        if (st->counts[me] <= first)
            return HCCL_SUCCESS;
        uint64_t count = st->counts[me] - first < per ? st->counts[me] - first : per;
        for (uint32_t i = 0; i < n; i++)
            inputs[i] = i == me ? st->send[me].ptr + first * es : shm_step_slot(l, parity, i, me);
        HcclResult rc = hccl_reduce(st->dtype, st->op, n, inputs, st->recv[0].ptr + first * es, count);
        if (rc)
            snprintf(message, size, "the reduction failed: %s", aclGetRecentErrMsg() ? aclGetRecentErrMsg() : "");
        return rc;
    }
    uint64_t slot = l->header->slot_bytes;
    for (uint32_t i = 0; i < n; i++) {
        const hccl_block *b = &st->recv[i];
        if (i == me || b->bytes <= first)
            continue;
        uint64_t piece = b->bytes - first < slot ? b->bytes - first : slot;
        uint32_t to = __atomic_load_n(&l->control[i].broadcast[parity], __ATOMIC_RELAXED) ? i : me;
        memcpy(b->ptr + first, shm_step_slot(l, parity, i, to), piece);
    }
    return HCCL_SUCCESS;
}

/* One step: publish sizes and write the first round, meet, check, read; more rounds when a block is
 * larger than a slot (with a barrier before each slot is written again). */
static HcclResult step(shm_link *l, hccl_rank *r, hccl_op *op, hccl_step *st, int first_step, char *message,
                       size_t size)
{
    uint32_t n = r->size, me = r->rank;
    int parity = (int)(l->steps++ & 1);
    int reduce = st->kind == HCCL_STEP_REDUCE_SCATTER;
    char **inputs = hccl_op_alloc(op, n * sizeof *inputs);
    if (inputs == NULL || (!reduce && stage(op, st, n, me) != HCCL_SUCCESS)) {
        snprintf(message, size, "out of host memory");
        return HCCL_E_MEMORY;
    }
    int broadcast = !reduce && n > 2;
    uint64_t *sent = l->sent + (uint64_t)parity * n * n, *expected = l->expected + (uint64_t)parity * n * n;
    for (uint32_t j = 0, first = UINT32_MAX; j < n; j++) {
        sent[(uint64_t)me * n + j] = j == me || reduce ? 0 : st->send[j].bytes;
        expected[(uint64_t)me * n + j] = j == me || reduce ? 0 : st->recv[j].bytes;
        if (j == me || reduce)
            continue;
        if (first == UINT32_MAX)
            first = j;
        broadcast &= st->send[j].ptr == st->send[first].ptr && st->send[j].bytes == st->send[first].bytes;
    }
    l->control[me].broadcast[parity] = (uint32_t)broadcast;
    if (first_step)
        l->control[me].sig[parity] = op->sig;
    uint64_t most = 0;
    if (reduce)
        for (uint32_t j = 0; j < n; j++)
            most = st->counts[j] > most ? st->counts[j] : most;
    uint64_t per = reduce ? l->header->slot_bytes / hccl_dtype_size(st->dtype) : l->header->slot_bytes;
    write_round(l, r, st, parity, 0, broadcast);
    HcclResult rc = barrier(l, r, op, message, size);
    uint64_t moved = 0;
    if (rc == HCCL_SUCCESS)
        rc = consistent(l, r, op, st, parity, first_step, reduce ? &moved : &most, message, size);
    for (uint64_t first = 0; rc == HCCL_SUCCESS;) {
        rc = read_round(l, r, st, parity, first, inputs, message, size);
        first += per;
        if (rc != HCCL_SUCCESS || first >= most)
            break;
        if ((rc = barrier(l, r, op, message, size)) != HCCL_SUCCESS)
            break;
        write_round(l, r, st, parity, first, broadcast);
        rc = barrier(l, r, op, message, size);
    }
    if (rc == HCCL_SUCCESS && !reduce && st->send[me].bytes && st->send[me].ptr != st->recv[me].ptr)
        memmove(st->recv[me].ptr, st->send[me].ptr, st->send[me].bytes);
    return rc;
}

static HcclResult run(shm_link *l, hccl_rank *r, hccl_op *op, char *message, size_t size)
{
    if (op->n_p2p)
        return shm_p2p(l, r, op, message, size);
    HcclResult rc = HCCL_SUCCESS;
    for (int s = 0; s < op->n_steps && rc == HCCL_SUCCESS; s++)
        rc = step(l, r, op, &op->steps[s], s == 0, message, size);
    return rc;
}

/* ---- the progress thread (worker.c) ---- */

static HcclResult work(void *state, hccl_rank *r, hccl_op *op, char *message, size_t size)
{
    return run(state, r, op, message, size);
}

/* Peers see this rank failed (and its own waits notice a stop). */
static void broke(void *state)
{
    shm_link *l = state;
    if (!hccl_worker_stopping(l->worker))
        __atomic_store_n(&l->control[l->rank].state, SHM_BROKEN, __ATOMIC_RELEASE);
    shm_futex_wake(&l->header->arrive);
    shm_futex_wake(&l->control[l->rank].doorbell);
}

static void submit(hccl_rank *r, hccl_op *op) { hccl_worker_submit(((shm_link *)r->link)->worker, op); }

/* ---- joining and leaving ---- */

static void unmap(shm_link *l, uint32_t n)
{
    for (uint32_t k = 0; k < n && l->pidfd; k++)
        if (l->pidfd[k] >= 0)
            close(l->pidfd[k]);
    if (l->base)
        munmap(l->base, l->mapped);
    free(l->pidfd);
    free(l->send_seq);
    free(l->recv_seq);
    free(l);
}

HcclResult hccl_shm_join(hccl_rank *r, double deadline)
{
    uint32_t n = r->size;
    uint64_t pairs = (uint64_t)n * n, slot = COLLECTIVE_AREA / (2 * pairs);
    slot = slot < (256 << 10) ? (256 << 10) : slot > (16 << 20) ? (16 << 20) : slot & ~(uint64_t)4095;
    size_t fixed = 4096 + n * sizeof(shm_control) + 4 * pairs * sizeof(uint64_t) + pairs * sizeof(shm_mailbox);
    fixed = (fixed + 4095) & ~(size_t)4095;
    size_t total = fixed + 3 * pairs * slot;
    char name[64];
    snprintf(name, sizeof name, "/opemu-hccl-%016llx", (unsigned long long)r->id);
    shm_link *l = calloc(1, sizeof *l);
    if (l) {
        l->pidfd = malloc(n * sizeof *l->pidfd);
        l->send_seq = calloc(n, sizeof *l->send_seq);
        l->recv_seq = calloc(n, sizeof *l->recv_seq);
    }
    if (l == NULL || !l->pidfd || !l->send_seq || !l->recv_seq) {
        if (l)
            unmap(l, 0);
        return hccl_fail(HCCL_E_MEMORY, "out of host memory joining the communicator");
    }
    for (uint32_t k = 0; k < n; k++)
        l->pidfd[k] = -1;
    int fd = shm_open(name, O_RDWR | O_CREAT | O_CLOEXEC, 0600);
    if (fd < 0 || ftruncate(fd, (off_t)total) != 0) {
        int error = errno;
        if (fd >= 0)
            close(fd);
        unmap(l, n);
        return hccl_fail(HCCL_E_MEMORY, "the shared-memory segment %s (%zu bytes) cannot be made: %s", name, total,
                         strerror(error));
    }
    l->base = mmap(NULL, total, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
    close(fd);
    if (l->base == MAP_FAILED) {
        l->base = NULL;
        unmap(l, n);
        shm_unlink(name);
        return hccl_fail(HCCL_E_MEMORY, "the shared-memory segment %s cannot be mapped", name);
    }
    l->mapped = total;
    l->header = (shm_header *)l->base;
    l->control = (shm_control *)(l->base + 4096);
    l->sent = (uint64_t *)(l->control + n);
    l->expected = l->sent + 2 * pairs;
    l->mailbox = (shm_mailbox *)(l->expected + 2 * pairs);
    l->slots = l->base + fixed;
    l->p2p = l->slots + 2 * pairs * slot;
    uint32_t zero = 0;
    if (__atomic_compare_exchange_n(&l->header->magic, &zero, SHM_MAGIC, 0, __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE)) {
        l->header->size = n;
        __atomic_store_n(&l->header->slot_bytes, slot, __ATOMIC_RELEASE);
    }
    while (__atomic_load_n(&l->header->slot_bytes, __ATOMIC_ACQUIRE) == 0)
        usleep(1000);
    l->control[r->rank].pid = (int32_t)getpid();
    __atomic_store_n(&l->control[r->rank].state, SHM_ATTACHED, __ATOMIC_RELEASE);
    __atomic_fetch_add(&l->header->attached, 1, __ATOMIC_ACQ_REL);
    while (__atomic_load_n(&l->header->attached, __ATOMIC_ACQUIRE) < n && hccl_now() < deadline)
        usleep(2000);
    if (__atomic_load_n(&l->header->attached, __ATOMIC_ACQUIRE) < n) {
        __atomic_store_n(&l->control[r->rank].state, SHM_GONE, __ATOMIC_RELEASE);
        unmap(l, n);
        shm_unlink(name);
        return hccl_fail(HCCL_E_TIMEOUT, "not every rank mapped the shared-memory segment within the connect timeout");
    }
    if (r->rank == 0)
        shm_unlink(name); /* everyone has it: the name is not needed any more */
    for (uint32_t k = 0; k < n; k++)
        if (k != r->rank && l->control[k].pid != (int32_t)getpid())
            l->pidfd[k] = (int)syscall(SYS_pidfd_open, l->control[k].pid, 0);
    l->rank = r->rank;
    l->worker = hccl_worker_start(r, work, l, broke);
    if (l->worker == NULL) {
        unmap(l, n);
        return hccl_fail(HCCL_E_SYSCALL, "the communicator's progress thread cannot start");
    }
    r->link = l;
    return HCCL_SUCCESS;
}

static void leave(hccl_rank *r)
{
    shm_link *l = r->link;
    __atomic_store_n(&l->control[r->rank].state, SHM_GONE, __ATOMIC_RELEASE);
    hccl_worker_stop(l->worker);
    unmap(l, r->size);
}

const hccl_transport hccl_shm_transport = {HCCL_SHM, submit, NULL, leave};
