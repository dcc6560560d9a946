// Host cost of tiny calls from C, each the median of N in microseconds: aclnn two-phase calls
// (phase 1 + phase 2 + stream sync) of NLLLossBackward, EmbeddingDenseBackward and ApplyFusedEmaAdam,
// and mcDNN calls followed by mcStreamSynchronize (BatchNormalizationBackward, PoolingBackward max,
// ActivationBackward). `call_overhead first_aclnn` / `first_mcdnn` time a fresh process from main() to the
// end of its first operator call (set-up calls included: some of them start the interpreter too).
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <vector>
#include "acl/acl.h"
#include "aclnnop/aclnn_apply_fused_ema_adam.h"
#include "aclnnop/aclnn_embedding_dense_backward.h"
#include "aclnnop/aclnn_nll_loss_backward.h"
#include "mcdnn/mcdnn.h"
#include "mcr/mc_runtime_api.h"

static double now_us()
{
    return std::chrono::duration<double, std::micro>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

static void ok(long status, const char* what)
{
    if (status != 0) {
        printf("%s failed: %ld %s\n", what, status, aclGetRecentErrMsg());
        exit(1);
    }
}

static void* device(const void* host, size_t bytes)
{
    void* p = nullptr;
    ok(aclrtMalloc(&p, bytes, ACL_MEM_MALLOC_HUGE_FIRST), "aclrtMalloc");
    ok(aclrtMemcpy(p, bytes, host, bytes, ACL_MEMCPY_HOST_TO_DEVICE), "aclrtMemcpy");
    return p;
}

static aclTensor* tensor(std::vector<int64_t> dims, aclDataType type, void* data)
{
    return aclCreateTensor(dims.data(), dims.size(), type, nullptr, 0, ACL_FORMAT_ND, dims.data(), dims.size(), data);
}

static double median_us(const std::function<void()>& call, int n)
{
    for (int k = 0; k < 100; k++) call();
    std::vector<double> t;
    for (int k = 0; k < n; k++) {
        double t0 = now_us();
        call();
        t.push_back(now_us() - t0);
    }
    std::sort(t.begin(), t.end());
    return t[t.size() / 2];
}

int main(int argc, char** argv)
{
    double started = now_us();
    const char* what = argc > 1 ? argv[1] : "loop";
    bool first_aclnn = strcmp(what, "first_aclnn") == 0;
    int n = argc > 2 ? atoi(argv[2]) : 2000;
    ok(aclInit(nullptr), "aclInit");
    ok(aclrtSetDevice(0), "aclrtSetDevice");
    aclrtStream stream;
    ok(aclrtCreateStream(&stream), "aclrtCreateStream");
    float values[64];
    for (int k = 0; k < 64; k++) values[k] = 0.25f * (k % 7) - 0.5f;
    int64_t targets[4] = {1, 3, 0, 2}, step[1] = {3};
    void* a = device(values, sizeof values);
    void* b = device(values, sizeof values);
    void* c = device(values, sizeof values);
    void* d = device(values, sizeof values);
    void* e = device(values, sizeof values);
    void* idx = device(targets, sizeof targets);
    void* st = device(step, sizeof step);
    uint64_t size = 0;
    aclOpExecutor* executor = nullptr;

    // NLLLossBackward: N=4, C=5, mean
    aclTensor *g0 = tensor({}, ACL_FLOAT, a), *self = tensor({4, 5}, ACL_FLOAT, b), *tg = tensor({4}, ACL_INT64, idx);
    aclTensor *w = tensor({5}, ACL_FLOAT, c), *tw = tensor({}, ACL_FLOAT, d), *nout = tensor({4, 5}, ACL_FLOAT, e);
    auto nll = [&]() {
        ok(aclnnNLLLossBackwardGetWorkspaceSize(g0, self, tg, w, 1, -100, tw, nout, &size, &executor), "nll phase 1");
        ok(aclnnNLLLossBackward(nullptr, size, executor, stream), "nll phase 2");
        ok(aclrtSynchronizeStream(stream), "sync");
    };
    // EmbeddingDenseBackward: 4 indices into 6 rows of 3
    aclTensor *eg = tensor({4, 3}, ACL_FLOAT, a), *eout = tensor({6, 3}, ACL_FLOAT, e);
    auto embedding = [&]() {
        ok(aclnnEmbeddingDenseBackwardGetWorkspaceSize(eg, tg, 6, ~0ull, false, eout, &size, &executor), "edb 1");
        void* ws = nullptr;
        if (size) ok(aclrtMalloc(&ws, size, ACL_MEM_MALLOC_HUGE_FIRST), "workspace");
        ok(aclnnEmbeddingDenseBackward(ws, size, executor, stream), "edb 2");
        ok(aclrtSynchronizeStream(stream), "sync");
        if (ws) aclrtFree(ws);
    };
    // ApplyFusedEmaAdam on 16 elements
    aclTensor *ag = tensor({16}, ACL_FLOAT, a), *av = tensor({16}, ACL_FLOAT, b), *am = tensor({16}, ACL_FLOAT, c);
    aclTensor *avv = tensor({16}, ACL_FLOAT, d), *as = tensor({16}, ACL_FLOAT, e), *astep = tensor({1}, ACL_INT64, st);
    auto ema = [&]() {
        ok(aclnnApplyFusedEmaAdamGetWorkspaceSize(ag, av, am, avv, as, astep, 1e-3, 0.99, 0.9, 0.999, 1e-8, 1, true,
                                                  0.01, &size, &executor), "ema 1");
        ok(aclnnApplyFusedEmaAdam(nullptr, size, executor, stream), "ema 2");
        ok(aclrtSynchronizeStream(stream), "sync");
    };

    if (first_aclnn) {
        nll();
        printf("first_call_ms %.1f\n", (now_us() - started) / 1000);
        return 0;
    }

    // mcDNN on a 2x2x4x4 tensor
    mcdnnHandle_t h;
    ok(mcdnnCreate(&h), "mcdnnCreate");
    mcdnnTensorDescriptor_t t4, y4, bn;
    ok(mcdnnCreateTensorDescriptor(&t4) | mcdnnCreateTensorDescriptor(&y4) | mcdnnCreateTensorDescriptor(&bn), "desc");
    ok(mcdnnSetTensor4dDescriptor(t4, MCDNN_TENSOR_NCHW, MCDNN_DATA_FLOAT, 2, 2, 4, 4), "set");
    ok(mcdnnSetTensor4dDescriptor(y4, MCDNN_TENSOR_NCHW, MCDNN_DATA_FLOAT, 2, 2, 2, 2), "set");
    ok(mcdnnSetTensor4dDescriptor(bn, MCDNN_TENSOR_NCHW, MCDNN_DATA_FLOAT, 1, 2, 1, 1), "set");
    float one = 1, zero = 0;
    auto batchnorm = [&]() {
        ok(mcdnnBatchNormalizationBackward(h, MCDNN_BATCHNORM_SPATIAL, &one, &zero, &one, &zero, t4, a, t4, b, t4, c,
                                           bn, d, e, e, 1e-5, nullptr, nullptr), "BN backward");
        ok(mcStreamSynchronize(nullptr), "sync");
    };
    mcdnnPoolingDescriptor_t pool;
    ok(mcdnnCreatePoolingDescriptor(&pool), "pool");
    ok(mcdnnSetPooling2dDescriptor(pool, MCDNN_POOLING_MAX, MCDNN_NOT_PROPAGATE_NAN, 2, 2, 0, 0, 2, 2), "pool");
    auto pooling = [&]() {
        ok(mcdnnPoolingBackward(h, pool, &one, y4, b, y4, c, t4, a, &zero, t4, d), "pool backward");
        ok(mcStreamSynchronize(nullptr), "sync");
    };
    mcdnnActivationDescriptor_t act;
    ok(mcdnnCreateActivationDescriptor(&act), "act");
    ok(mcdnnSetActivationDescriptor(act, MCDNN_ACTIVATION_RELU, MCDNN_NOT_PROPAGATE_NAN, 0.0), "act");
    auto activation = [&]() {
        ok(mcdnnActivationBackward(h, act, &one, t4, a, t4, b, t4, c, &zero, t4, d), "activation backward");
        ok(mcStreamSynchronize(nullptr), "sync");
    };

    if (strcmp(what, "first_mcdnn") == 0) {
        batchnorm();
        printf("first_call_ms %.1f\n", (now_us() - started) / 1000);
        return 0;
    }
    ok(mcdnnPoolingForward(h, pool, &one, t4, a, &zero, y4, b), "pool forward");  // y for the backward
    printf("NLLLossBackward %.2f\n", median_us(nll, n));
    printf("EmbeddingDenseBackward %.2f\n", median_us(embedding, n));
    printf("ApplyFusedEmaAdam %.2f\n", median_us(ema, n));
    printf("mcdnnBatchNormalizationBackward %.2f\n", median_us(batchnorm, n));
    printf("mcdnnPoolingBackward %.2f\n", median_us(pooling, n));
    printf("mcdnnActivationBackward %.2f\n", median_us(activation, n));
    return 0;
}
