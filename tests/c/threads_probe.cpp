// Several host threads issue operators on their own streams at once; every thread's results must
// equal what one thread computes alone. `threads_probe THREADS ROUNDS` prints one checksum line per
// thread and "PASS" when all match the serial run.
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <thread>
#include <vector>
#include "acl/acl.h"
#include "aclnnop/aclnn_embedding.h"
#include "aclnnop/aclnn_fused_cross_entropy_loss_with_max_sum.h"

// One round: an embedding gather and a cross-entropy loss whose inputs depend on `seed`; returns a
// checksum of both results, or NaN on any failure.
static double Round(int32_t device, aclrtStream stream, int seed)
{
    const int64_t V = 97, D = 16, N = 64;
    std::vector<float> weight(V * D), stats(3 * N);
    std::vector<int64_t> indices(N);
    for (int64_t i = 0; i < V * D; i++)
        weight[i] = static_cast<float>((i * 31 + seed * 7) % 101) / 10.0f;
    for (int64_t i = 0; i < N; i++) {
        indices[i] = (i * 13 + seed) % V;
        stats[i] = 1.0f;                                        // logitsMax
        stats[N + i] = 1.0f + static_cast<float>((i + seed) % 9);  // sumExpLogits
        stats[2 * N + i] = -static_cast<float>(i % 5) / 4.0f;     // predictedLogits
    }
    void *w = nullptr, *idx = nullptr, *out = nullptr, *st = nullptr, *loss = nullptr;
    aclrtSetDevice(device);
    aclrtMalloc(&w, weight.size() * 4, ACL_MEM_MALLOC_HUGE_FIRST);
    aclrtMalloc(&idx, indices.size() * 8, ACL_MEM_MALLOC_HUGE_FIRST);
    aclrtMalloc(&out, N * D * 4, ACL_MEM_MALLOC_HUGE_FIRST);
    aclrtMalloc(&st, stats.size() * 4, ACL_MEM_MALLOC_HUGE_FIRST);
    aclrtMalloc(&loss, N * 4, ACL_MEM_MALLOC_HUGE_FIRST);
    aclrtMemcpyAsync(w, weight.size() * 4, weight.data(), weight.size() * 4, ACL_MEMCPY_HOST_TO_DEVICE, stream);
    aclrtMemcpyAsync(idx, indices.size() * 8, indices.data(), indices.size() * 8, ACL_MEMCPY_HOST_TO_DEVICE, stream);
    aclrtMemcpyAsync(st, stats.size() * 4, stats.data(), stats.size() * 4, ACL_MEMCPY_HOST_TO_DEVICE, stream);
    int64_t wd[2] = {V, D}, id[1] = {N}, od[2] = {N, D}, sd[1] = {N};
    aclTensor* wt = aclCreateTensor(wd, 2, ACL_FLOAT, nullptr, 0, ACL_FORMAT_ND, wd, 2, w);
    aclTensor* it = aclCreateTensor(id, 1, ACL_INT64, nullptr, 0, ACL_FORMAT_ND, id, 1, idx);
    aclTensor* ot = aclCreateTensor(od, 2, ACL_FLOAT, nullptr, 0, ACL_FORMAT_ND, od, 2, out);
    aclTensor* mx = aclCreateTensor(sd, 1, ACL_FLOAT, nullptr, 0, ACL_FORMAT_ND, sd, 1, st);
    aclTensor* se = aclCreateTensor(sd, 1, ACL_FLOAT, nullptr, N, ACL_FORMAT_ND, sd, 1, st);  // offset views
    aclTensor* pr = aclCreateTensor(sd, 1, ACL_FLOAT, nullptr, 2 * N, ACL_FORMAT_ND, sd, 1, st);
    aclTensor* lt = aclCreateTensor(sd, 1, ACL_FLOAT, nullptr, 0, ACL_FORMAT_ND, sd, 1, loss);
    uint64_t ws = 0;
    aclOpExecutor* e = nullptr;
    int rc = aclnnEmbeddingGetWorkspaceSize(wt, it, ot, &ws, &e);
    rc = rc ? rc : aclnnEmbedding(nullptr, ws, e, stream);
    rc = rc ? rc : aclnnFusedCrossEntropyLossWithMaxSumGetWorkspaceSize(mx, se, pr, 0.0f, nullptr, nullptr, nullptr, lt,
                                                                        nullptr, &ws, &e);
    rc = rc ? rc : aclnnFusedCrossEntropyLossWithMaxSum(nullptr, ws, e, stream);
    rc = rc ? rc : aclrtSynchronizeStream(stream);
    std::vector<float> gathered(N * D), losses(N);
    aclrtMemcpy(gathered.data(), N * D * 4, out, N * D * 4, ACL_MEMCPY_DEVICE_TO_HOST);
    aclrtMemcpy(losses.data(), N * 4, loss, N * 4, ACL_MEMCPY_DEVICE_TO_HOST);
    double checksum = 0;
    for (int64_t i = 0; i < N * D; i++)
        checksum += gathered[i] * (1 + i % 7);
    for (int64_t i = 0; i < N; i++)
        checksum += losses[i] * (3 + i % 5);
    for (aclTensor* t : {wt, it, ot, mx, se, pr, lt})
        aclDestroyTensor(t);
    for (void* p : {w, idx, out, st, loss})
        aclrtFree(p);
    return rc ? NAN : checksum;
}

int main(int argc, char** argv)
{
    int threads = argc > 1 ? atoi(argv[1]) : 4, rounds = argc > 2 ? atoi(argv[2]) : 20;
    aclInit(nullptr);
    aclrtSetDevice(0);
    aclrtStream serial_stream = nullptr;
    aclrtCreateStream(&serial_stream);
    std::vector<double> expected(threads * rounds);
    for (int t = 0; t < threads; t++)
        for (int r = 0; r < rounds; r++)
            expected[t * rounds + r] = Round(0, serial_stream, t * 1000 + r);
    std::vector<double> got(threads * rounds, NAN);
    std::vector<std::thread> workers;
    for (int t = 0; t < threads; t++) {
        workers.emplace_back([t, rounds, threads, &got] {
            int32_t device = t % 2;  // two devices, several threads on each
            aclrtSetDevice(device);
            aclrtStream stream = nullptr;
            aclrtCreateStream(&stream);
            for (int r = 0; r < rounds; r++)
                got[t * rounds + r] = Round(device, stream, t * 1000 + r);
            aclrtDestroyStream(stream);
            (void)threads;
        });
    }
    for (auto& w : workers)
        w.join();
    int mismatches = 0;
    for (int i = 0; i < threads * rounds; i++) {
        if (!(got[i] == expected[i])) {  // bitwise-identical results, and no NaN from a failure
            mismatches++;
            printf("round %d: concurrent %.17g, serial %.17g\n", i, got[i], expected[i]);
        }
    }
    aclrtDestroyStream(serial_stream);
    aclrtResetDeviceForce(0);
    aclrtResetDeviceForce(1);
    aclFinalize();
    printf(mismatches ? "FAIL %d mismatches\n" : "PASS\n", mismatches);
    return mismatches != 0;
}
