/**
 * HCCL sample in the style of the hicann/hccl examples: one process, one thread per device. The
 * main thread makes one root info; every thread sets its device, joins the communicator with
 * HcclCommInitRootInfo, runs an AllReduce (sum) and an AllGather on its own stream, waits for the
 * stream, and checks what it received.
 *
 * Build like the vendor's example Makefiles:
 *   g++ allreduce_allgather_threads.cpp -I$ASCEND_HOME_PATH/include -L$ASCEND_HOME_PATH/lib64 \
 *       -lhccl -lascendcl -lpthread -o allreduce_allgather_threads
 */
#include <cstdio>
#include <thread>
#include <vector>
#include "hccl/hccl.h"

#define ACLCHECK(ret)                                                                        \
    do {                                                                                     \
        if ((ret) != ACL_SUCCESS) {                                                          \
            printf("acl interface return err %s:%d, retcode: %d\n", __FILE__, __LINE__, ret); \
            return 1;                                                                        \
        }                                                                                    \
    } while (0)

#define HCCLCHECK(ret)                                                                        \
    do {                                                                                      \
        if ((ret) != HCCL_SUCCESS) {                                                          \
            printf("hccl interface return err %s:%d, retcode: %d\n", __FILE__, __LINE__, ret); \
            return 1;                                                                         \
        }                                                                                     \
    } while (0)

struct ThreadContext {
    HcclRootInfo *rootInfo;
    uint32_t device;
    uint32_t devCount;
    int result;
};

int Sample(ThreadContext *ctx)
{
    const uint32_t device = ctx->device, devCount = ctx->devCount;
    const uint64_t count = 1024;
    ACLCHECK(aclrtSetDevice(static_cast<int32_t>(device)));

    // Rank r contributes r + i at index i; the sum over ranks is devCount * i + devCount * (devCount - 1) / 2.
    std::vector<float> host(count);
    for (uint64_t i = 0; i < count; ++i) {
        host[i] = static_cast<float>(device + i);
    }
    void *sendBuf = nullptr, *recvBuf = nullptr, *gatherBuf = nullptr;
    const size_t bytes = count * sizeof(float);
    ACLCHECK(aclrtMalloc(&sendBuf, bytes, ACL_MEM_MALLOC_HUGE_FIRST));
    ACLCHECK(aclrtMalloc(&recvBuf, bytes, ACL_MEM_MALLOC_HUGE_FIRST));
    ACLCHECK(aclrtMalloc(&gatherBuf, bytes * devCount, ACL_MEM_MALLOC_HUGE_FIRST));
    ACLCHECK(aclrtMemcpy(sendBuf, bytes, host.data(), bytes, ACL_MEMCPY_HOST_TO_DEVICE));

    HcclComm comm;
    HCCLCHECK(HcclCommInitRootInfo(devCount, ctx->rootInfo, device, &comm));
    aclrtStream stream;
    ACLCHECK(aclrtCreateStream(&stream));

    HCCLCHECK(HcclAllReduce(sendBuf, recvBuf, count, HCCL_DATA_TYPE_FP32, HCCL_REDUCE_SUM, comm, stream));
    HCCLCHECK(HcclAllGather(sendBuf, gatherBuf, count, HCCL_DATA_TYPE_FP32, comm, stream));
    ACLCHECK(aclrtSynchronizeStream(stream));

    std::vector<float> sum(count), gathered(count * devCount);
    ACLCHECK(aclrtMemcpy(sum.data(), bytes, recvBuf, bytes, ACL_MEMCPY_DEVICE_TO_HOST));
    ACLCHECK(aclrtMemcpy(gathered.data(), bytes * devCount, gatherBuf, bytes * devCount, ACL_MEMCPY_DEVICE_TO_HOST));
    int errors = 0;
    for (uint64_t i = 0; i < count; ++i) {
        float expected = static_cast<float>(devCount * i + devCount * (devCount - 1) / 2);
        errors += sum[i] != expected;
        for (uint32_t r = 0; r < devCount; ++r) {
            errors += gathered[r * count + i] != static_cast<float>(r + i);
        }
    }
    printf("rank %u: allreduce [%g %g ... %g], allgather %u blocks, %d mismatches\n", device, sum[0], sum[1],
           sum[count - 1], devCount, errors);

    HCCLCHECK(HcclCommDestroy(comm));
    ACLCHECK(aclrtDestroyStream(stream));
    ACLCHECK(aclrtFree(sendBuf));
    ACLCHECK(aclrtFree(recvBuf));
    ACLCHECK(aclrtFree(gatherBuf));
    ACLCHECK(aclrtResetDevice(static_cast<int32_t>(device)));
    return errors != 0;
}

int main()
{
    ACLCHECK(aclInit(nullptr));
    uint32_t devCount = 0;
    ACLCHECK(aclrtGetDeviceCount(&devCount));
    const uint32_t found = devCount;
    devCount = devCount > 4 ? 4 : devCount;
    printf("Found %u device(s); using %u\n", found, devCount);

    ACLCHECK(aclrtSetDevice(0));
    HcclRootInfo rootInfo;
    HCCLCHECK(HcclGetRootInfo(&rootInfo));

    std::vector<ThreadContext> contexts(devCount);
    std::vector<std::thread> threads;
    for (uint32_t i = 0; i < devCount; ++i) {
        contexts[i] = ThreadContext{&rootInfo, i, devCount, 1};
        threads.emplace_back([&contexts, i] { contexts[i].result = Sample(&contexts[i]); });
    }
    int failed = 0;
    for (uint32_t i = 0; i < devCount; ++i) {
        threads[i].join();
        failed += contexts[i].result;
    }
    ACLCHECK(aclFinalize());
    printf("%s\n", failed ? "FAILED" : "PASSED");
    return failed ? 1 : 0;
}
