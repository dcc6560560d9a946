/* Each collective as the steps every transport executes, queued on the call's stream: what the HCCL
 * and MCCL entry points share once they have checked their arguments their own way.
 *
 * A reduction is a reduce-scatter (rank j reduces, in rank order, every rank's j-th chunk) and, for
 * AllReduce and Reduce, a gather of the reduced chunks: each element is reduced in the same order
 * whatever the transport, the number of processes or the timing, so results are bitwise the same.
 * Everything else is one all-to-all of blocks (most of them empty). */
#include <stdlib.h>
#include "call.h"

/* Rank p's chunk of `count` elements split as evenly as the ranks allow. */
static void chunk(uint64_t count, uint32_t n, uint32_t p, uint64_t *offset, uint64_t *length)
{
    uint64_t base = count / n, extra = count % n;
    *offset = p * base + (p < extra ? p : extra);
    *length = base + (p < extra);
}

static HcclResult queue(const hccl_call *call, hccl_op *op, HcclResult built)
{
    if (op == NULL || built != HCCL_SUCCESS) {
        hccl_op_free(op);
        return hccl_call_submit(call, NULL);
    }
    return hccl_call_submit(call, op);
}

HcclResult hccl_queue_reduction(const hccl_call *call, int32_t cmd, char *send, char *recv, uint64_t count,
                                int32_t dtype, int32_t op, uint32_t root)
{
    uint32_t n = call->rank->size, me = call->rank->rank, es = call->es;
    hccl_op *o = hccl_call_op(call, cmd, dtype, op, root, count);
    if (o == NULL)
        return queue(call, NULL, HCCL_E_MEMORY);
    uint64_t my_offset, my_length;
    chunk(count, n, me, &my_offset, &my_length);
    int keeps = root == UINT32_MAX || root == me; /* this rank's output holds the result */
    char *mine = keeps ? recv + my_offset * es : hccl_op_alloc(o, my_length * es);
    hccl_step *reduce = hccl_add_step(o, HCCL_STEP_REDUCE_SCATTER);
    if (mine == NULL || reduce == NULL)
        return queue(call, o, HCCL_E_MEMORY);
    for (uint32_t p = 0; p < n; p++) {
        uint64_t offset, length;
        chunk(count, n, p, &offset, &length);
        reduce->send[p] = (hccl_block){send + offset * es, length * es};
        reduce->counts[p] = length;
    }
    reduce->recv[0] = (hccl_block){mine, my_length * es};
    hccl_step *gather = hccl_add_step(o, HCCL_STEP_ALLTOALL);
    if (gather == NULL)
        return queue(call, o, HCCL_E_MEMORY);
    for (uint32_t p = 0; p < n; p++) {
        if (p == me)
            continue;
        uint64_t offset, length;
        chunk(count, n, p, &offset, &length);
        if (root == UINT32_MAX || root == p)
            gather->send[p] = (hccl_block){mine, my_length * es};
        if (keeps)
            gather->recv[p] = (hccl_block){recv + offset * es, length * es};
    }
    return queue(call, o, HCCL_SUCCESS);
}

HcclResult hccl_queue_reduce_scatter(const hccl_call *call, int32_t cmd, char *send, char *recv, uint64_t uniform,
                                     const uint64_t *counts, const uint64_t *displs, int32_t dtype, int32_t op)
{
    uint32_t n = call->rank->size;
    hccl_op *o = hccl_call_op(call, cmd, dtype, op, UINT32_MAX, counts ? 0 : uniform);
    hccl_step *step = o ? hccl_add_step(o, HCCL_STEP_REDUCE_SCATTER) : NULL;
    if (step == NULL)
        return queue(call, o, HCCL_E_MEMORY);
    if (counts)
        o->sig.digest = hccl_digest(hccl_digest(0, counts, n * sizeof *counts), displs, n * sizeof *displs);
    for (uint32_t p = 0; p < n; p++) {
        uint64_t count = counts ? counts[p] : uniform, displ = displs ? displs[p] : p * uniform;
        step->send[p] = (hccl_block){send + displ * call->es, count * call->es};
        step->counts[p] = count;
    }
    uint64_t mine = counts ? counts[call->rank->rank] : uniform;
    step->recv[0] = (hccl_block){recv, mine * call->es};
    return queue(call, o, HCCL_SUCCESS);
}

HcclResult hccl_queue_all_to_all(const hccl_call *call, int32_t cmd, int32_t dtype, uint32_t root, uint64_t count,
                                 uint64_t digest, char *send, const uint64_t *send_counts,
                                 const uint64_t *send_displs, char *recv, const uint64_t *recv_counts,
                                 const uint64_t *recv_displs)
{
    hccl_op *o = hccl_call_op(call, cmd, dtype, -1, root, count);
    hccl_step *step = o ? hccl_add_step(o, HCCL_STEP_ALLTOALL) : NULL;
    if (step == NULL)
        return queue(call, o, HCCL_E_MEMORY);
    o->sig.digest = digest;
    for (uint32_t p = 0; p < call->rank->size; p++) {
        if (send_counts)
            step->send[p] = (hccl_block){send + send_displs[p] * call->es, send_counts[p] * call->es};
        if (recv_counts)
            step->recv[p] = (hccl_block){recv + recv_displs[p] * call->es, recv_counts[p] * call->es};
    }
    return queue(call, o, HCCL_SUCCESS);
}

/* The layouts of the rooted and gathering collectives, as count/displacement arrays for one all-to-all. */
typedef struct {
    uint64_t *send_counts, *send_displs, *recv_counts, *recv_displs;
} layout;

static int layout_new(const hccl_call *call, layout *l)
{
    size_t bytes = call->rank->size * sizeof(uint64_t);
    uint64_t *all = calloc(4, bytes);
    *l = (layout){all, all + call->rank->size, all + 2 * call->rank->size, all + 3 * call->rank->size};
    return all != NULL;
}

HcclResult hccl_queue_moving(const hccl_call *call, int32_t cmd, char *send, char *recv, uint64_t count,
                             int32_t dtype, uint32_t root, const uint64_t *counts, const uint64_t *displs)
{
    uint32_t n = call->rank->size, me = call->rank->rank;
    layout l;
    if (!layout_new(call, &l))
        return hccl_call_submit(call, NULL);
    for (uint32_t p = 0; p < n; p++) {
        uint64_t blocks = counts ? counts[p] : count, at = displs ? displs[p] : p * count;
        switch (cmd) {
        case HCCL_CMD_BROADCAST: /* root: its send to every rank (itself included: recv may differ) */
            l.send_counts[p] = me == root ? count : 0;
            l.recv_counts[p] = p == root ? count : 0;
            break;
        case HCCL_CMD_SCATTER:
            l.send_counts[p] = me == root ? count : 0;
            l.send_displs[p] = p * count;
            l.recv_counts[p] = p == root ? count : 0;
            break;
        case HCCL_CMD_GATHER:
            l.send_counts[p] = p == root ? count : 0;
            l.recv_counts[p] = me == root ? count : 0;
            l.recv_displs[p] = p * count;
            break;
        default: /* AllGather(V): this rank's block to everyone, everyone's at its place */
            l.send_counts[p] = count;
            l.recv_counts[p] = blocks;
            l.recv_displs[p] = at;
        }
    }
    if (cmd == HCCL_CMD_BROADCAST && me == root && send == recv)
        l.send_counts[me] = l.recv_counts[me] = 0; /* in place: nothing to copy to itself */
    uint64_t digest = counts ? hccl_digest(0, counts, n * sizeof *counts) : 0;
    HcclResult rc = hccl_queue_all_to_all(call, cmd, dtype, root, counts ? 0 : count, digest, send, l.send_counts,
                                          l.send_displs, recv, l.recv_counts, l.recv_displs);
    free(l.send_counts);
    return rc;
}
