/* An hccl_test-shaped AllReduce benchmark, written for opemu from the hccl_test documentation: the
 * same command line (-b -e -f/-i -n -w -o -d -r -c -p), the same flow (MPI launches the ranks, the
 * root's root info travels by MPI_Bcast, a device per rank, warm-ups then timed iterations between
 * two events) and the same result table, whose lines end in "success" when the check passed.
 * The MPI is the application's own (the mpich wheel's), not opemu's.
 *
 *   g++ hccl_test_allreduce.cpp -I$ASCEND_HOME_PATH/include -I$MPI_HOME/include -L$ASCEND_HOME_PATH/lib64 \
 *       -L$MPI_HOME/lib -lhccl -lascendcl -lmpi -o all_reduce_test
 *   mpiexec -n 4 ./all_reduce_test -b 8K -e 64M -f 2 -d fp32 -o sum -p 8
 */
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>
#include <mpi.h>
#include "hccl/hccl.h"

#define CHECK(call, what)                                                                     \
    do {                                                                                      \
        int rc_ = static_cast<int>(call);                                                     \
        if (rc_ != 0) {                                                                       \
            printf("rank %d: %s failed: %d (%s)\n", rank, what, rc_, aclGetRecentErrMsg()); \
            MPI_Abort(MPI_COMM_WORLD, 1);                                                     \
        }                                                                                     \
    } while (0)

static uint64_t bytes_of(const char *text)
{
    char *end;
    uint64_t value = strtoull(text, &end, 10);
    switch (*end) {
    case 'K': case 'k': return value << 10;
    case 'M': case 'm': return value << 20;
    case 'G': case 'g': return value << 30;
    }
    return value;
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank = 0, size = 1;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    uint64_t min_bytes = 64 << 10, max_bytes = 64 << 10, step = 0;
    double factor = 2;
    int iters = 20, warmups = 5, check = 1, npus = 8;
    std::string op = "sum", dtype = "fp32";
    for (int i = 1; i + 1 < argc; i += 2) {
        std::string flag = argv[i];
        if (flag == "-b") min_bytes = bytes_of(argv[i + 1]);
        else if (flag == "-e") max_bytes = bytes_of(argv[i + 1]);
        else if (flag == "-i") step = bytes_of(argv[i + 1]);
        else if (flag == "-f") factor = atof(argv[i + 1]);
        else if (flag == "-n") iters = atoi(argv[i + 1]);
        else if (flag == "-w") warmups = atoi(argv[i + 1]);
        else if (flag == "-o") op = argv[i + 1];
        else if (flag == "-d") dtype = argv[i + 1];
        else if (flag == "-c") check = atoi(argv[i + 1]);
        else if (flag == "-p") npus = atoi(argv[i + 1]);
    }
    HcclReduceOp reduce = op == "prod" ? HCCL_REDUCE_PROD : op == "max" ? HCCL_REDUCE_MAX
                        : op == "min" ? HCCL_REDUCE_MIN : HCCL_REDUCE_SUM;
    HcclDataType type = dtype == "int32" ? HCCL_DATA_TYPE_INT32 : dtype == "fp64" ? HCCL_DATA_TYPE_FP64
                      : HCCL_DATA_TYPE_FP32;
    size_t element = type == HCCL_DATA_TYPE_FP64 ? 8 : 4;

    int device = rank % npus;
    CHECK(aclInit(nullptr), "aclInit");
    CHECK(aclrtSetDevice(device), "aclrtSetDevice");
    const char *soc = aclrtGetSocName();
    if (soc && strncmp(soc, "Ascend910B", 10) == 0 && strlen(soc) > 10)
        CHECK(aclrtSetDeviceSatMode(ACL_RT_OVERFLOW_MODE_INFNAN), "aclrtSetDeviceSatMode");
    aclrtEvent start, end;
    CHECK(aclrtCreateEvent(&start), "aclrtCreateEvent");
    CHECK(aclrtCreateEvent(&end), "aclrtCreateEvent");
    aclrtStream stream;
    CHECK(aclrtCreateStream(&stream), "aclrtCreateStream");
    CHECK(aclrtSetStreamFailureMode(stream, ACL_STOP_ON_FAILURE), "aclrtSetStreamFailureMode");

    HcclRootInfo comm_id;
    if (rank == 0)
        CHECK(HcclGetRootInfo(&comm_id), "HcclGetRootInfo");
    MPI_Request request;
    MPI_Ibcast(&comm_id, HCCL_ROOT_INFO_BYTES, MPI_CHAR, 0, MPI_COMM_WORLD, &request);
    MPI_Wait(&request, MPI_STATUS_IGNORE);
    HcclComm comm;
    CHECK(HcclCommInitRootInfo(size, &comm_id, rank, &comm), "HcclCommInitRootInfo");

    if (rank == 0)
        printf("%-20s %-20s %-20s %s\n", "data_size(Bytes):", "aveg_time(us):", "alg_bandwidth(GB/s):",
               "check_result:");
    for (uint64_t bytes = min_bytes; bytes <= max_bytes;
         bytes = step ? bytes + step : static_cast<uint64_t>(bytes * factor)) {
        uint64_t count = bytes / element;
        void *send = nullptr, *recv = nullptr, *host = nullptr;
        CHECK(aclrtMalloc(&send, bytes, ACL_MEM_MALLOC_HUGE_FIRST), "aclrtMalloc");
        CHECK(aclrtMalloc(&recv, bytes, ACL_MEM_MALLOC_HUGE_FIRST), "aclrtMalloc");
        CHECK(aclrtMallocHost(&host, bytes), "aclrtMallocHost");
        for (uint64_t i = 0; i < count; ++i) {
            double value = rank + 1;
            if (type == HCCL_DATA_TYPE_FP32) static_cast<float *>(host)[i] = static_cast<float>(value);
            else if (type == HCCL_DATA_TYPE_FP64) static_cast<double *>(host)[i] = value;
            else static_cast<int32_t *>(host)[i] = rank + 1;
        }
        CHECK(aclrtMemcpy(send, bytes, host, bytes, ACL_MEMCPY_HOST_TO_DEVICE), "aclrtMemcpy");
        for (int i = 0; i < warmups; ++i)
            CHECK(HcclAllReduce(send, recv, count, type, reduce, comm, stream), "HcclAllReduce");
        CHECK(aclrtRecordEvent(start, stream), "aclrtRecordEvent");
        for (int i = 0; i < iters; ++i)
            CHECK(HcclAllReduce(send, recv, count, type, reduce, comm, stream), "HcclAllReduce");
        CHECK(aclrtRecordEvent(end, stream), "aclrtRecordEvent");
        CHECK(aclrtSynchronizeStream(stream), "aclrtSynchronizeStream");
        float ms = 0;
        CHECK(aclrtEventElapsedTime(&ms, start, end), "aclrtEventElapsedTime");
        CHECK(aclrtMemcpy(host, bytes, recv, bytes, ACL_MEMCPY_DEVICE_TO_HOST), "aclrtMemcpy");
        double expected = reduce == HCCL_REDUCE_MAX ? size : reduce == HCCL_REDUCE_MIN ? 1 : 0;
        if (reduce == HCCL_REDUCE_SUM) expected = size * (size + 1) / 2.0;
        if (reduce == HCCL_REDUCE_PROD) { expected = 1; for (int r = 1; r <= size; ++r) expected *= r; }
        bool ok = true;
        for (uint64_t i = 0; i < count && check; ++i) {
            double got = type == HCCL_DATA_TYPE_FP32 ? static_cast<float *>(host)[i]
                       : type == HCCL_DATA_TYPE_FP64 ? static_cast<double *>(host)[i] : static_cast<int32_t *>(host)[i];
            ok = ok && got == expected;
        }
        if (rank != 0 && !ok)
            printf("rank id %d, check result failed, data_size %llu | failed\n", rank, (unsigned long long)bytes);
        double us = ms * 1000.0 / iters;
        if (rank == 0)
            printf("%-20llu %-20.2f %-20.4f %s\n", (unsigned long long)bytes, us, bytes / us / 1e3,
                   !check ? "NULL" : ok ? "success" : "failed");
        CHECK(aclrtFree(send), "aclrtFree");
        CHECK(aclrtFree(recv), "aclrtFree");
        CHECK(aclrtFreeHost(host), "aclrtFreeHost");
    }
    CHECK(HcclCommDestroy(comm), "HcclCommDestroy");
    CHECK(aclrtDestroyStream(stream), "aclrtDestroyStream");
    CHECK(aclrtDestroyEvent(start), "aclrtDestroyEvent");
    CHECK(aclrtDestroyEvent(end), "aclrtDestroyEvent");
    CHECK(aclrtResetDevice(device), "aclrtResetDevice");
    CHECK(aclFinalize(), "aclFinalize");
    MPI_Finalize();
    return 0;
}
