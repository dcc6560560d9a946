/* Operations as stream tasks.
 *
 * An HCCL call checks its arguments (vendor codes, at once), describes this rank's part as an op
 * (a signature every rank must agree on, and up to two steps a transport executes, or a batch of
 * point-to-point transfers) and queues it on the stream. When the stream reaches it, the op goes to
 * the communicator's transport and the task holds its stream: later tasks on that stream wait for it,
 * but the thread that queued it never does. The transport finishes it, from whichever thread saw
 * the last peer arrive, and the stream goes on from there (events recorded after it fire then).
 *
 * Between HcclGroupStart and HcclGroupEnd the calls of a thread are held and queued together at
 * the end; consecutive send/receive calls on one communicator and stream become one batch, whose
 * transfers are all posted before any is waited for. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "hccl_internal.h"

hccl_op *hccl_op_new(hccl_rank *rank, const char *api, int32_t cmd)
{
    hccl_op *op = calloc(1, sizeof *op);
    if (op == NULL)
        return NULL;
    op->rank = rank;
    hccl_rank_hold(rank);
    op->api = api;
    op->sig.cmd = cmd;
    op->sig.dtype = -1;
    op->sig.op = -1;
    op->sig.root = UINT32_MAX;
    return op;
}

void *hccl_op_alloc(hccl_op *op, size_t bytes)
{
    if (op->n_owned == (int)(sizeof op->owned / sizeof op->owned[0]))
        return NULL;
    void *p = calloc(1, bytes ? bytes : 1);
    if (p)
        op->owned[op->n_owned++] = p;
    return p;
}

void hccl_op_free(hccl_op *op)
{
    if (op == NULL)
        return;
    for (int i = 0; i < op->n_owned; i++)
        free(op->owned[i]);
    hccl_rank_release(op->rank);
    free(op);
}

void hccl_op_finish(hccl_op *op, HcclResult code, const char *message)
{
    opemu_stream *stream = op->stream;
    if (code == HCCL_SUCCESS) {
        hccl_op_free(op);
        opemu_stream_complete(stream, 0, NULL);
        return;
    }
    hccl_rank_set_error(op->rank, code);
    int status = hccl_stream_status(code);
    opemu_error_message(status, message);
    const char *formatted = aclGetRecentErrMsg();
    char text[2048];
    snprintf(text, sizeof text, "%s", formatted ? formatted : message);
    hccl_op_free(op);
    opemu_stream_complete(stream, status, text);
}

void hccl_ops_fail(hccl_op **ops, uint32_t n, HcclResult code, const char *message)
{
    for (uint32_t i = 0; i < n; i++)
        if (ops[i])
            hccl_op_finish(ops[i], code, message);
}

int hccl_signatures_differ(const hccl_signature *a, uint32_t rank_a, const hccl_signature *b, uint32_t rank_b,
                           char *message, size_t size)
{
    if (a->seq == b->seq && a->cmd == b->cmd && a->dtype == b->dtype && a->op == b->op && a->root == b->root &&
        a->count == b->count && a->digest == b->digest)
        return 0;
    snprintf(message, size, "[TaskExecStage][OpInconsistent] the ranks issued different operations (every rank "
             "must issue the same operations in the same order): rank %u issued #%llu %s(count=%llu, dataType=%s, "
             "op=%s, root=%d%s), rank %u issued #%llu %s(count=%llu, dataType=%s, op=%s, root=%d%s)",
             rank_a, (unsigned long long)a->seq, hccl_cmd_name(a->cmd), (unsigned long long)a->count,
             hccl_dtype_name(a->dtype) ? hccl_dtype_name(a->dtype) : "-", hccl_op_name(a->op) ? hccl_op_name(a->op) : "-",
             (int)a->root, a->digest != b->digest ? ", counts differ" : "", rank_b, (unsigned long long)b->seq,
             hccl_cmd_name(b->cmd), (unsigned long long)b->count,
             hccl_dtype_name(b->dtype) ? hccl_dtype_name(b->dtype) : "-", hccl_op_name(b->op) ? hccl_op_name(b->op) : "-",
             (int)b->root, a->digest != b->digest ? ", counts differ" : "");
    return 1;
}

/* ---- the stream task ---- */

typedef struct {
    hccl_op *op; /* NULL once the transport has it */
} collective_task;

static int run_collective(void *payload)
{
    collective_task *task = payload;
    hccl_op *op = task->op;
    task->op = NULL;
    hccl_rank *rank = op->rank;
    opemu_stream_hold(op->stream, 0, 0, NULL); /* until the op finishes (hccl_op_finish) */
    if (rank->destroyed) {
        hccl_op_finish(op, HCCL_E_PARA, "the communicator was destroyed before the operation ran");
        return 0;
    }
    double timeout = rank->exec_timeout;
    op->deadline = timeout > 0 ? hccl_now() + timeout : 0;
    if (rank->transport->help)
        opemu_stream_helper(op->stream, rank->transport->help, rank);
    rank->transport->submit(rank, op);
    return 0;
}

static void drop_collective(void *payload)
{
    collective_task *task = payload;
    hccl_op_free(task->op);
    free(task);
}

static HcclResult queue_on_stream(hccl_op *op)
{
    collective_task *task = malloc(sizeof *task);
    if (task == NULL) {
        HcclResult rc = hccl_fail(HCCL_E_MEMORY, "%s: out of host memory", op->api);
        hccl_op_free(op);
        return rc;
    }
    task->op = op;
    op->rank->last_stream = op->stream;
    opemu_stream_submit(op->stream, run_collective, drop_collective, task);
    return HCCL_SUCCESS;
}

/* ---- groups ---- */

static __thread int group_depth;
static __thread hccl_op *group_head, *group_tail;

/* One batch of the point-to-point ops of `first` and the ones after it on its communicator and stream. */
static hccl_op *merge_p2p(hccl_op *first)
{
    uint32_t total = 0;
    hccl_op *last = first;
    for (hccl_op *o = first; o && o->n_p2p && o->rank == first->rank && o->stream == first->stream; o = o->next) {
        total += o->n_p2p;
        last = o;
    }
    if (last == first)
        return first;
    hccl_op *batch = hccl_op_new(first->rank, "HcclGroupEnd", HCCL_CMD_BATCH_SEND_RECV);
    hccl_p2p *items = batch ? hccl_op_alloc(batch, total * sizeof *items) : NULL;
    if (items == NULL) {
        hccl_op_free(batch);
        return first;
    }
    batch->stream = first->stream;
    batch->p2p = items;
    batch->n_p2p = total;
    batch->next = last->next;
    for (hccl_op *o = first, *next; o != batch->next; o = next) {
        next = o->next;
        memcpy(items, o->p2p, o->n_p2p * sizeof *items);
        items += o->n_p2p;
        hccl_op_free(o);
    }
    return batch;
}

HcclResult hccl_op_enqueue(hccl_op *op)
{
    if (op->n_p2p == 0) { /* collectives are matched by their order on the communicator */
        pthread_mutex_lock(&op->rank->lock);
        op->sig.seq = op->rank->next_seq++;
        pthread_mutex_unlock(&op->rank->lock);
    }
    if (group_depth > 0) {
        op->next = NULL;
        if (group_tail)
            group_tail->next = op;
        else
            group_head = op;
        group_tail = op;
        return HCCL_SUCCESS;
    }
    return queue_on_stream(op);
}

static HcclResult group_start(void)
{
    group_depth++;
    return HCCL_SUCCESS;
}

static HcclResult group_end(const char *api)
{
    if (group_depth == 0)
        return hccl_fail(HCCL_E_PARA, "%s: no group was started on this thread (HcclGroupStart)", api);
    if (--group_depth > 0)
        return HCCL_SUCCESS;
    hccl_op *op = group_head;
    group_head = group_tail = NULL;
    HcclResult first = HCCL_SUCCESS;
    while (op) {
        if (op->n_p2p)
            op = merge_p2p(op);
        hccl_op *next = op->next;
        HcclResult rc = queue_on_stream(op);
        if (rc && !first)
            first = rc;
        op = next;
    }
    return first;
}

int hccl_group_open(void) { return group_depth > 0; }

OPEMU_EXPORT HcclResult HcclGroupStart(void) { return group_start(); }
OPEMU_EXPORT HcclResult HcclGroupEnd(void) { return group_end("HcclGroupEnd"); }

OPEMU_EXPORT HcclResult HcclGroupStatusGet(bool *isGroupEnabled)
{
    if (isGroupEnabled == NULL)
        return hccl_bad_argument(HCCL_E_PTR, "HcclGroupStatusGet", "nullptr", "isGroupEnabled", "non-null pointer");
    *isGroupEnabled = group_depth > 0;
    return HCCL_SUCCESS;
}

HcclResult hccl_group_start(void) { return group_start(); }
HcclResult hccl_group_end(void) { return group_end("mcclGroupEnd"); }
