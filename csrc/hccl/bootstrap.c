/* The rendezvous as a rank sees it: the root info, the listener's address and port (the vendor's
 * variables choose them), joining a session, the key-value store, and who this host is.
 *
 * The address follows the vendor's order: HCCL_IF_IP, else the first interface HCCL_SOCKET_IFNAME
 * accepts, else the first non-loopback, non-docker interface by name, then docker's, then the
 * loopback. The port comes from HCCL_HOST_SOCKET_PORT_RANGE, else HCCL_IF_BASE_PORT..+31, else the
 * kernel chooses one (not the vendor's fixed 60000..60031, which concurrent jobs and test runs
 * would fight over). */
#include <arpa/inet.h>
#include <errno.h>
#include <ifaddrs.h>
#include <net/if.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>
#include "rendezvous.h"

#define ROOT_MAGIC "OPEMU-HCCL"
#define ROOT_VERSION 1

/* The root info's bytes (the rest of the 4,108 are zero). */
typedef struct {
    char magic[HCCL_ROOT_MAGIC_BYTES];
    uint32_t version;
    char ip[64];
    uint32_t port;
    char identifier[128];
    uint64_t nonce;
} root_record;

uint64_t hccl_random64(void)
{
    uint64_t value = 0;
    if (getrandom(&value, sizeof value, 0) != sizeof value)
        value = (uint64_t)getpid() * 6364136223846793005ULL ^ (uint64_t)(hccl_now() * 1e9);
    return value ? value : 1;
}

static char identity[128];

/* hostname, boot id and network namespace: namespaces on one machine count as hosts of their own. */
static void make_identity(void)
{
    char host[64] = "", boot[40] = "";
    gethostname(host, sizeof host - 1);
    FILE *f = fopen("/proc/sys/kernel/random/boot_id", "r");
    if (f) {
        if (fgets(boot, sizeof boot, f) == NULL)
            boot[0] = 0;
        fclose(f);
        boot[strcspn(boot, "\n")] = 0;
    }
    struct stat st;
    unsigned long long netns = stat("/proc/self/ns/net", &st) == 0 ? (unsigned long long)st.st_ino : 0;
    snprintf(identity, sizeof identity, "%s/%s/%llu", host, boot, netns);
}

const char *hccl_host_identity(void)
{
    static pthread_once_t once = PTHREAD_ONCE_INIT;
    pthread_once(&once, make_identity);
    return identity;
}

/* ---- the listener's address ---- */

static int name_accepted(const char *name, const char *rule)
{
    int exclude = rule[0] == '^', exact = rule[exclude] == '=';
    const char *list = rule + exclude + exact;
    int hit = 0;
    for (const char *p = list; *p && !hit;) {
        size_t n = strcspn(p, ",");
        hit = exact ? strlen(name) == n && strncmp(name, p, n) == 0 : n && strncmp(name, p, n) == 0;
        p += n + (p[n] == ',');
    }
    return exclude ? !hit : hit;
}

static int choose_address(char *ip, size_t size)
{
    const char *forced = getenv("HCCL_IF_IP");
    if (forced && *forced) {
        snprintf(ip, size, "%s", forced);
        return 0;
    }
    const char *rule = getenv("HCCL_SOCKET_IFNAME");
    struct ifaddrs *list;
    if (getifaddrs(&list) != 0)
        return -1;
    const char *best = NULL;
    int best_rank = 99;
    char best_name[IF_NAMESIZE + 1] = "";
    for (struct ifaddrs *a = list; a; a = a->ifa_next) {
        if (a->ifa_addr == NULL || a->ifa_addr->sa_family != AF_INET || !(a->ifa_flags & IFF_UP))
            continue;
        int loopback = (a->ifa_flags & IFF_LOOPBACK) != 0, docker = strncmp(a->ifa_name, "docker", 6) == 0;
        int rank = rule && *rule ? (name_accepted(a->ifa_name, rule) ? 0 : 99) : loopback ? 2 : docker ? 1 : 0;
        if (rank < best_rank || (rank == best_rank && strcmp(a->ifa_name, best_name) < 0)) {
            static char text[INET_ADDRSTRLEN];
            inet_ntop(AF_INET, &((struct sockaddr_in *)a->ifa_addr)->sin_addr, text, sizeof text);
            best = text;
            best_rank = rank;
            snprintf(best_name, sizeof best_name, "%s", a->ifa_name);
            snprintf(ip, size, "%s", best);
        }
    }
    freeifaddrs(list);
    if (best_rank == 99)
        snprintf(ip, size, "127.0.0.1");
    return 0;
}

void hccl_local_address(char *ip, size_t size)
{
    if (choose_address(ip, size) != 0)
        snprintf(ip, size, "127.0.0.1");
}

/* The ports to try, in order; 0 alone: the kernel's choice. */
static int port_candidates(uint32_t *ports, int room)
{
    const char *range = getenv("HCCL_HOST_SOCKET_PORT_RANGE");
    int n = 0;
    if (range && *range && strcmp(range, "auto") != 0) {
        for (const char *p = range; *p && n < room;) {
            char *end;
            unsigned long lo = strtoul(p, &end, 10), hi = lo;
            if (*end == '-')
                hi = strtoul(end + 1, &end, 10);
            for (unsigned long port = lo; port <= hi && port < 65536 && n < room; port++)
                ports[n++] = (uint32_t)port;
            p = *end == ',' ? end + 1 : end + strlen(end);
        }
        return n;
    }
    const char *base = range ? NULL : getenv("HCCL_IF_BASE_PORT");
    if (base && *base) {
        unsigned long first = strtoul(base, NULL, 10);
        for (unsigned long port = first; port < first + 32 && port < 65536 && n < room; port++)
            ports[n++] = (uint32_t)port;
        return n;
    }
    ports[0] = 0;
    return 1;
}

/* Binds a listening socket on ip and the first free port of `ports`; -1 when none is free. */
static int listen_on(const char *ip, const uint32_t *ports, int n_ports, uint32_t *bound)
{
    struct sockaddr_in addr;
    memset(&addr, 0, sizeof addr);
    addr.sin_family = AF_INET;
    if (inet_pton(AF_INET, ip, &addr.sin_addr) != 1)
        return -1;
    for (int i = 0; i < n_ports; i++) {
        int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
        if (fd < 0)
            return -1;
        int one = 1;
        setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
        addr.sin_port = htons((uint16_t)ports[i]);
        socklen_t len = sizeof addr;
        if (bind(fd, (struct sockaddr *)&addr, sizeof addr) == 0 && listen(fd, 512) == 0 &&
            getsockname(fd, (struct sockaddr *)&addr, &len) == 0) {
            *bound = ntohs(addr.sin_port);
            pthread_t thread;
            pthread_attr_t attr;
            pthread_attr_init(&attr);
            pthread_attr_setdetachstate(&attr, PTHREAD_CREATE_DETACHED);
            int started = pthread_create(&thread, &attr, rv_accept_loop, (void *)(intptr_t)fd) == 0;
            pthread_attr_destroy(&attr);
            if (started)
                return 0;
        }
        close(fd);
    }
    return -1;
}

static pthread_mutex_t listeners_lock = PTHREAD_MUTEX_INITIALIZER;
static struct {
    char ip[64];
    uint32_t port;
} listeners[32];
static int n_listeners;

static void fill(hccl_root_address *out, const char *ip, uint32_t port, uint64_t nonce)
{
    memset(out, 0, sizeof *out);
    snprintf(out->ip, sizeof out->ip, "%s", ip);
    out->port = port;
    out->nonce = nonce;
    snprintf(out->identifier, sizeof out->identifier, "%s_%u_%d_%llx", ip, port, (int)getpid(),
             (unsigned long long)nonce);
}

HcclResult hccl_root_open(hccl_root_address *out)
{
    pthread_mutex_lock(&listeners_lock);
    if (n_listeners == 0) {
        char ip[64];
        uint32_t ports[1024], port;
        int n = port_candidates(ports, 1024);
        if (choose_address(ip, sizeof ip) != 0 || listen_on(ip, ports, n, &port) != 0) {
            pthread_mutex_unlock(&listeners_lock);
            return hccl_fail(HCCL_E_UNAVAIL, "HcclGetRootInfo: no port to listen on at %s (HCCL_HOST_SOCKET_PORT_RANGE"
                             " / HCCL_IF_BASE_PORT): %s", ip, strerror(errno));
        }
        snprintf(listeners[0].ip, sizeof listeners[0].ip, "%s", ip);
        listeners[0].port = port;
        n_listeners = 1;
    }
    fill(out, listeners[0].ip, listeners[0].port, hccl_random64());
    pthread_mutex_unlock(&listeners_lock);
    rv_session_open(out->nonce);
    return HCCL_SUCCESS;
}

/* The session opens before the port listens: the table's other ranks start at the same time as rank 0
 * and may connect the moment it listens, and must not find the port serving no such communicator. */
HcclResult hccl_root_listen(const char *ip, uint32_t port, uint64_t nonce, hccl_root_address *out)
{
    rv_session_open(nonce);
    pthread_mutex_lock(&listeners_lock);
    int found = 0;
    for (int i = 0; i < n_listeners && !found; i++)
        found = listeners[i].port == port && strcmp(listeners[i].ip, ip) == 0;
    if (!found) {
        uint32_t bound;
        const char *bind_ip = strcmp(ip, "127.0.0.1") == 0 ? ip : "0.0.0.0";
        if (n_listeners == 32 || listen_on(bind_ip, &port, 1, &bound) != 0) {
            int error = errno;
            pthread_mutex_unlock(&listeners_lock);
            hccl_root_close(nonce);
            return hccl_fail(HCCL_E_UNAVAIL, "rank 0 cannot listen on %s:%u for the other ranks: %s", ip, port,
                             strerror(error));
        }
        snprintf(listeners[n_listeners].ip, sizeof listeners[0].ip, "%s", ip);
        listeners[n_listeners++].port = port;
    }
    pthread_mutex_unlock(&listeners_lock);
    fill(out, ip, port, nonce);
    return HCCL_SUCCESS;
}

void hccl_root_encode(const hccl_root_address *address, HcclRootInfo *info)
{
    root_record r;
    memset(info, 0, sizeof *info);
    memset(&r, 0, sizeof r);
    memcpy(r.magic, ROOT_MAGIC, sizeof ROOT_MAGIC);
    r.version = ROOT_VERSION;
    memcpy(r.ip, address->ip, sizeof r.ip);
    r.port = address->port;
    memcpy(r.identifier, address->identifier, sizeof r.identifier);
    r.nonce = address->nonce;
    memcpy(info->internal, &r, sizeof r);
}

HcclResult hccl_root_decode(const HcclRootInfo *info, hccl_root_address *out)
{
    root_record r;
    memcpy(&r, info->internal, sizeof r);
    if (memcmp(r.magic, ROOT_MAGIC, sizeof ROOT_MAGIC) != 0 || r.version != ROOT_VERSION)
        return hccl_fail(HCCL_E_PARA, "the root info was not made by HcclGetRootInfo (or was damaged on its way)");
    memset(out, 0, sizeof *out);
    memcpy(out->ip, r.ip, sizeof out->ip - 1);
    out->port = r.port;
    out->nonce = r.nonce;
    memcpy(out->identifier, r.identifier, sizeof out->identifier - 1);
    return HCCL_SUCCESS;
}

/* MCCL's unique id: 128 bytes, the address and nonce only. */
typedef struct {
    char magic[8];
    uint32_t port;
    uint32_t reserved;
    uint64_t nonce;
    char ip[64];
} unique_record;

void hccl_unique_id_encode(const hccl_root_address *address, char id[128])
{
    unique_record r;
    memset(&r, 0, sizeof r);
    memcpy(r.magic, "OPEMU-MC", sizeof r.magic);
    r.port = address->port;
    r.nonce = address->nonce;
    memcpy(r.ip, address->ip, sizeof r.ip);
    memset(id, 0, 128);
    memcpy(id, &r, sizeof r);
}

HcclResult hccl_unique_id_decode(const char id[128], hccl_root_address *out)
{
    unique_record r;
    memcpy(&r, id, sizeof r);
    if (memcmp(r.magic, "OPEMU-MC", sizeof r.magic) != 0)
        return hccl_fail(HCCL_E_PARA, "the unique id was not made by mcclGetUniqueId (or was damaged on its way)");
    fill(out, "", r.port, r.nonce);
    memcpy(out->ip, r.ip, sizeof out->ip - 1);
    snprintf(out->identifier, sizeof out->identifier, "mccl_%s_%u_%llx", out->ip, r.port, (unsigned long long)r.nonce);
    return HCCL_SUCCESS;
}

/* ---- the client ---- */

/* A connection to the root's listener, retried until the deadline (the root may not listen yet). */
static int connect_root(const hccl_root_address *root, double deadline, HcclResult *rc)
{
    struct sockaddr_in addr;
    memset(&addr, 0, sizeof addr);
    addr.sin_family = AF_INET;
    addr.sin_port = htons((uint16_t)root->port);
    if (inet_pton(AF_INET, root->ip, &addr.sin_addr) != 1) {
        *rc = hccl_fail(HCCL_E_PARA, "the root info names no IPv4 address (%s)", root->ip);
        return -1;
    }
    int error = 0;
    do {
        int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
        if (fd < 0)
            break;
        if (connect(fd, (struct sockaddr *)&addr, sizeof addr) == 0) {
            int one = 1;
            setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
            return fd;
        }
        error = errno;
        close(fd);
        usleep(50000);
    } while (hccl_now() < deadline);
    *rc = hccl_fail(HCCL_E_TCP_CONNECT, "no rendezvous answers at %s:%u (the root's process is gone, or has not "
                    "called HcclGetRootInfo) within the connect timeout (HCCL_CONNECT_TIMEOUT): %s", root->ip,
                    root->port, strerror(error));
    return -1;
}

static int request(const hccl_root_address *root, uint32_t type, double deadline, HcclResult *rc)
{
    int fd = connect_root(root, deadline, rc);
    if (fd < 0)
        return -1;
    rv_header h;
    memset(&h, 0, sizeof h);
    memcpy(h.magic, RV_MAGIC, sizeof h.magic);
    h.type = type;
    h.nonce = root->nonce;
    if (rv_send_all(fd, &h, sizeof h) != 0) {
        close(fd);
        *rc = hccl_fail(HCCL_E_TCP_TRANSFER, "the rendezvous at %s:%u closed the connection", root->ip, root->port);
        return -1;
    }
    return fd;
}

HcclResult hccl_rendezvous_join(const hccl_root_address *root, uint64_t sub, uint32_t size, uint32_t rank,
                                int32_t device, double deadline, hccl_member **members,
                                hccl_transport_kind *transport)
{
    HcclResult rc = HCCL_SUCCESS;
    int fd = request(root, RV_JOIN, deadline, &rc);
    if (fd < 0)
        return rc;
    rv_join body;
    memset(&body, 0, sizeof body);
    body.sub = sub;
    body.size = size;
    body.rank = rank;
    body.timeout = deadline - hccl_now();
    body.member.pid = (int32_t)getpid();
    body.member.device = device;
    snprintf(body.member.host, sizeof body.member.host, "%s", hccl_host_identity());
    rv_join_reply reply;
    hccl_member *table = NULL;
    if (rv_send_all(fd, &body, sizeof body) != 0 || rv_recv_all(fd, &reply, sizeof reply, deadline + 5) != 0) {
        close(fd);
        return hccl_fail(HCCL_E_TCP_TRANSFER, "the rendezvous at %s:%u did not answer rank %u", root->ip, root->port,
                         rank);
    }
    if (reply.status == HCCL_SUCCESS) {
        table = reply.size == size ? malloc(size * sizeof *table) : NULL;
        if (table == NULL || rv_recv_all(fd, table, size * sizeof *table, deadline + 5) != 0) {
            free(table);
            close(fd);
            return hccl_fail(HCCL_E_TCP_TRANSFER, "the rendezvous's table of ranks did not arrive");
        }
    }
    close(fd);
    if (reply.status != HCCL_SUCCESS)
        return hccl_fail((HcclResult)reply.status, "%s", reply.message);
    *members = table;
    *transport = (hccl_transport_kind)reply.transport;
    return HCCL_SUCCESS;
}

HcclResult hccl_store_set(const hccl_root_address *root, uint64_t session, const char *key, const void *value,
                          uint32_t size)
{
    HcclResult rc = HCCL_SUCCESS;
    if (size > RV_VALUE_MAX)
        return hccl_fail(HCCL_E_PARA, "a rendezvous value of %u bytes is too large", size);
    int fd = request(root, RV_SET, hccl_now() + 30, &rc);
    if (fd < 0)
        return rc;
    rv_store body;
    memset(&body, 0, sizeof body);
    body.sub = session;
    snprintf(body.key, sizeof body.key, "%s", key);
    body.size = size;
    int32_t status = HCCL_E_TCP_TRANSFER;
    if (rv_send_all(fd, &body, sizeof body) != 0 || rv_send_all(fd, value, size) != 0 ||
        rv_recv_all(fd, &status, sizeof status, hccl_now() + 30) != 0)
        status = HCCL_E_TCP_TRANSFER;
    close(fd);
    return status == HCCL_SUCCESS ? HCCL_SUCCESS : hccl_fail((HcclResult)status, "storing %s at the rendezvous "
                                                             "failed", key);
}

HcclResult hccl_store_get(const hccl_root_address *root, uint64_t session, const char *key, void *value,
                          uint32_t capacity, uint32_t *size, double deadline)
{
    HcclResult rc = HCCL_SUCCESS;
    int fd = request(root, RV_GET, deadline, &rc);
    if (fd < 0)
        return rc;
    rv_store body;
    memset(&body, 0, sizeof body);
    body.sub = session;
    snprintf(body.key, sizeof body.key, "%s", key);
    body.timeout = deadline - hccl_now();
    rv_store_reply reply = {HCCL_E_TCP_TRANSFER, 0};
    if (rv_send_all(fd, &body, sizeof body) != 0 || rv_recv_all(fd, &reply, sizeof reply, deadline + 5) != 0)
        reply.status = HCCL_E_TCP_TRANSFER;
    if (reply.status == HCCL_SUCCESS && (reply.size > capacity || rv_recv_all(fd, value, reply.size, deadline + 5)))
        reply.status = HCCL_E_TCP_TRANSFER;
    close(fd);
    if (reply.status != HCCL_SUCCESS)
        return hccl_fail((HcclResult)reply.status, "the rendezvous has no %s within the timeout", key);
    *size = reply.size;
    return HCCL_SUCCESS;
}
