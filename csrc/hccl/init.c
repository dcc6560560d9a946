/* Creating communicators: from a root info, a rank table, a device list, or a parent.
 *
 * Every rank blocks in its creation call until all ranks of the communicator have come (or the
 * connect timeout passes), as the vendor's do. A configuration is read up to the size its own
 * header declares (programs built against an older, shorter HcclCommConfig pass theirs). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "hccl_internal.h"

typedef struct {
    char name[COMM_NAME_MAX_LENGTH];
    int32_t exec_timeout; /* seconds, -1 when not set */
} options;

static HcclResult read_config(const char *api, const HcclCommConfig *config, options *out)
{
    memset(out, 0, sizeof *out);
    out->exec_timeout = -1;
    if (config == NULL)
        return HCCL_SUCCESS;
    struct {
        size_t size;
        uint32_t magic;
        uint32_t version;
    } header;
    memcpy(&header, config->reserved, sizeof header);
    if (header.magic != HCCL_COMM_CONFIG_MAGIC_WORD)
        return hccl_fail(HCCL_E_PARA, "%s: the config's magic word is 0x%x, not 0x%x: initialise it with "
                         "HcclCommConfigInit", api, header.magic, HCCL_COMM_CONFIG_MAGIC_WORD);
    HcclCommConfig local;
    HcclCommConfigInit(&local);
    memcpy(&local, config, header.size < sizeof local ? header.size : sizeof local);
    if (header.size >= offsetof(HcclCommConfig, hcclCommName) + sizeof local.hcclCommName && local.hcclCommName[0]) {
        if (memchr(local.hcclCommName, 0, sizeof local.hcclCommName) == NULL)
            return hccl_fail(HCCL_E_PARA, "%s: hcclCommName is not terminated within %u bytes", api,
                             COMM_NAME_MAX_LENGTH);
        snprintf(out->name, sizeof out->name, "%s", local.hcclCommName);
    }
    if (header.size >= offsetof(HcclCommConfig, hcclExecTimeOut) + sizeof local.hcclExecTimeOut &&
        local.hcclExecTimeOut != HCCL_COMM_EXECTIMEOUT_CONFIG_NOT_SET) {
        if (local.hcclExecTimeOut < 0)
            return hccl_fail(HCCL_E_PARA, "%s: hcclExecTimeOut %d is negative", api, (int)local.hcclExecTimeOut);
        out->exec_timeout = local.hcclExecTimeOut;
    }
    return HCCL_SUCCESS;
}

/* The calling thread's device: its current context's (HCCL) or its MACA device (MCCL). */
static HcclResult current_device(const char *api, int is_mccl, int32_t *device)
{
    if (is_mccl) {
        *device = opemu_mc_current_device();
        return HCCL_SUCCESS;
    }
    opemu_context *ctx = opemu_current_context();
    if (ctx == NULL)
        return hccl_fail(HCCL_E_RUNTIME, "%s: the thread has no current device: call aclrtSetDevice first", api);
    *device = ctx->device;
    return HCCL_SUCCESS;
}

HcclResult hccl_comm_init(const hccl_root_address *root, uint64_t sub, uint32_t size, uint32_t rank,
                          const HcclCommConfig *config, int is_mccl, int32_t device, hccl_rank **out)
{
    const char *api = is_mccl ? "mcclCommInitRank" : "HcclCommInitRootInfo";
    options opt;
    HcclResult rc = read_config(api, config, &opt);
    if (rc == HCCL_SUCCESS && device < 0)
        rc = current_device(api, is_mccl, &device);
    double timeout = rc == HCCL_SUCCESS ? hccl_connect_timeout() : 0;
    if (rc == HCCL_SUCCESS && timeout < 0)
        rc = HCCL_E_PARA;
    if (rc)
        return rc;
    double deadline = hccl_now() + timeout;
    hccl_member *members = NULL;
    hccl_transport_kind transport;
    rc = hccl_rendezvous_join(root, sub, size, rank, device, deadline, &members, &transport);
    if (rc)
        return rc;
    char name[COMM_NAME_MAX_LENGTH];
    if (opt.name[0])
        snprintf(name, sizeof name, "%s", opt.name);
    else if (sub)
        snprintf(name, sizeof name, "%.100s_sub%llx", root->identifier, (unsigned long long)sub);
    else
        snprintf(name, sizeof name, "%s", root->identifier);
    uint64_t id = hccl_digest(root->nonce, &sub, sizeof sub);
    *out = hccl_rank_create(rank, size, device, id, root, members, transport, name, opt.exec_timeout, is_mccl,
                            deadline, &rc);
    return rc;
}

OPEMU_EXPORT HcclResult HcclGetRootInfo(HcclRootInfo *rootInfo)
{
    if (rootInfo == NULL)
        return hccl_bad_argument(HCCL_E_PTR, "HcclGetRootInfo", "nullptr", "rootInfo", "non-null pointer");
    hccl_root_address address;
    HcclResult rc = hccl_root_open(&address);
    if (rc == HCCL_SUCCESS)
        hccl_root_encode(&address, rootInfo);
    return rc;
}

static HcclResult init_root_info(const char *api, uint32_t nRanks, const HcclRootInfo *rootInfo, uint32_t rank,
                                 const HcclCommConfig *config, HcclComm *comm)
{
    if (rootInfo == NULL)
        return hccl_bad_argument(HCCL_E_PTR, api, "nullptr", "rootInfo", "non-null pointer");
    if (comm == NULL)
        return hccl_bad_argument(HCCL_E_PTR, api, "nullptr", "comm", "non-null pointer");
    if (nRanks == 0)
        return hccl_bad_argument(HCCL_E_PARA, api, "0", "nRanks", "at least 1");
    if (rank >= nRanks)
        return hccl_fail(HCCL_E_PARA, "EI0003: In [%s], value [%u] for parameter [rank] is invalid. Expected value: "
                         "[0 ~ %u].", api, rank, nRanks - 1);
    hccl_root_address root;
    HcclResult rc = hccl_root_decode(rootInfo, &root);
    hccl_rank *r = NULL;
    if (rc == HCCL_SUCCESS)
        rc = hccl_comm_init(&root, 0, nRanks, rank, config, 0, -1, &r);
    if (rc == HCCL_SUCCESS)
        *comm = r;
    return rc;
}

OPEMU_EXPORT HcclResult HcclCommInitRootInfo(uint32_t nRanks, const HcclRootInfo *rootInfo, uint32_t rank,
                                             HcclComm *comm)
{
    return init_root_info("HcclCommInitRootInfo", nRanks, rootInfo, rank, NULL, comm);
}

OPEMU_EXPORT HcclResult HcclCommInitRootInfoConfig(uint32_t nRanks, const HcclRootInfo *rootInfo, uint32_t rank,
                                                   const HcclCommConfig *config, HcclComm *comm)
{
    if (config == NULL)
        return hccl_bad_argument(HCCL_E_PTR, "HcclCommInitRootInfoConfig", "nullptr", "config", "non-null pointer");
    return init_root_info("HcclCommInitRootInfoConfig", nRanks, rootInfo, rank, config, comm);
}

/* One process, no sockets: comms[i] is rank i on devices[i] (in-process transport). */
HcclResult hccl_init_all(const char *api, uint32_t ndev, const int32_t *devices, int is_mccl, void **comms)
{
    if (ndev == 0)
        return hccl_bad_argument(HCCL_E_PARA, api, "0", "ndev", "at least 1");
    if (ndev > (uint32_t)opemu_device_count())
        return hccl_fail(HCCL_E_PARA, "%s: ndev %u is more than the %d devices", api, ndev, opemu_device_count());
    for (uint32_t i = 0; i < ndev; i++) {
        int32_t device = devices ? devices[i] : (int32_t)i;
        if (device < 0 || device >= opemu_device_count())
            return hccl_fail(HCCL_E_PARA, "%s: devices[%u] = %d is not a device (0 ~ %d)", api, i, (int)device,
                             opemu_device_count() - 1);
        for (uint32_t j = 0; j < i; j++)
            if ((devices ? devices[j] : (int32_t)j) == device)
                return hccl_fail(HCCL_E_PARA, "%s: device %d is listed twice (devices[%u] and devices[%u])", api,
                                 (int)device, j, i);
    }
    uint64_t id = hccl_random64();
    char name[COMM_NAME_MAX_LENGTH];
    snprintf(name, sizeof name, "initall_%d_%llx", (int)getpid(), (unsigned long long)id);
    HcclResult rc = HCCL_SUCCESS;
    uint32_t made = 0;
    for (; made < ndev && rc == HCCL_SUCCESS; made++) {
        hccl_member *members = calloc(ndev, sizeof *members);
        if (members == NULL) {
            rc = hccl_fail(HCCL_E_MEMORY, "%s: out of host memory", api);
            continue;
        }
        for (uint32_t k = 0; k < ndev; k++) {
            members[k].pid = (int32_t)getpid();
            members[k].device = devices ? devices[k] : (int32_t)k;
            snprintf(members[k].host, sizeof members[k].host, "%s", hccl_host_identity());
        }
        comms[made] = hccl_rank_create(made, ndev, members[made].device, id, NULL, members, HCCL_INPROC, name, -1,
                                       is_mccl, 0, &rc);
    }
    if (rc != HCCL_SUCCESS)
        for (uint32_t k = 0; k + 1 < made; k++)
            hccl_rank_destroy(comms[k]);
    return rc;
}

OPEMU_EXPORT HcclResult HcclCommInitAll(uint32_t ndev, int32_t *devices, HcclComm *comms)
{
    if (devices == NULL)
        return hccl_bad_argument(HCCL_E_PTR, "HcclCommInitAll", "nullptr", "devices", "non-null pointer");
    if (comms == NULL)
        return hccl_bad_argument(HCCL_E_PTR, "HcclCommInitAll", "nullptr", "comms", "non-null pointer");
    return hccl_init_all("HcclCommInitAll", ndev, devices, 0, comms);
}

/* A sub-communicator meets in a sub-session of its parent's rendezvous; the ranks of an in-process
 * parent need none: they already share this process. */
OPEMU_EXPORT HcclResult HcclCreateSubCommConfig(HcclComm *comm, uint32_t rankNum, uint32_t *rankIds,
                                                uint64_t subCommId, uint32_t subCommRankId, HcclCommConfig *config,
                                                HcclComm *subComm)
{
    const char *api = "HcclCreateSubCommConfig";
    if (comm == NULL || subComm == NULL || rankIds == NULL || config == NULL)
        return hccl_bad_argument(HCCL_E_PTR, api, "nullptr", comm == NULL ? "comm" : subComm == NULL ? "subComm"
                                 : rankIds == NULL ? "rankIds" : "config", "non-null pointer");
    hccl_rank *parent = hccl_rank_of(*comm);
    if (parent == NULL)
        return hccl_bad_argument(HCCL_E_PARA, api, "a dead handle", "comm", "a live communicator");
    if (rankNum == 0 || rankNum > parent->size || subCommRankId >= rankNum)
        return hccl_fail(HCCL_E_PARA, "%s: rankNum %u and subCommRankId %u do not fit the parent's %u ranks", api,
                         rankNum, subCommRankId, parent->size);
    if (rankIds[subCommRankId] != parent->rank)
        return hccl_fail(HCCL_E_PARA, "%s: rankIds[%u] = %u, but this is rank %u of the parent", api, subCommRankId,
                         rankIds[subCommRankId], parent->rank);
    for (uint32_t i = 0; i < rankNum; i++)
        if (rankIds[i] >= parent->size)
            return hccl_fail(HCCL_E_PARA, "%s: rankIds[%u] = %u is not a rank of the parent (0 ~ %u)", api, i,
                             rankIds[i], parent->size - 1);
    uint64_t sub = hccl_digest(hccl_digest(0, &subCommId, sizeof subCommId), rankIds, rankNum * sizeof *rankIds) | 1;
    hccl_rank *r = NULL;
    HcclResult rc;
    if (parent->transport->kind == HCCL_INPROC || parent->root.nonce == 0) {
        options opt;
        rc = read_config(api, config, &opt);
        hccl_member *members = rc == HCCL_SUCCESS ? calloc(rankNum, sizeof *members) : NULL;
        if (rc == HCCL_SUCCESS && members == NULL)
            rc = hccl_fail(HCCL_E_MEMORY, "%s: out of host memory", api);
        if (rc)
            return rc;
        for (uint32_t i = 0; i < rankNum; i++)
            members[i] = parent->members[rankIds[i]];
        char name[COMM_NAME_MAX_LENGTH];
        snprintf(name, sizeof name, opt.name[0] ? "%s" : "%.100s_sub%llx", opt.name[0] ? opt.name : parent->name,
                 (unsigned long long)subCommId);
        r = hccl_rank_create(subCommRankId, rankNum, parent->device, hccl_digest(parent->id, &sub, sizeof sub), NULL,
                             members, HCCL_INPROC, name, opt.exec_timeout, parent->is_mccl, 0, &rc);
    } else {
        rc = hccl_comm_init(&parent->root, sub, rankNum, subCommRankId, config, parent->is_mccl, -1, &r);
    }
    if (rc == HCCL_SUCCESS)
        *subComm = r;
    return rc;
}

/* A rank table names the ranks; rank 0 serves the rendezvous where the table says (python/opemu/
 * collectives/rank_table.py reads it). */
static HcclResult init_cluster_info(const char *api, const char *clusterInfo, uint32_t rank, HcclCommConfig *config,
                                    HcclComm *comm)
{
    if (clusterInfo == NULL)
        return hccl_bad_argument(HCCL_E_PTR, api, "nullptr", "clusterInfo", "non-null pointer");
    if (comm == NULL)
        return hccl_bad_argument(HCCL_E_PTR, api, "nullptr", "comm", "non-null pointer");
    if (opemu_python_ready(api) != 0)
        return HCCL_E_INTERNAL;
    uint32_t size = 0, port = 0;
    int32_t device = 0;
    uint64_t nonce = 0;
    char host[64] = "";
    HcclResult rc = (HcclResult)opemu_py_hccl_rank_table(clusterInfo, rank, &size, &device, host, sizeof host, &port,
                                                         &nonce);
    if (rc)
        return rc;
    hccl_root_address root;
    memset(&root, 0, sizeof root);
    snprintf(root.ip, sizeof root.ip, "%s", host);
    root.port = port;
    root.nonce = nonce;
    snprintf(root.identifier, sizeof root.identifier, "ranktable_%s_%u_%llx", host, port, (unsigned long long)nonce);
    if (rank == 0)
        rc = hccl_root_listen(host, port, nonce, &root);
    hccl_rank *r = NULL;
    if (rc == HCCL_SUCCESS)
        rc = hccl_comm_init(&root, 0, size, rank, config, 0, -1, &r);
    if (rc == HCCL_SUCCESS)
        *comm = r;
    return rc;
}

OPEMU_EXPORT HcclResult HcclCommInitClusterInfo(const char *clusterInfo, uint32_t rank, HcclComm *comm)
{
    return init_cluster_info("HcclCommInitClusterInfo", clusterInfo, rank, NULL, comm);
}

OPEMU_EXPORT HcclResult HcclCommInitClusterInfoConfig(const char *clusterInfo, uint32_t rank, HcclCommConfig *config,
                                                      HcclComm *comm)
{
    if (config == NULL)
        return hccl_bad_argument(HCCL_E_PTR, "HcclCommInitClusterInfoConfig", "nullptr", "config", "non-null pointer");
    return init_cluster_info("HcclCommInitClusterInfoConfig", clusterInfo, rank, config, comm);
}
