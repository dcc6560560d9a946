/* Communicators: one rank's view (an HcclComm or mcclComm_t handle) joining its transport, its
 * queries and its end (rank.c keeps the view's lifetime). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "hccl_internal.h"

static pthread_mutex_t registry_lock = PTHREAD_MUTEX_INITIALIZER;
static hccl_rank **registry;
static size_t registry_size, registry_capacity;

hccl_rank *hccl_rank_create(uint32_t rank, uint32_t size, int32_t device, uint64_t id, const hccl_root_address *root,
                            hccl_member *members, hccl_transport_kind kind, const char *name, int32_t exec_timeout,
                            int is_mccl, double deadline, HcclResult *rc)
{
    hccl_rank *r = calloc(1, sizeof *r);
    if (r == NULL) {
        free(members);
        *rc = hccl_fail(HCCL_E_MEMORY, "out of host memory creating the communicator");
        return NULL;
    }
    r->rank = rank;
    r->size = size;
    r->device = device;
    r->id = id;
    if (root)
        r->root = *root;
    r->members = members;
    r->exec_timeout_config = exec_timeout;
    r->exec_timeout = hccl_exec_timeout(exec_timeout);
    r->is_mccl = is_mccl;
    snprintf(r->name, sizeof r->name, "%s", name);
    pthread_mutex_init(&r->lock, NULL);
    r->refs = 1;
    switch (kind) {
    case HCCL_INPROC:
        r->transport = &hccl_inproc_transport;
        *rc = hccl_inproc_join(r);
        break;
    case HCCL_SHM:
        r->transport = &hccl_shm_transport;
        *rc = hccl_shm_join(r, deadline);
        break;
    case HCCL_GLOO:
        r->transport = &hccl_gloo_transport;
        *rc = hccl_gloo_join(r, deadline);
        break;
    }
    if (*rc != HCCL_SUCCESS) {
        free(r->members);
        pthread_mutex_destroy(&r->lock);
        free(r);
        return NULL;
    }
    pthread_mutex_lock(&registry_lock);
    if (registry_size == registry_capacity) {
        size_t capacity = registry_capacity ? 2 * registry_capacity : 16;
        hccl_rank **grown = realloc(registry, capacity * sizeof *grown);
        if (grown) {
            registry = grown;
            registry_capacity = capacity;
        }
    }
    if (registry_size < registry_capacity)
        registry[registry_size++] = r;
    pthread_mutex_unlock(&registry_lock);
    opemu_handle_add(r, HCCL_KIND_COMM);
    return r;
}

void hccl_rank_destroy(hccl_rank *r)
{
    opemu_handle_remove(r);
    pthread_mutex_lock(&registry_lock);
    for (size_t i = 0; i < registry_size; i++) {
        if (registry[i] == r) {
            registry[i] = registry[--registry_size];
            break;
        }
    }
    pthread_mutex_unlock(&registry_lock);
    r->destroyed = 1;
    r->transport->leave(r);
    if (r->root.nonce && r->rank == 0)
        hccl_root_close(r->root.nonce);
    hccl_rank_release(r);
}

/* ---- queries ---- */

static HcclResult live(const char *api, HcclComm comm, const void *out, const char *out_name, hccl_rank **rank)
{
    if (comm == NULL)
        return hccl_bad_argument(HCCL_E_PTR, api, "nullptr", "comm", "non-null pointer");
    if (out == NULL)
        return hccl_bad_argument(HCCL_E_PTR, api, "nullptr", out_name, "non-null pointer");
    *rank = hccl_rank_of(comm);
    if (*rank == NULL) {
        char value[32];
        snprintf(value, sizeof value, "%p", comm);
        return hccl_bad_argument(HCCL_E_PARA, api, value, "comm", "a live communicator (created and not destroyed)");
    }
    return HCCL_SUCCESS;
}

OPEMU_EXPORT HcclResult HcclGetRankSize(HcclComm comm, uint32_t *rankSize)
{
    hccl_rank *r;
    HcclResult rc = live("HcclGetRankSize", comm, rankSize, "rankSize", &r);
    if (rc == HCCL_SUCCESS)
        *rankSize = r->size;
    return rc;
}

OPEMU_EXPORT HcclResult HcclGetRankId(HcclComm comm, uint32_t *rank)
{
    hccl_rank *r;
    HcclResult rc = live("HcclGetRankId", comm, rank, "rank", &r);
    if (rc == HCCL_SUCCESS)
        *rank = r->rank;
    return rc;
}

OPEMU_EXPORT HcclResult HcclGetCommName(HcclComm comm, char *commName)
{
    hccl_rank *r;
    HcclResult rc = live("HcclGetCommName", comm, commName, "commName", &r);
    if (rc == HCCL_SUCCESS)
        snprintf(commName, COMM_NAME_MAX_LENGTH, "%s", r->name);
    return rc;
}

OPEMU_EXPORT HcclResult HcclCommGetHandleWithName(const char *commName, HcclComm *comm)
{
    if (commName == NULL)
        return hccl_bad_argument(HCCL_E_PTR, "HcclCommGetHandleWithName", "nullptr", "commName", "non-null pointer");
    if (comm == NULL)
        return hccl_bad_argument(HCCL_E_PTR, "HcclCommGetHandleWithName", "nullptr", "comm", "non-null pointer");
    *comm = NULL;
    pthread_mutex_lock(&registry_lock);
    for (size_t i = 0; i < registry_size && *comm == NULL; i++)
        if (!registry[i]->is_mccl && strncmp(registry[i]->name, commName, COMM_NAME_MAX_LENGTH) == 0)
            *comm = registry[i];
    pthread_mutex_unlock(&registry_lock);
    if (*comm == NULL)
        return hccl_fail(HCCL_E_NOT_FOUND, "HcclCommGetHandleWithName: no communicator of this process is named "
                         "[%.128s]", commName);
    return HCCL_SUCCESS;
}

OPEMU_EXPORT HcclResult HcclGetCommAsyncError(HcclComm comm, HcclResult *asyncError)
{
    hccl_rank *r;
    HcclResult rc = live("HcclGetCommAsyncError", comm, asyncError, "asyncError", &r);
    if (rc == HCCL_SUCCESS) {
        pthread_mutex_lock(&r->lock);
        *asyncError = (HcclResult)r->async_error;
        pthread_mutex_unlock(&r->lock);
    }
    return rc;
}

OPEMU_EXPORT HcclResult HcclCommDestroy(HcclComm comm)
{
    if (comm == NULL)
        return hccl_bad_argument(HCCL_E_PTR, "HcclCommDestroy", "nullptr", "comm", "non-null pointer");
    hccl_rank *r = hccl_rank_of(comm);
    if (r == NULL || r->is_mccl) {
        char value[32];
        snprintf(value, sizeof value, "%p", comm);
        return hccl_bad_argument(HCCL_E_PARA, "HcclCommDestroy", value, "comm", "a live communicator");
    }
    hccl_rank_destroy(r);
    return HCCL_SUCCESS;
}

OPEMU_EXPORT uint32_t HcclGetCommConfigCapability(void) { return HCCL_COMM_CONFIG_RESERVED; }

/* HCCL_DETERMINISTIC: opemu's reductions are always deterministic (rank order); the value is kept. */
static int32_t deterministic_setting;

OPEMU_EXPORT HcclResult HcclSetConfig(HcclConfig config, HcclConfigValue configValue)
{
    if (config != HCCL_DETERMINISTIC) {
        char value[32];
        snprintf(value, sizeof value, "%d", (int)config);
        return hccl_bad_argument(HCCL_E_NOT_SUPPORT, "HcclSetConfig", value, "config", "HCCL_DETERMINISTIC");
    }
    if (configValue.value < 0 || configValue.value > 2) {
        char value[32];
        snprintf(value, sizeof value, "%d", (int)configValue.value);
        return hccl_bad_argument(HCCL_E_PARA, "HcclSetConfig", value, "configValue", "0, 1 or 2");
    }
    __atomic_store_n(&deterministic_setting, configValue.value, __ATOMIC_RELAXED);
    return HCCL_SUCCESS;
}

OPEMU_EXPORT HcclResult HcclGetConfig(HcclConfig config, HcclConfigValue *configValue)
{
    if (configValue == NULL)
        return hccl_bad_argument(HCCL_E_PTR, "HcclGetConfig", "nullptr", "configValue", "non-null pointer");
    if (config != HCCL_DETERMINISTIC) {
        char value[32];
        snprintf(value, sizeof value, "%d", (int)config);
        return hccl_bad_argument(HCCL_E_NOT_SUPPORT, "HcclGetConfig", value, "config", "HCCL_DETERMINISTIC");
    }
    configValue->value = __atomic_load_n(&deterministic_setting, __ATOMIC_RELAXED);
    return HCCL_SUCCESS;
}
