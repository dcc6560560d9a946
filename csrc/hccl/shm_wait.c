/* Waiting on the shared-memory segment (shm.c, shm_p2p.c): futexes on shared words, woken at least
 * every ~100 ms to check the execution deadline and the peers. A peer that left (HcclCommDestroy),
 * broke, or died (its pidfd says so even before it is reaped, when kill(pid, 0) still answers) ends
 * the op with the vendor's error. */
#include <linux/futex.h>
#include <poll.h>
#include <stdio.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>
#include "shm.h"

void shm_futex_wait(uint32_t *word, uint32_t seen)
{
    struct timespec timeout = {0, 100 * 1000000L};
    syscall(SYS_futex, word, FUTEX_WAIT, seen, &timeout, NULL, 0);
}

void shm_futex_wake(uint32_t *word) { syscall(SYS_futex, word, FUTEX_WAKE, 0x7fffffff, NULL, NULL, 0); }

static int peer_dead(shm_link *l, uint32_t peer)
{
    if (l->pidfd[peer] < 0)
        return 0;
    struct pollfd pfd = {l->pidfd[peer], POLLIN, 0};
    return poll(&pfd, 1, 0) > 0;
}

HcclResult shm_check(shm_link *l, hccl_rank *r, const hccl_op *op, char *message, size_t size)
{
    if (l->worker && hccl_worker_stopping(l->worker)) {
        snprintf(message, size, "[TaskExecStage] this rank destroyed its communicator during %s #%llu",
                 hccl_cmd_name(op->sig.cmd), (unsigned long long)op->sig.seq);
        return HCCL_E_PARA;
    }
    for (uint32_t k = 0; k < r->size; k++) {
        if (k == r->rank)
            continue;
        uint32_t state = __atomic_load_n(&l->control[k].state, __ATOMIC_ACQUIRE);
        if (state == SHM_GONE || state == SHM_BROKEN || peer_dead(l, k)) {
            snprintf(message, size, "[TaskExecStage][HeartbeatAbnormal] ExceptionType:[Heartbeat Lost Occurred] rank "
                     "%u (pid %d) %s during %s #%llu", k, (int)l->control[k].pid, state == SHM_GONE ?
                     "destroyed its communicator" : state == SHM_BROKEN ? "failed" : "exited",
                     hccl_cmd_name(op->sig.cmd), (unsigned long long)op->sig.seq);
            return HCCL_E_REMOTE;
        }
    }
    if (op->deadline > 0 && hccl_now() > op->deadline) {
        snprintf(message, size, "[TaskExecStage][Timeout] ExceptionType:[Stuck Occurred] %s #%llu waited for its "
                 "peers longer than the execution timeout (HCCL_EXEC_TIMEOUT)", hccl_cmd_name(op->sig.cmd),
                 (unsigned long long)op->sig.seq);
        return HCCL_E_TIMEOUT;
    }
    return HCCL_SUCCESS;
}
