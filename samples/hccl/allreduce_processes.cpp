/**
 * HCCL across processes, started the way launchers start them (torchrun, a job script): every rank
 * is a process told its RANK and WORLD_SIZE by the environment, and the root info travels out of
 * band — here a file rank 0 writes (torch_npu uses its TCPStore, hccl_test MPI_Bcast).
 *
 * Run with no RANK set, the program is its own launcher: it starts WORLD_SIZE (default 2) copies of
 * itself and reports whether every rank passed.
 *
 *   g++ allreduce_processes.cpp -I$ASCEND_HOME_PATH/include -L$ASCEND_HOME_PATH/lib64 -lhccl -lascendcl \
 *       -o allreduce_processes && ./allreduce_processes
 */
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>
#include "hccl/hccl.h"

extern char **environ;

#define CHECK(call, what)                                                                       \
    do {                                                                                        \
        int rc_ = static_cast<int>(call);                                                       \
        if (rc_ != 0) {                                                                         \
            printf("rank %d: %s failed: %d %s\n", rank, what, rc_, aclGetRecentErrMsg());       \
            return 1;                                                                           \
        }                                                                                       \
    } while (0)

/* The launcher: WORLD_SIZE copies of this program, each with its RANK. */
static int launch(int world, const std::string &root_file)
{
    std::vector<pid_t> ranks;
    for (int rank = 0; rank < world; ++rank) {
        std::vector<std::string> env;
        for (char **e = environ; *e; ++e)
            env.push_back(*e);
        env.push_back("RANK=" + std::to_string(rank));
        env.push_back("WORLD_SIZE=" + std::to_string(world));
        env.push_back("ROOT_INFO_FILE=" + root_file);
        std::vector<char *> envp;
        for (auto &s : env)
            envp.push_back(&s[0]);
        envp.push_back(nullptr);
        char self[] = "/proc/self/exe";
        char *argv[] = {self, nullptr};
        pid_t pid;
        if (posix_spawn(&pid, self, nullptr, nullptr, argv, envp.data()) != 0) {
            printf("launcher: cannot start rank %d\n", rank);
            return 1;
        }
        ranks.push_back(pid);
    }
    int failed = 0;
    for (pid_t pid : ranks) {
        int status = 0;
        waitpid(pid, &status, 0);
        failed += !(WIFEXITED(status) && WEXITSTATUS(status) == 0);
    }
    printf("%d of %d ranks passed: %s\n", world - failed, world, failed ? "FAILED" : "PASSED");
    return failed ? 1 : 0;
}

/* Rank 0 writes the root info; the others wait for the file. */
static bool exchange_root_info(int rank, const std::string &path, HcclRootInfo *info)
{
    if (rank == 0) {
        if (HcclGetRootInfo(info) != HCCL_SUCCESS)
            return false;
        std::string partial = path + ".partial";
        FILE *f = fopen(partial.c_str(), "wb");
        bool written = f && fwrite(info, sizeof *info, 1, f) == 1;
        if (f)
            fclose(f);
        return written && rename(partial.c_str(), path.c_str()) == 0;
    }
    for (int tries = 0; tries < 6000; ++tries) {
        FILE *f = fopen(path.c_str(), "rb");
        if (f) {
            bool read = fread(info, sizeof *info, 1, f) == 1;
            fclose(f);
            return read;
        }
        usleep(10000);
    }
    return false;
}

int main()
{
    const char *rank_text = getenv("RANK"), *world_text = getenv("WORLD_SIZE");
    int world = world_text ? atoi(world_text) : 2;
    if (rank_text == nullptr) {
        char dir[] = "/tmp/hccl_sampleXXXXXX";
        if (mkdtemp(dir) == nullptr)
            return 1;
        int rc = launch(world, std::string(dir) + "/root_info");
        unlink((std::string(dir) + "/root_info").c_str());
        rmdir(dir);
        return rc;
    }
    int rank = atoi(rank_text);
    uint32_t device_count = 0;
    CHECK(aclInit(nullptr), "aclInit");
    CHECK(aclrtGetDeviceCount(&device_count), "aclrtGetDeviceCount");
    int32_t device = rank % static_cast<int>(device_count);
    CHECK(aclrtSetDevice(device), "aclrtSetDevice");
    HcclRootInfo rootInfo;
    if (!exchange_root_info(rank, getenv("ROOT_INFO_FILE"), &rootInfo)) {
        printf("rank %d: no root info\n", rank);
        return 1;
    }
    HcclComm comm;
    CHECK(HcclCommInitRootInfo(world, &rootInfo, rank, &comm), "HcclCommInitRootInfo");
    aclrtStream stream;
    CHECK(aclrtCreateStream(&stream), "aclrtCreateStream");

    const uint64_t count = 4096;
    std::vector<float> host(count, static_cast<float>(rank + 1));
    void *buf = nullptr;
    CHECK(aclrtMalloc(&buf, count * sizeof(float), ACL_MEM_MALLOC_HUGE_FIRST), "aclrtMalloc");
    CHECK(aclrtMemcpy(buf, count * sizeof(float), host.data(), count * sizeof(float), ACL_MEMCPY_HOST_TO_DEVICE),
          "aclrtMemcpy");
    CHECK(HcclAllReduce(buf, buf, count, HCCL_DATA_TYPE_FP32, HCCL_REDUCE_SUM, comm, stream), "HcclAllReduce");
    CHECK(aclrtSynchronizeStream(stream), "aclrtSynchronizeStream");
    CHECK(aclrtMemcpy(host.data(), count * sizeof(float), buf, count * sizeof(float), ACL_MEMCPY_DEVICE_TO_HOST),
          "aclrtMemcpy");
    const float expected = world * (world + 1) / 2.0f;
    int wrong = 0;
    for (float v : host)
        wrong += v != expected;
    printf("rank %d of %d (device %d): allreduce gives %g everywhere: %s\n", rank, world, device, host[0],
           wrong ? "no" : "yes");

    CHECK(HcclCommDestroy(comm), "HcclCommDestroy");
    CHECK(aclrtFree(buf), "aclrtFree");
    CHECK(aclrtDestroyStream(stream), "aclrtDestroyStream");
    CHECK(aclrtResetDevice(device), "aclrtResetDevice");
    CHECK(aclFinalize(), "aclFinalize");
    return wrong ? 1 : 0;
}
