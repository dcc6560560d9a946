/* AllReduce timings for bench/collectives.py: hccl_driver TRANSPORT RANKS BYTES ITERATIONS prints
 * "allreduce_us <microseconds per AllReduce>". inproc: one process, every rank on one thread
 * (HcclCommInitAll); shm and gloo: the driver starts RANKS copies of itself (OPEMU_HCCL_TRANSPORT
 * forces the transport) and rank 0 reports. The time of an operation is the run of ITERATIONS
 * AllReduces queued back to back, divided by ITERATIONS (as hccl_test reports). */
#include <spawn.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>
#include "hccl/hccl.h"

extern char **environ;

static double now_us()
{
    timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec * 1e6 + ts.tv_nsec / 1e3;
}

static int in_process(int ranks, uint64_t bytes, int iterations)
{
    aclInit(nullptr);
    std::vector<HcclComm> comms(ranks);
    std::vector<int32_t> devices(ranks);
    std::vector<aclrtStream> streams(ranks);
    std::vector<void *> bufs(ranks);
    for (int r = 0; r < ranks; ++r)
        devices[r] = r;
    if (HcclCommInitAll(ranks, devices.data(), comms.data()) != HCCL_SUCCESS)
        return 1;
    for (int r = 0; r < ranks; ++r) {
        aclrtSetDevice(r);
        aclrtCreateStream(&streams[r]);
        aclrtMalloc(&bufs[r], bytes, ACL_MEM_MALLOC_HUGE_FIRST);
        aclrtMemset(bufs[r], bytes, 0, bytes);
    }
    uint64_t count = bytes / 4;
    for (int warm = 0; warm < 2; ++warm)
        for (int r = 0; r < ranks; ++r)
            HcclAllReduce(bufs[r], bufs[r], count, HCCL_DATA_TYPE_FP32, HCCL_REDUCE_SUM, comms[r], streams[r]);
    for (int r = 0; r < ranks; ++r)
        aclrtSynchronizeStream(streams[r]);
    double start = now_us();
    for (int i = 0; i < iterations; ++i)
        for (int r = 0; r < ranks; ++r)
            HcclAllReduce(bufs[r], bufs[r], count, HCCL_DATA_TYPE_FP32, HCCL_REDUCE_SUM, comms[r], streams[r]);
    int failed = 0;
    for (int r = 0; r < ranks; ++r)
        failed |= aclrtSynchronizeStream(streams[r]);
    printf("allreduce_us %.3f\n", (now_us() - start) / iterations);
    for (int r = 0; r < ranks; ++r)
        HcclCommDestroy(comms[r]);
    return failed;
}

static int rank_process(int rank, int ranks, uint64_t bytes, int iterations, const std::string &file)
{
    aclInit(nullptr);
    aclrtSetDevice(rank % 8);
    HcclRootInfo info;
    if (rank == 0) {
        HcclGetRootInfo(&info);
        FILE *f = fopen((file + ".partial").c_str(), "wb");
        fwrite(&info, sizeof info, 1, f);
        fclose(f);
        rename((file + ".partial").c_str(), file.c_str());
    } else {
        FILE *f = nullptr;
        while ((f = fopen(file.c_str(), "rb")) == nullptr)
            usleep(5000);
        size_t got = fread(&info, sizeof info, 1, f);
        fclose(f);
        if (got != 1)
            return 1;
    }
    HcclComm comm;
    if (HcclCommInitRootInfo(ranks, &info, rank, &comm) != HCCL_SUCCESS)
        return 1;
    aclrtStream stream;
    aclrtCreateStream(&stream);
    void *buf;
    aclrtMalloc(&buf, bytes, ACL_MEM_MALLOC_HUGE_FIRST);
    aclrtMemset(buf, bytes, 0, bytes);
    uint64_t count = bytes / 4;
    for (int warm = 0; warm < 2; ++warm)
        HcclAllReduce(buf, buf, count, HCCL_DATA_TYPE_FP32, HCCL_REDUCE_SUM, comm, stream);
    HcclBarrier(comm, stream);
    aclrtSynchronizeStream(stream);
    double start = now_us();
    for (int i = 0; i < iterations; ++i)
        HcclAllReduce(buf, buf, count, HCCL_DATA_TYPE_FP32, HCCL_REDUCE_SUM, comm, stream);
    int failed = aclrtSynchronizeStream(stream);
    if (rank == 0)
        printf("allreduce_us %.3f\n", (now_us() - start) / iterations);
    HcclCommDestroy(comm);
    return failed;
}

int main(int argc, char **argv)
{
    if (argc < 5)
        return 2;
    std::string transport = argv[1];
    int ranks = atoi(argv[2]), iterations = atoi(argv[4]);
    uint64_t bytes = strtoull(argv[3], nullptr, 10);
    if (transport == "inproc")
        return in_process(ranks, bytes, iterations);
    if (const char *rank = getenv("HCCL_DRIVER_RANK"))
        return rank_process(atoi(rank), ranks, bytes, iterations, getenv("HCCL_DRIVER_ROOT"));
    char dir[] = "/tmp/hccl_benchXXXXXX";
    if (mkdtemp(dir) == nullptr)
        return 1;
    std::string file = std::string(dir) + "/root_info";
    std::vector<pid_t> pids;
    for (int r = 0; r < ranks; ++r) {
        std::vector<std::string> env;
        for (char **e = environ; *e; ++e)
            env.push_back(*e);
        env.push_back("HCCL_DRIVER_RANK=" + std::to_string(r));
        env.push_back("HCCL_DRIVER_ROOT=" + file);
        env.push_back("OPEMU_HCCL_TRANSPORT=" + transport);
        std::vector<char *> envp;
        for (auto &s : env)
            envp.push_back(&s[0]);
        envp.push_back(nullptr);
        pid_t pid;
        posix_spawn(&pid, "/proc/self/exe", nullptr, nullptr, argv, envp.data());
        pids.push_back(pid);
    }
    int failed = 0;
    for (pid_t pid : pids) {
        int status = 0;
        waitpid(pid, &status, 0);
        failed |= !(WIFEXITED(status) && WEXITSTATUS(status) == 0);
    }
    unlink(file.c_str());
    rmdir(dir);
    return failed;
}
