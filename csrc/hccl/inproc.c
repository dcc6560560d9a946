/* The in-process transport: every rank of the communicator lives in this process (one thread per
 * device, or one thread for all of them).
 *
 * The ranks share one group object. An operation arrives in its slot (keyed by its sequence
 * number) when its stream reaches it; the last rank to arrive runs the whole collective for every
 * rank, reading and writing their device buffers directly, and completes every rank's stream task.
 * No thread waits for another, so one thread may queue operations for all ranks. A slot still
 * missing ranks when its deadline passes fails every rank that arrived (a watchdog thread checks).
 * Sends and receives are matched in order per (source, destination) pair. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "hccl_internal.h"

typedef struct slot {
    uint64_t seq;
    uint32_t arrived;
    double deadline;
    hccl_op **ops; /* [size] */
    struct slot *next;
} slot;

typedef struct posted {
    hccl_op *op;
    uint32_t item;
    struct posted *next;
} posted;

typedef struct group {
    uint64_t id;
    uint32_t size;
    uint32_t members; /* views joined and not left */
    pthread_mutex_t lock;
    hccl_rank **views;
    int *left;
    slot *slots;
    posted **sends; /* [src * size + dst]: sends nobody received yet */
    posted **recvs; /* [src * size + dst]: receives nothing was sent for yet */
    struct group *next;
} group;

static pthread_mutex_t groups_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t watch_wake = PTHREAD_COND_INITIALIZER;
static group *groups;
static int watchdog_started;

static void start_watchdog(void);

HcclResult hccl_inproc_join(hccl_rank *r)
{
    pthread_mutex_lock(&groups_lock);
    group *g = groups;
    while (g && g->id != r->id)
        g = g->next;
    if (g == NULL) {
        g = calloc(1, sizeof *g);
        size_t pairs = (size_t)r->size * r->size;
        if (g) {
            g->views = calloc(r->size, sizeof *g->views);
            g->left = calloc(r->size, sizeof *g->left);
            g->sends = calloc(pairs, sizeof *g->sends);
            g->recvs = calloc(pairs, sizeof *g->recvs);
        }
        if (g == NULL || !g->views || !g->left || !g->sends || !g->recvs) {
            if (g) {
                free(g->views);
                free(g->left);
                free(g->sends);
                free(g->recvs);
            }
            free(g);
            pthread_mutex_unlock(&groups_lock);
            return hccl_fail(HCCL_E_MEMORY, "out of host memory joining the communicator");
        }
        g->id = r->id;
        g->size = r->size;
        pthread_mutex_init(&g->lock, NULL);
        g->next = groups;
        groups = g;
    }
    HcclResult rc = HCCL_SUCCESS;
    pthread_mutex_lock(&g->lock);
    if (g->size != r->size || g->views[r->rank] || g->left[r->rank])
        rc = hccl_fail(HCCL_E_PARA, "rank %u of communicator %s joined twice (or with another size)", r->rank, r->name);
    else {
        g->views[r->rank] = r;
        g->members++;
        r->link = g;
    }
    pthread_mutex_unlock(&g->lock);
    pthread_mutex_unlock(&groups_lock);
    return rc;
}

/* ---- running a collective with every rank's part at hand ---- */

static HcclResult mismatch(hccl_op **ops, uint32_t i, uint32_t j, uint64_t sent, uint64_t expected, char *message,
                           size_t size)
{
    snprintf(message, size, "[TaskExecStage][OpInconsistent] %s #%llu: rank %u sends rank %u %llu bytes, rank %u "
             "expects %llu bytes from rank %u", hccl_cmd_name(ops[i]->sig.cmd), (unsigned long long)ops[i]->sig.seq, i,
             j, (unsigned long long)sent, j, (unsigned long long)expected, i);
    return HCCL_E_PARA;
}

/* Copies every block; a source another destination of its rank overlaps is copied aside first. */
static HcclResult all_to_all(hccl_op **ops, uint32_t n, int s, char *message, size_t size)
{
    for (uint32_t i = 0; i < n; i++)
        for (uint32_t j = 0; j < n; j++)
            if (ops[i]->steps[s].send[j].bytes != ops[j]->steps[s].recv[i].bytes)
                return mismatch(ops, i, j, ops[i]->steps[s].send[j].bytes, ops[j]->steps[s].recv[i].bytes, message,
                                size);
    for (uint32_t i = 0; i < n; i++) {
        hccl_step *st = &ops[i]->steps[s];
        for (uint32_t j = 0; j < n; j++) {
            hccl_block *src = &st->send[j];
            int aside = 0;
            for (uint32_t k = 0; k < n && !aside; k++) {
                hccl_block *dst = &ops[k]->steps[s].recv[i];
                aside = (k != j || dst->ptr != src->ptr) && hccl_overlap(src->ptr, src->bytes, dst->ptr, dst->bytes);
                for (uint32_t l = 0; l < n && !aside; l++)
                    aside = l != j && hccl_overlap(src->ptr, src->bytes, st->recv[l].ptr, st->recv[l].bytes);
            }
            if (aside) {
                char *copy = hccl_op_alloc(ops[i], src->bytes);
                if (copy == NULL) {
                    snprintf(message, size, "out of host memory staging an overlapping buffer");
                    return HCCL_E_MEMORY;
                }
                memcpy(copy, src->ptr, src->bytes);
                src->ptr = copy;
            }
        }
    }
    for (uint32_t i = 0; i < n; i++)
        for (uint32_t j = 0; j < n; j++) {
            hccl_block *src = &ops[i]->steps[s].send[j], *dst = &ops[j]->steps[s].recv[i];
            if (src->bytes && src->ptr != dst->ptr)
                memmove(dst->ptr, src->ptr, src->bytes);
        }
    return HCCL_SUCCESS;
}

static HcclResult reduce_scatter(hccl_op **ops, uint32_t n, int s, char *message, size_t size)
{
    char **inputs = malloc(n * sizeof *inputs);
    if (inputs == NULL) {
        snprintf(message, size, "out of host memory");
        return HCCL_E_MEMORY;
    }
    HcclResult rc = HCCL_SUCCESS;
    for (uint32_t j = 0; j < n && rc == HCCL_SUCCESS; j++) {
        for (uint32_t i = 0; i < n; i++)
            inputs[i] = ops[i]->steps[s].send[j].ptr;
        hccl_step *st = &ops[j]->steps[s];
        rc = hccl_reduce(st->dtype, st->op, n, inputs, st->recv[0].ptr, st->counts[j]);
        if (rc)
            snprintf(message, size, "the reduction failed: %s", aclGetRecentErrMsg() ? aclGetRecentErrMsg() : "");
    }
    free(inputs);
    return rc;
}

static void execute(slot *sl, uint32_t n)
{
    hccl_op **ops = sl->ops;
    char message[1024];
    HcclResult rc = HCCL_SUCCESS;
    for (uint32_t i = 1; i < n && rc == HCCL_SUCCESS; i++)
        if (hccl_signatures_differ(&ops[0]->sig, 0, &ops[i]->sig, i, message, sizeof message))
            rc = HCCL_E_PARA;
    for (int s = 0; s < ops[0]->n_steps && rc == HCCL_SUCCESS; s++)
        rc = ops[0]->steps[s].kind == HCCL_STEP_ALLTOALL ? all_to_all(ops, n, s, message, sizeof message)
                                                         : reduce_scatter(ops, n, s, message, sizeof message);
    for (uint32_t i = 0; i < n; i++)
        hccl_op_finish(ops[i], rc, rc ? message : NULL);
}

static void free_slot(slot *sl)
{
    free(sl->ops);
    free(sl);
}

/* ---- point to point ---- */

static void purge(posted **lists, uint32_t pairs, hccl_op *op)
{
    for (uint32_t k = 0; k < pairs; k++)
        for (posted **p = &lists[k]; *p;) {
            if ((*p)->op == op) {
                posted *gone = *p;
                *p = gone->next;
                free(gone);
            } else {
                p = &(*p)->next;
            }
        }
}

/* Matches or queues every transfer of the op; ops that become complete or broken are added to done/broken. */
static void post_p2p(group *g, hccl_rank *r, hccl_op *op, hccl_op **done, uint32_t *n_done, char *message,
                     size_t size, hccl_op **broken)
{
    uint32_t pairs = g->size * g->size;
    for (uint32_t k = 0; k < op->n_p2p && *broken == NULL; k++) {
        hccl_p2p *it = &op->p2p[k];
        uint32_t key = it->is_send ? r->rank * g->size + it->peer : it->peer * g->size + r->rank;
        posted **other = it->is_send ? &g->recvs[key] : &g->sends[key];
        if (*other == NULL) {
            posted *entry = calloc(1, sizeof *entry), **tail = it->is_send ? &g->sends[key] : &g->recvs[key];
            if (entry == NULL) {
                snprintf(message, size, "out of host memory");
                *broken = op;
                break;
            }
            *entry = (posted){op, k, NULL};
            while (*tail)
                tail = &(*tail)->next;
            *tail = entry;
            continue;
        }
        posted *match = *other;
        *other = match->next;
        hccl_p2p *peer_item = &match->op->p2p[match->item];
        hccl_p2p *send = it->is_send ? it : peer_item, *recv = it->is_send ? peer_item : it;
        if (send->bytes != recv->bytes || send->dtype != recv->dtype) {
            snprintf(message, size, "[TaskExecStage][OpInconsistent] rank %u sends rank %u %llu elements of %s, "
                     "rank %u receives %llu elements of %s", it->is_send ? r->rank : it->peer,
                     it->is_send ? it->peer : r->rank, (unsigned long long)send->count, hccl_dtype_name(send->dtype),
                     it->is_send ? it->peer : r->rank, (unsigned long long)recv->count, hccl_dtype_name(recv->dtype));
            broken[0] = op;
            broken[1] = match->op;
            free(match);
            break;
        }
        if (send->bytes)
            memmove(recv->ptr, send->ptr, send->bytes);
        it->done = peer_item->done = 1;
        if (--match->op->p2p_left == 0)
            done[(*n_done)++] = match->op;
        if (--op->p2p_left == 0)
            done[(*n_done)++] = op;
        free(match);
    }
    for (int b = 0; b < 2; b++)
        if (broken[b]) {
            purge(g->sends, pairs, broken[b]);
            purge(g->recvs, pairs, broken[b]);
        }
}

static void submit_p2p(group *g, hccl_rank *r, hccl_op *op)
{
    op->p2p_left = op->n_p2p;
    hccl_op **done = malloc((op->n_p2p + 1) * 2 * sizeof *done);
    hccl_op *broken[2] = {NULL, NULL};
    uint32_t n_done = 0;
    char message[512] = "";
    if (done == NULL) {
        hccl_op_finish(op, HCCL_E_MEMORY, "out of host memory");
        return;
    }
    pthread_mutex_lock(&g->lock);
    for (uint32_t k = 0; k < op->n_p2p && broken[0] == NULL; k++)
        if (g->left[op->p2p[k].peer]) {
            snprintf(message, sizeof message, "[TaskExecStage] rank %u destroyed its communicator", op->p2p[k].peer);
            broken[0] = op;
        }
    if (broken[0] == NULL)
        post_p2p(g, r, op, done, &n_done, message, sizeof message, broken);
    pthread_mutex_unlock(&g->lock);
    for (uint32_t i = 0; i < n_done; i++)
        if (done[i] != broken[0] && done[i] != broken[1])
            hccl_op_finish(done[i], HCCL_SUCCESS, NULL);
    hccl_ops_fail(broken, broken[1] == broken[0] ? 1 : 2, HCCL_E_PARA, message);
    free(done);
    start_watchdog();
}

/* ---- the transport ---- */

static void submit(hccl_rank *r, hccl_op *op)
{
    group *g = r->link;
    if (op->n_p2p) {
        submit_p2p(g, r, op);
        return;
    }
    pthread_mutex_lock(&g->lock);
    for (uint32_t k = 0; k < g->size; k++)
        if (g->left[k]) {
            pthread_mutex_unlock(&g->lock);
            char message[256];
            snprintf(message, sizeof message, "[TaskExecStage] rank %u destroyed its communicator: %s #%llu cannot "
                     "complete", k, hccl_cmd_name(op->sig.cmd), (unsigned long long)op->sig.seq);
            hccl_op_finish(op, HCCL_E_REMOTE, message);
            return;
        }
    slot **p = &g->slots;
    while (*p && (*p)->seq != op->sig.seq)
        p = &(*p)->next;
    slot *sl = *p;
    if (sl == NULL) {
        sl = calloc(1, sizeof *sl);
        if (sl)
            sl->ops = calloc(g->size, sizeof *sl->ops);
        if (sl == NULL || sl->ops == NULL) {
            free(sl);
            pthread_mutex_unlock(&g->lock);
            hccl_op_finish(op, HCCL_E_MEMORY, "out of host memory");
            return;
        }
        sl->seq = op->sig.seq;
        sl->deadline = op->deadline;
        sl->next = g->slots;
        g->slots = sl;
    }
    sl->ops[r->rank] = op;
    if (op->deadline && (sl->deadline == 0 || op->deadline < sl->deadline))
        sl->deadline = op->deadline;
    int complete = ++sl->arrived == g->size;
    if (complete)
        for (p = &g->slots; *p; p = &(*p)->next)
            if (*p == sl) {
                *p = sl->next;
                break;
            }
    pthread_mutex_unlock(&g->lock);
    if (complete) {
        execute(sl, g->size);
        free_slot(sl);
    } else {
        start_watchdog();
    }
}

/* A deferred stream waiting for this communicator runs the peers' streams up to their part. */
static void help(void *arg)
{
    hccl_rank *r = arg;
    group *g = r->link;
    opemu_stream *streams[64];
    uint32_t n = 0;
    pthread_mutex_lock(&g->lock);
    for (uint32_t k = 0; k < g->size && n < 64; k++)
        if (g->views[k] && g->views[k] != r && g->views[k]->last_stream)
            streams[n++] = g->views[k]->last_stream;
    pthread_mutex_unlock(&g->lock);
    for (uint32_t k = 0; k < n; k++)
        if (opemu_handle_is(streams[k], OPEMU_KIND_STREAM))
            opemu_stream_advance(streams[k]);
}

/* Takes out every op of the slots and transfers `which` selects, into `failed` (at most `room`), with
 * the message saying why (and which ranks a slot missed). */
typedef struct {
    hccl_op *ops[256];
    uint32_t n;
    char message[512];
} failures;

static void take_failures(group *g, int (*which)(slot *, hccl_op *, double), double now, const char *why,
                          failures *out)
{
    out->n = 0;
    snprintf(out->message, sizeof out->message, "%s", why);
    pthread_mutex_lock(&g->lock);
    for (slot **p = &g->slots; *p && out->n + g->size <= 256;) {
        slot *sl = *p;
        if (!which(sl, NULL, now)) {
            p = &sl->next;
            continue;
        }
        *p = sl->next;
        char missing[256] = "";
        size_t used = 0;
        for (uint32_t k = 0; k < g->size; k++) {
            if (sl->ops[k])
                out->ops[out->n++] = sl->ops[k];
            else if (used < sizeof missing - 16)
                used += (size_t)snprintf(missing + used, sizeof missing - used, "%s%u", used ? "," : "", k);
        }
        if (used)
            snprintf(out->message, sizeof out->message, "%s; ranks that never arrived: [%s]", why, missing);
        free_slot(sl);
    }
    uint32_t pairs = g->size * g->size;
    for (int list = 0; list < 2; list++) {
        posted **lists = list ? g->recvs : g->sends;
        for (uint32_t k = 0; k < pairs; k++)
            for (posted *e = lists[k]; e && out->n < 256; e = e->next) {
                if (!which(NULL, e->op, now))
                    continue;
                int seen = 0;
                for (uint32_t i = 0; i < out->n; i++)
                    seen |= out->ops[i] == e->op;
                if (!seen)
                    out->ops[out->n++] = e->op;
            }
    }
    for (uint32_t i = 0; i < out->n; i++) {
        purge(g->sends, pairs, out->ops[i]);
        purge(g->recvs, pairs, out->ops[i]);
    }
    pthread_mutex_unlock(&g->lock);
}

static int expired(slot *sl, hccl_op *op, double now)
{
    double deadline = sl ? sl->deadline : op->deadline;
    return deadline > 0 && now > deadline;
}

static int everything(slot *sl, hccl_op *op, double now)
{
    (void)sl, (void)op, (void)now;
    return 1;
}

static void *watchdog(void *unused)
{
    (void)unused;
    failures *f = malloc(sizeof *f);
    for (;;) {
        pthread_mutex_lock(&groups_lock);
        struct timespec until;
        clock_gettime(CLOCK_REALTIME, &until);
        until.tv_nsec += 50 * 1000000L;
        if (until.tv_nsec >= 1000000000L) {
            until.tv_sec++;
            until.tv_nsec -= 1000000000L;
        }
        pthread_cond_timedwait(&watch_wake, &groups_lock, &until);
        double now = hccl_now();
        f->n = 0;
        for (group *g = groups; g && f->n == 0; g = g->next)
            take_failures(g, expired, now, "[TaskExecStage][Timeout] ExceptionType:[Stuck Occurred] an operation "
                          "waited for its peers longer than the execution timeout (HCCL_EXEC_TIMEOUT)", f);
        pthread_mutex_unlock(&groups_lock);
        hccl_ops_fail(f->ops, f->n, HCCL_E_TIMEOUT, f->message);
    }
    return NULL;
}

static void start_watchdog(void)
{
    if (__atomic_load_n(&watchdog_started, __ATOMIC_ACQUIRE))
        return;
    pthread_mutex_lock(&groups_lock);
    if (!watchdog_started) {
        pthread_t thread;
        pthread_attr_t attr;
        pthread_attr_init(&attr);
        pthread_attr_setdetachstate(&attr, PTHREAD_CREATE_DETACHED);
        if (pthread_create(&thread, &attr, watchdog, NULL) == 0)
            __atomic_store_n(&watchdog_started, 1, __ATOMIC_RELEASE);
        pthread_attr_destroy(&attr);
    }
    pthread_mutex_unlock(&groups_lock);
}

/* Whatever this rank's peers still wait for in it fails now rather than at their deadline. */
static void leave(hccl_rank *r)
{
    group *g = r->link;
    pthread_mutex_lock(&groups_lock);
    pthread_mutex_lock(&g->lock);
    g->views[r->rank] = NULL;
    g->left[r->rank] = 1;
    int last = --g->members == 0;
    pthread_mutex_unlock(&g->lock);
    if (last)
        for (group **p = &groups; *p; p = &(*p)->next)
            if (*p == g) {
                *p = g->next;
                break;
            }
    pthread_mutex_unlock(&groups_lock);
    char why[160];
    snprintf(why, sizeof why, "[TaskExecStage] rank %u destroyed its communicator while operations were pending",
             r->rank);
    failures *f = malloc(sizeof *f);
    if (f) {
        take_failures(g, everything, 0, why, f);
        hccl_ops_fail(f->ops, f->n, HCCL_E_REMOTE, f->message);
        free(f);
    }
    if (last) {
        pthread_mutex_destroy(&g->lock);
        free(g->views);
        free(g->left);
        free(g->sends);
        free(g->recvs);
        free(g);
    }
}

const hccl_transport hccl_inproc_transport = {HCCL_INPROC, submit, help, leave};
