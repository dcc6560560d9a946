/* The progress thread of a rank whose transport talks to other processes (shared memory, Gloo): it
 * runs the rank's ops one after the other, as they reach it from the streams. Once an op fails half
 * way the transport's state is unknown, so every later op fails the same way at once. */
#include <stdio.h>
#include <stdlib.h>
#include "hccl_internal.h"

struct hccl_worker {
    hccl_rank *rank;
    hccl_work_fn run;
    void *state;
    void (*broke)(void *state);
    pthread_t thread;
    pthread_mutex_t lock;
    pthread_cond_t wake;
    hccl_op *head, *tail;
    int stop;
    HcclResult broken;
    char broken_message[1024];
};

/* The device memory it moves stays accessible meanwhile, as during an API call (the sanitizer's pages). */
static HcclResult run(hccl_worker *w, hccl_op *op, char *message, size_t size)
{
    opemu_sanitize_work_begins();
    HcclResult rc = w->run(w->state, w->rank, op, message, size);
    opemu_sanitize_work_ends();
    return rc;
}

static void *progress(void *arg)
{
    hccl_worker *w = arg;
    char message[1024];
    pthread_mutex_lock(&w->lock);
    for (;;) {
        while (w->head == NULL && !w->stop)
            pthread_cond_wait(&w->wake, &w->lock);
        hccl_op *op = w->head;
        if (op == NULL)
            break;
        w->head = op->next;
        if (w->head == NULL)
            w->tail = NULL;
        pthread_mutex_unlock(&w->lock);
        HcclResult rc = w->broken;
        if (rc)
            snprintf(message, sizeof message, "%s", w->broken_message);
        else if (__atomic_load_n(&w->stop, __ATOMIC_ACQUIRE)) {
            rc = HCCL_E_PARA;
            snprintf(message, sizeof message, "the communicator was destroyed before the operation ran");
        } else if ((rc = run(w, op, message, sizeof message)) != HCCL_SUCCESS) {
            w->broken = rc;
            snprintf(w->broken_message, sizeof w->broken_message, "%s", message);
            if (w->broke)
                w->broke(w->state);
        }
        hccl_op_finish(op, rc, rc ? message : NULL);
        pthread_mutex_lock(&w->lock);
    }
    pthread_mutex_unlock(&w->lock);
    return NULL;
}

hccl_worker *hccl_worker_start(hccl_rank *rank, hccl_work_fn run, void *state, void (*broke)(void *state))
{
    hccl_worker *w = calloc(1, sizeof *w);
    if (w == NULL)
        return NULL;
    *w = (hccl_worker){.rank = rank, .run = run, .state = state, .broke = broke};
    pthread_mutex_init(&w->lock, NULL);
    pthread_cond_init(&w->wake, NULL);
    if (pthread_create(&w->thread, NULL, progress, w) != 0) {
        pthread_mutex_destroy(&w->lock);
        pthread_cond_destroy(&w->wake);
        free(w);
        return NULL;
    }
    return w;
}

void hccl_worker_submit(hccl_worker *w, hccl_op *op)
{
    op->next = NULL;
    pthread_mutex_lock(&w->lock);
    if (w->tail)
        w->tail->next = op;
    else
        w->head = op;
    w->tail = op;
    pthread_cond_signal(&w->wake);
    pthread_mutex_unlock(&w->lock);
}

int hccl_worker_stopping(const hccl_worker *w) { return __atomic_load_n(&w->stop, __ATOMIC_ACQUIRE); }

void hccl_worker_stop(hccl_worker *w)
{
    pthread_mutex_lock(&w->lock);
    __atomic_store_n(&w->stop, 1, __ATOMIC_RELEASE);
    pthread_cond_signal(&w->wake);
    pthread_mutex_unlock(&w->lock);
    if (w->broke)
        w->broke(w->state); /* a wait in progress notices the stop */
    pthread_join(w->thread, NULL);
    pthread_mutex_destroy(&w->lock);
    pthread_cond_destroy(&w->wake);
    free(w);
}
