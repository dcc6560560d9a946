/* HCCL's statuses, names, argument checks and timeouts.
 *
 * The checks follow hcomm's op_common (the code, not the per-product doc tables): a count above
 * 0x7FFFFFFFF is HCCL_E_PARA; a reducing operation takes int8, int16, int32, int64, uint64, fp16,
 * fp32, fp64 and bf16 (HCCL_E_NOT_SUPPORT otherwise), a moving one every data type but int128;
 * prod takes neither int16 nor bf16. Messages carry the fields of the vendor's EI0003 report
 * (operation, value, parameter, what was expected). */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "hccl_internal.h"

#define SYS_MAX_COUNT 0x7FFFFFFFFULL

double hccl_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

HcclResult hccl_fail(HcclResult code, const char *fmt, ...)
{
    char text[1536];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(text, sizeof text, fmt, ap);
    va_end(ap);
    opemu_error_message((int)code, text);
    return code;
}

HcclResult hccl_bad_argument(HcclResult code, const char *api, const char *value, const char *parameter,
                             const char *expected)
{
    return hccl_fail(code, "EI0003: In [%s], value [%s] for parameter [%s] is invalid. Expected value: [%s].", api,
                     value, parameter, expected);
}

static const struct {
    int32_t value;
    const char *name;
    uint32_t size;
} DTYPES[] = {
    {HCCL_DATA_TYPE_INT8, "int8", 1},       {HCCL_DATA_TYPE_INT16, "int16", 2},
    {HCCL_DATA_TYPE_INT32, "int32", 4},     {HCCL_DATA_TYPE_FP16, "float16", 2},
    {HCCL_DATA_TYPE_FP32, "float32", 4},    {HCCL_DATA_TYPE_INT64, "int64", 8},
    {HCCL_DATA_TYPE_UINT64, "uint64", 8},   {HCCL_DATA_TYPE_UINT8, "uint8", 1},
    {HCCL_DATA_TYPE_UINT16, "uint16", 2},   {HCCL_DATA_TYPE_UINT32, "uint32", 4},
    {HCCL_DATA_TYPE_FP64, "float64", 8},    {HCCL_DATA_TYPE_BFP16, "bfloat16", 2},
    {HCCL_DATA_TYPE_INT128, "int128", 16},  {HCCL_DATA_TYPE_HIF8, "hif8", 1},
    {HCCL_DATA_TYPE_FP8E4M3, "fp8e4m3", 1}, {HCCL_DATA_TYPE_FP8E5M2, "fp8e5m2", 1},
    {HCCL_DATA_TYPE_FP8E8M0, "fp8e8m0", 1},
};

const char *hccl_dtype_name(int32_t dtype)
{
    for (size_t i = 0; i < sizeof DTYPES / sizeof DTYPES[0]; i++)
        if (DTYPES[i].value == dtype)
            return DTYPES[i].name;
    return NULL;
}

uint32_t hccl_dtype_size(int32_t dtype)
{
    for (size_t i = 0; i < sizeof DTYPES / sizeof DTYPES[0]; i++)
        if (DTYPES[i].value == dtype)
            return DTYPES[i].size;
    return 0;
}

const char *hccl_op_name(int32_t op)
{
    static const char *names[] = {"sum", "prod", "max", "min"};
    return op >= 0 && op <= HCCL_REDUCE_MIN ? names[op] : NULL;
}

const char *hccl_cmd_name(int32_t cmd)
{
    switch (cmd) {
    case HCCL_CMD_BROADCAST: return "Broadcast";
    case HCCL_CMD_ALLREDUCE: return "AllReduce";
    case HCCL_CMD_REDUCE: return "Reduce";
    case HCCL_CMD_SEND: return "Send";
    case HCCL_CMD_RECEIVE: return "Receive";
    case HCCL_CMD_ALLGATHER: return "AllGather";
    case HCCL_CMD_REDUCE_SCATTER: return "ReduceScatter";
    case HCCL_CMD_ALLTOALLV: return "AlltoAllV";
    case HCCL_CMD_ALLTOALLVC: return "AlltoAllVC";
    case HCCL_CMD_ALLTOALL: return "AlltoAll";
    case HCCL_CMD_GATHER: return "Gather";
    case HCCL_CMD_SCATTER: return "Scatter";
    case HCCL_CMD_BATCH_SEND_RECV: return "BatchSendRecv";
    case HCCL_CMD_ALLGATHER_V: return "AllGatherV";
    case HCCL_CMD_REDUCE_SCATTER_V: return "ReduceScatterV";
    case HCCL_CMD_BARRIER: return "Barrier";
    }
    return "Unknown";
}

HcclResult hccl_check_count(const char *api, uint64_t count)
{
    if (count <= SYS_MAX_COUNT)
        return HCCL_SUCCESS;
    char value[32];
    snprintf(value, sizeof value, "%llu", (unsigned long long)count);
    return hccl_bad_argument(HCCL_E_PARA, api, value, "count", "positive integer (>=1) not bigger than MAX count "
                             "[34359738367]");
}

static int reducible(int32_t dtype)
{
    switch (dtype) {
    case HCCL_DATA_TYPE_INT8: case HCCL_DATA_TYPE_INT16: case HCCL_DATA_TYPE_INT32: case HCCL_DATA_TYPE_INT64:
    case HCCL_DATA_TYPE_UINT64: case HCCL_DATA_TYPE_FP16: case HCCL_DATA_TYPE_FP32: case HCCL_DATA_TYPE_FP64:
    case HCCL_DATA_TYPE_BFP16:
        return 1;
    }
    return 0;
}

HcclResult hccl_check_dtype(const char *api, int32_t dtype, int reduces)
{
    const char *name = hccl_dtype_name(dtype);
    if (name && (reduces ? reducible(dtype) : dtype != HCCL_DATA_TYPE_INT128))
        return HCCL_SUCCESS;
    char value[48];
    if (name)
        snprintf(value, sizeof value, "%s", name);
    else
        snprintf(value, sizeof value, "HcclDataType(%d)", (int)dtype);
    return hccl_bad_argument(HCCL_E_NOT_SUPPORT, api, value, "dataType", reduces
        ? "int8, int16, int32, int64, float16, float32, bfloat16, uint64, float64"
        : "int8, int16, int32, int64, float16, float32, uint8, uint16, uint32, uint64, float64, hif8, fp8e4m3, "
          "fp8e5m2, fp8e8m0, bfloat16");
}

HcclResult hccl_check_op(const char *api, int32_t dtype, int32_t op)
{
    char value[48];
    if (hccl_op_name(op) == NULL) {
        snprintf(value, sizeof value, "HcclReduceOp(%d)", (int)op);
        return hccl_bad_argument(HCCL_E_NOT_SUPPORT, api, value, "op", "sum, prod, max, min");
    }
    if (op == HCCL_REDUCE_PROD && (dtype == HCCL_DATA_TYPE_INT16 || dtype == HCCL_DATA_TYPE_BFP16)) {
        snprintf(value, sizeof value, "%s", hccl_dtype_name(dtype));
        return hccl_bad_argument(HCCL_E_NOT_SUPPORT, api, value, "dataType",
                                 "int8, int32, int64, uint64, float16, float32, float64 (reduce op prod)");
    }
    return HCCL_SUCCESS;
}

/* A failed collective makes its stream's next synchronisation fail: a lost peer or a mismatch is the
 * runtime's "suspect remote error", an expired wait its "stream synchronisation timeout". */
int hccl_stream_status(HcclResult code)
{
    if (code == HCCL_SUCCESS)
        return 0;
    if (code == HCCL_E_TIMEOUT)
        return ACL_ERROR_RT_STREAM_SYNC_TIMEOUT;
    return ACL_ERROR_RT_SUSPECT_REMOTE_ERROR;
}

/* ---- timeouts ---- */

static double env_seconds(const char *name, double fallback)
{
    const char *text = getenv(name);
    if (text == NULL || *text == 0)
        return fallback;
    char *end;
    errno = 0;
    double value = strtod(text, &end);
    if (*end == 0 && errno == 0 && value >= 0 && value < 1e9)
        return value;
    opemu_setting_refused(name, text, "a number of seconds", "the vendor's setting");
    return fallback;
}

double hccl_connect_timeout(void)
{
    double forced = env_seconds("OPEMU_HCCL_CONNECT_TIMEOUT", -1);
    if (forced >= 0)
        return forced;
    const char *text = getenv("HCCL_CONNECT_TIMEOUT");
    long seconds = 120;
    if (text && *text) {
        char *end;
        errno = 0;
        seconds = strtol(text, &end, 10);
        if (*end || errno || seconds < 120 || seconds > 7200) {
            hccl_fail(HCCL_E_PARA, "EI0001: Environment variable error. The value [%s] of environment variable "
                      "[HCCL_CONNECT_TIMEOUT] is invalid. Expected value: an integer in [120, 7200] seconds.", text);
            return -1;
        }
    }
    return (double)seconds + 20.0; /* the vendor's extra 20 s tell every rank why creation failed */
}

double hccl_exec_timeout(int32_t configured)
{
    double seconds = env_seconds("OPEMU_HCCL_EXEC_TIMEOUT", -1);
    if (seconds < 0 && configured >= 0)
        seconds = configured;
    if (seconds < 0) {
        seconds = 1836;
        const char *text = getenv("HCCL_EXEC_TIMEOUT");
        if (text && *text) {
            char *end;
            errno = 0;
            long value = strtol(text, &end, 10);
            if (*end == 0 && errno == 0 && value >= 0 && value <= 2147483647L)
                seconds = (double)value;
            else
                opemu_setting_refused("HCCL_EXEC_TIMEOUT", text, "an integer of seconds (0: no limit)", "1836");
        }
    }
    uint32_t cap = opemu_op_wait_timeout_s();
    if (cap > 0 && (seconds == 0 || seconds > cap))
        seconds = cap;
    return seconds;
}

const char *hccl_transport_name(hccl_transport_kind kind)
{
    switch (kind) {
    case HCCL_INPROC: return "inproc";
    case HCCL_SHM: return "shm";
    case HCCL_GLOO: return "gloo";
    }
    return "none";
}

int hccl_overlap(const char *a, uint64_t a_bytes, const char *b, uint64_t b_bytes)
{
    return a_bytes && b_bytes && a < b + b_bytes && b < a + a_bytes;
}

OPEMU_EXPORT const char *HcclGetErrorString(HcclResult code)
{
    static const char *texts[] = {
        "no error", "parameter error", "empty pointer", "memory error", "internal error", "not support feature",
        "not found specific resource", "resource unavailable", "call system interface error", "timeout",
        "open file fail", "tcp connect fail", "roce connect fail", "tcp transfer fail", "roce transfer fail",
        "call runtime api fail", "call driver api fail", "call profiling api fail", "call cce api fail",
        "call network api fail", "try again", "error cqe", "error communicator suspending", "retry constraint",
        "out of memory"};
    if ((unsigned)code < sizeof texts / sizeof texts[0])
        return opemu_status_text((int)code, texts[code]);
    if (code == HCCL_E_IN_STATUS)
        return "the error information is in the status";
    return "unknown error";
}
