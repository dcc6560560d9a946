// Host cost of aclnn calls from C: `embedding_overhead first` times the first phase-1 call of a
// fresh process (interpreter and NumPy start-up); `embedding_overhead loop N` times N full
// two-phase calls of a tiny aclnnEmbedding (phase 1 + phase 2 + stream sync) and N bare C→Python
// round trips, printing each median in microseconds.
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <dlfcn.h>
#include <vector>
#include "acl/acl.h"
#include "aclnnop/aclnn_embedding.h"

static double now_us()
{
    return std::chrono::duration<double, std::micro>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

static double median(std::vector<double> v)
{
    std::sort(v.begin(), v.end());
    return v[v.size() / 2];
}

int main(int argc, char** argv)
{
    aclInit(nullptr);
    aclrtSetDevice(0);
    aclrtStream stream;
    aclrtCreateStream(&stream);
    float weight[8] = {0, 1, 2, 3, 4, 5, 6, 7};
    int64_t indices[2] = {3, 1};
    void *w, *i, *o;
    aclrtMalloc(&w, sizeof weight, ACL_MEM_MALLOC_HUGE_FIRST);
    aclrtMalloc(&i, sizeof indices, ACL_MEM_MALLOC_HUGE_FIRST);
    aclrtMalloc(&o, 4 * sizeof(float), ACL_MEM_MALLOC_HUGE_FIRST);
    aclrtMemcpy(w, sizeof weight, weight, sizeof weight, ACL_MEMCPY_HOST_TO_DEVICE);
    aclrtMemcpy(i, sizeof indices, indices, sizeof indices, ACL_MEMCPY_HOST_TO_DEVICE);
    int64_t ws[2] = {4, 2}, is[1] = {2}, os[2] = {2, 2};
    aclTensor* wt = aclCreateTensor(ws, 2, ACL_FLOAT, nullptr, 0, ACL_FORMAT_ND, ws, 2, w);
    aclTensor* it = aclCreateTensor(is, 1, ACL_INT64, nullptr, 0, ACL_FORMAT_ND, is, 1, i);
    aclTensor* ot = aclCreateTensor(os, 2, ACL_FLOAT, nullptr, 0, ACL_FORMAT_ND, os, 2, o);
    uint64_t size = 0;
    aclOpExecutor* executor = nullptr;
    auto call = [&]() {
        if (aclnnEmbeddingGetWorkspaceSize(wt, it, ot, &size, &executor) != 0 ||
            aclnnEmbedding(nullptr, size, executor, stream) != 0 || aclrtSynchronizeStream(stream) != 0) {
            printf("call failed: %s\n", aclGetRecentErrMsg());
            exit(1);
        }
    };
    if (argc > 1 && strcmp(argv[1], "first") == 0) {
        double t0 = now_us();
        call();
        printf("first_call_us %.1f\n", now_us() - t0);
        return 0;
    }
    int n = argc > 2 ? atoi(argv[2]) : 2000;
    auto round_trip = (void (*)(uint64_t))dlsym(RTLD_DEFAULT, "opemu_py_release_plan");
    if (round_trip == nullptr) {
        printf("opemu_py_release_plan not found\n");
        return 1;
    }
    for (int k = 0; k < 200; k++) call();  // warm up
    std::vector<double> full, bare;
    for (int k = 0; k < n; k++) {
        double t0 = now_us();
        call();
        double t1 = now_us();
        round_trip(0);
        double t2 = now_us();
        full.push_back(t1 - t0);
        bare.push_back(t2 - t1);
    }
    printf("two_phase_us %.2f\nround_trip_us %.2f\n", median(full), median(bare));
    return 0;
}
