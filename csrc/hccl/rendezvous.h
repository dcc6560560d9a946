/* The rendezvous protocol between a rank and the root's listener (rendezvous.c serves it,
 * bootstrap.c speaks it). One request per connection: a header, then the request's body. */
#ifndef OPEMU_HCCL_RENDEZVOUS_H
#define OPEMU_HCCL_RENDEZVOUS_H

#include "hccl_internal.h"

#define RV_MAGIC "OPEMU-RV"
enum { RV_JOIN = 1, RV_SET = 2, RV_GET = 3 };
enum { RV_KEY_BYTES = 128, RV_VALUE_MAX = 1 << 20 };

typedef struct {
    char magic[8];
    uint32_t type;
    uint32_t reserved;
    uint64_t nonce; /* the root's session */
} rv_header;

typedef struct {
    uint64_t sub; /* 0, or the sub-communicator's id */
    uint32_t size;
    uint32_t rank;
    double timeout; /* seconds the ranks may take to come */
    hccl_member member;
} rv_join;

typedef struct {
    int32_t status; /* HcclResult */
    uint32_t transport;
    uint32_t size; /* members that follow */
    char message[512];
} rv_join_reply;

typedef struct {
    uint64_t sub;
    char key[RV_KEY_BYTES];
    uint32_t size; /* SET: bytes of the value that follows */
    double timeout; /* GET: seconds to wait for the key */
} rv_store;

typedef struct {
    int32_t status;
    uint32_t size;
} rv_store_reply;

void rv_session_open(uint64_t nonce);
void *rv_accept_loop(void *listener_fd);
int rv_send_all(int fd, const void *data, size_t size);
/* 0, -1 when the peer closed, -2 past the deadline (0: none). */
int rv_recv_all(int fd, void *data, size_t size, double deadline);

#endif
