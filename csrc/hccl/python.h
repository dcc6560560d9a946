/* What the collectives ask of Python (python/opemu/collectives): the rank-order reduction of the
 * types the C twin does not reduce (reduce.c), and the rank-table reader. The bridge includes this
 * header so that cffi generates both as embedded functions. */
#ifndef OPEMU_HCCL_PYTHON_H
#define OPEMU_HCCL_PYTHON_H

#include <stdint.h>

/* The rank-order reduction of `n` inputs of `count` elements (an HcclDataType and HcclReduceOp):
 * out = in[0] op in[1] … op in[n-1], fp16 and bf16 rounded after each step; `out` may be one of the
 * inputs. 0, or -1 with the message recorded. */
int opemu_py_hccl_reduce(int32_t dtype, int32_t op, uint32_t n, void *const *inputs, void *out, uint64_t count);
/* Reads rank table `path` (JSON) for `rank`: the number of ranks, the rank's device, where rank 0
 * serves the rendezvous (host, port) and the nonce every rank derives from the table. An HcclResult
 * (message recorded). */
int opemu_py_hccl_rank_table(const char *path, uint32_t rank, uint32_t *n_ranks, int32_t *device, char *host,
                             uint32_t host_size, uint32_t *port, uint64_t *nonce);

#endif
