/* The rendezvous: how the ranks of a new communicator find each other.
 *
 * HcclGetRootInfo opens a session on this process's rendezvous listener (started once; TCP, on the
 * address and port the vendor's variables choose) and writes its address and a random nonce into
 * the root info. Every rank's HcclCommInitRootInfo connects there and says who it is; when all have
 * come, each gets the table of every rank (process, host, device) and the transport the
 * communicator uses: one process → in-process, one host → shared memory, else Gloo. A nonce the
 * listener does not know (a stale root info, a port another process took over) is refused at once.
 * The session lives as long as the root's communicator: sub-communicators meet in sub-sessions of
 * it, and it serves the key-value store Gloo's rendezvous uses.
 *
 * One thread accepts; each connection gets a thread of its own, which may wait for the other ranks
 * (bounded by the connect timeout). */
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>
#include "rendezvous.h"

typedef struct entry {
    char key[RV_KEY_BYTES];
    uint32_t size;
    char *value;
    struct entry *next;
} entry;

typedef struct session {
    uint64_t nonce;
    uint64_t sub;
    uint32_t size;
    uint32_t joined;
    uint32_t replied;
    int done;     /* every rank came: the table is final */
    int32_t status;
    char message[512];
    uint32_t transport;
    double deadline;
    hccl_member *members;
    char *present;
    entry *store;
    struct session *next;
} session;

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t changed = PTHREAD_COND_INITIALIZER;
static session *sessions;

/* Waits (lock held) for a session to change, or 0.1 s: the caller checks its deadline. */
static void wait_for_change(void)
{
    struct timespec until;
    clock_gettime(CLOCK_REALTIME, &until);
    until.tv_nsec += 100000000L;
    if (until.tv_nsec >= 1000000000L) {
        until.tv_sec++;
        until.tv_nsec -= 1000000000L;
    }
    pthread_cond_timedwait(&changed, &lock, &until);
}

static session *find(uint64_t nonce, uint64_t sub)
{
    for (session *s = sessions; s; s = s->next)
        if (s->nonce == nonce && s->sub == sub)
            return s;
    return NULL;
}

void rv_session_open(uint64_t nonce)
{
    pthread_mutex_lock(&lock);
    if (find(nonce, 0) == NULL) {
        session *s = calloc(1, sizeof *s);
        if (s) {
            s->nonce = nonce;
            s->next = sessions;
            sessions = s;
        }
    }
    pthread_mutex_unlock(&lock);
}

static void free_session(session *s)
{
    for (entry *e = s->store, *next; e; e = next) {
        next = e->next;
        free(e->value);
        free(e);
    }
    free(s->members);
    free(s->present);
    free(s);
}

void hccl_root_close(uint64_t nonce)
{
    pthread_mutex_lock(&lock);
    for (session **p = &sessions; *p;) {
        session *s = *p;
        /* a session still handing out its table stays until every rank has it */
        if (s->nonce == nonce && (s->done ? s->replied == s->size : s->joined == 0)) {
            *p = s->next;
            free_session(s);
        } else {
            p = &s->next;
        }
    }
    pthread_mutex_unlock(&lock);
}

/* ---- plumbing ---- */

int rv_send_all(int fd, const void *data, size_t size)
{
    const char *p = data;
    while (size) {
        ssize_t n = send(fd, p, size, MSG_NOSIGNAL);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0)
            return -1;
        p += n;
        size -= (size_t)n;
    }
    return 0;
}

int rv_recv_all(int fd, void *data, size_t size, double deadline)
{
    char *p = data;
    while (size) {
        double left = deadline > 0 ? deadline - hccl_now() : 1e9;
        if (left <= 0)
            return -2;
        struct pollfd pfd = {fd, POLLIN, 0};
        int ready = poll(&pfd, 1, left > 1e6 ? -1 : (int)(left * 1000) + 1);
        if (ready < 0 && errno == EINTR)
            continue;
        if (ready <= 0)
            continue;
        ssize_t n = recv(fd, p, size, 0);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0)
            return -1;
        p += n;
        size -= (size_t)n;
    }
    return 0;
}

/* The transport for the table: what OPEMU_HCCL_TRANSPORT forces, else who the ranks are. */
static uint32_t choose_transport(session *s, char *message, size_t size, int32_t *status)
{
    int one_process = 1, one_host = 1;
    for (uint32_t k = 1; k < s->size; k++) {
        one_process &= s->members[k].pid == s->members[0].pid && strcmp(s->members[k].host, s->members[0].host) == 0;
        one_host &= strcmp(s->members[k].host, s->members[0].host) == 0;
    }
    const char *forced = getenv("OPEMU_HCCL_TRANSPORT");
    uint32_t kind = one_process ? HCCL_INPROC : one_host ? HCCL_SHM : HCCL_GLOO;
    if (forced && *forced) {
        if (strcmp(forced, "inproc") == 0)
            kind = HCCL_INPROC;
        else if (strcmp(forced, "shm") == 0)
            kind = HCCL_SHM;
        else if (strcmp(forced, "gloo") == 0)
            kind = HCCL_GLOO;
        else
            opemu_setting_refused("OPEMU_HCCL_TRANSPORT", forced, "inproc, shm or gloo", "the ranks' choice");
    }
    *status = HCCL_SUCCESS;
    if (kind == HCCL_INPROC && !one_process) {
        *status = HCCL_E_NOT_SUPPORT;
        snprintf(message, size, "OPEMU_HCCL_TRANSPORT=inproc needs every rank in one process");
    } else if (kind == HCCL_SHM && !one_host) {
        *status = HCCL_E_NOT_SUPPORT;
        snprintf(message, size, "OPEMU_HCCL_TRANSPORT=shm needs every rank on one host");
    } else if (kind == HCCL_GLOO && !hccl_gloo_available()) {
        *status = HCCL_E_NOT_SUPPORT;
        snprintf(message, size, "multi-host HCCL needs opemu built with Gloo (apt install libgloo-dev, then "
                 "reinstall opemu): the ranks of this communicator are on %s", one_host ? "one host, but "
                 "OPEMU_HCCL_TRANSPORT=gloo was asked for" : "several hosts");
    }
    return kind;
}

/* ---- requests ---- */

static void serve_join(int fd, const rv_header *h, double now)
{
    rv_join body;
    rv_join_reply reply;
    memset(&reply, 0, sizeof reply);
    if (rv_recv_all(fd, &body, sizeof body, now + 10) != 0)
        return;
    pthread_mutex_lock(&lock);
    session *s = find(h->nonce, body.sub);
    if (s == NULL && body.sub != 0 && find(h->nonce, 0)) { /* a sub-communicator's first rank */
        s = calloc(1, sizeof *s);
        if (s) {
            s->nonce = h->nonce;
            s->sub = body.sub;
            s->next = sessions;
            sessions = s;
        }
    }
    if (s == NULL) {
        reply.status = HCCL_E_PARA;
        snprintf(reply.message, sizeof reply.message, "the root info is stale: the rendezvous at this address knows "
                 "no communicator being created with it (its root was destroyed, or another process now listens "
                 "on the port)");
    } else if (s->done || (s->size && s->size != body.size) || body.rank >= body.size || body.size == 0 ||
               (s->present && s->present[body.rank])) {
        reply.status = HCCL_E_PARA;
        snprintf(reply.message, sizeof reply.message, s->done ? "every rank of this root info's communicator has "
                 "already joined: a root info makes one communicator" : body.rank >= body.size ? "rank %u is not below "
                 "nRanks %u" : s->size != body.size && s->size ? "rank %u says nRanks is %u, another rank said %u"
                 : "rank %u joined twice", body.rank, body.size, s->size);
    } else {
        if (s->size == 0) {
            s->size = body.size;
            s->members = calloc(body.size, sizeof *s->members);
            s->present = calloc(body.size, 1);
            s->deadline = now + body.timeout;
            if (!s->members || !s->present) {
                reply.status = HCCL_E_MEMORY;
                snprintf(reply.message, sizeof reply.message, "the rendezvous is out of host memory");
            }
        }
        if (reply.status == HCCL_SUCCESS) {
            s->members[body.rank] = body.member;
            s->present[body.rank] = 1;
            if (++s->joined == s->size) {
                s->transport = choose_transport(s, s->message, sizeof s->message, &s->status);
                s->done = 1;
                pthread_cond_broadcast(&changed);
            }
            while (!s->done && hccl_now() < s->deadline)
                wait_for_change();
            if (!s->done) {
                reply.status = HCCL_E_TIMEOUT;
                size_t used = (size_t)snprintf(reply.message, sizeof reply.message, "the other ranks did not all "
                                               "join within the connect timeout (HCCL_CONNECT_TIMEOUT): %u of %u came; "
                                               "missing ranks: [", s->joined, s->size);
                for (uint32_t k = 0; k < s->size && used < sizeof reply.message - 16; k++)
                    if (!s->present[k])
                        used += (size_t)snprintf(reply.message + used, sizeof reply.message - used, "%u,", k);
                snprintf(reply.message + used - 1, sizeof reply.message - used + 1, "]");
                s->present[body.rank] = 0;
                s->joined--;
            } else {
                reply.status = s->status;
                reply.transport = s->transport;
                snprintf(reply.message, sizeof reply.message, "%s", s->message);
                s->replied++;
            }
        }
    }
    uint32_t members = reply.status == HCCL_SUCCESS ? s->size : 0;
    hccl_member *table = members ? malloc(members * sizeof *table) : NULL;
    if (table)
        memcpy(table, s->members, members * sizeof *table);
    pthread_mutex_unlock(&lock);
    reply.size = table ? members : 0;
    if (rv_send_all(fd, &reply, sizeof reply) == 0 && table)
        rv_send_all(fd, table, members * sizeof *table);
    free(table);
}

static void serve_set(int fd, const rv_header *h, double now)
{
    rv_store body;
    if (rv_recv_all(fd, &body, sizeof body, now + 10) != 0 || body.size > RV_VALUE_MAX)
        return;
    char *value = malloc(body.size ? body.size : 1);
    int32_t status = value && rv_recv_all(fd, value, body.size, now + 10) == 0 ? HCCL_SUCCESS : HCCL_E_TCP_TRANSFER;
    pthread_mutex_lock(&lock);
    session *s = find(h->nonce, body.sub);
    entry *e = status == HCCL_SUCCESS && s ? calloc(1, sizeof *e) : NULL;
    if (e) {
        memcpy(e->key, body.key, sizeof e->key);
        e->key[sizeof e->key - 1] = 0;
        e->size = body.size;
        e->value = value;
        value = NULL;
        e->next = s->store;
        s->store = e;
        pthread_cond_broadcast(&changed);
    } else if (status == HCCL_SUCCESS) {
        status = s ? HCCL_E_MEMORY : HCCL_E_PARA;
    }
    pthread_mutex_unlock(&lock);
    free(value);
    rv_send_all(fd, &status, sizeof status);
}

static void serve_get(int fd, const rv_header *h, double now)
{
    rv_store body;
    if (rv_recv_all(fd, &body, sizeof body, now + 10) != 0)
        return;
    body.key[sizeof body.key - 1] = 0;
    double deadline = now + body.timeout;
    int32_t status = HCCL_E_TIMEOUT;
    char *copy = NULL;
    uint32_t size = 0;
    pthread_mutex_lock(&lock);
    for (;;) {
        session *s = find(h->nonce, body.sub);
        if (s == NULL) {
            status = HCCL_E_PARA;
            break;
        }
        entry *e = s->store;
        while (e && strcmp(e->key, body.key) != 0)
            e = e->next;
        if (e) {
            copy = malloc(e->size ? e->size : 1);
            size = e->size;
            if (copy)
                memcpy(copy, e->value, size);
            status = copy ? HCCL_SUCCESS : HCCL_E_MEMORY;
            break;
        }
        if (hccl_now() >= deadline)
            break;
        wait_for_change();
    }
    pthread_mutex_unlock(&lock);
    rv_store_reply reply = {status, status == HCCL_SUCCESS ? size : 0};
    if (rv_send_all(fd, &reply, sizeof reply) == 0 && status == HCCL_SUCCESS)
        rv_send_all(fd, copy, size);
    free(copy);
}

static void *serve(void *arg)
{
    int fd = (int)(intptr_t)arg;
    rv_header h;
    double now = hccl_now();
    if (rv_recv_all(fd, &h, sizeof h, now + 10) == 0 && memcmp(h.magic, RV_MAGIC, sizeof h.magic) == 0) {
        if (h.type == RV_JOIN)
            serve_join(fd, &h, now);
        else if (h.type == RV_SET)
            serve_set(fd, &h, now);
        else if (h.type == RV_GET)
            serve_get(fd, &h, now);
    }
    close(fd);
    return NULL;
}

void *rv_accept_loop(void *arg)
{
    int listener = (int)(intptr_t)arg;
    for (;;) {
        int fd = accept(listener, NULL, NULL);
        if (fd < 0) {
            if (errno == EINTR || errno == ECONNABORTED || errno == EMFILE || errno == ENFILE) {
                if (errno != EINTR)
                    usleep(10000);
                continue;
            }
            break;
        }
        int one = 1;
        setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
        pthread_t thread;
        pthread_attr_t attr;
        pthread_attr_init(&attr);
        pthread_attr_setdetachstate(&attr, PTHREAD_CREATE_DETACHED);
        if (pthread_create(&thread, &attr, serve, (void *)(intptr_t)fd) != 0)
            close(fd);
        pthread_attr_destroy(&attr);
    }
    close(listener);
    return NULL;
}
