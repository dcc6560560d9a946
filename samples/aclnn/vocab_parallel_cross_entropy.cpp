/**
 * Tensor-parallel (vocabulary-parallel) linear + cross-entropy, forward and backward, over N
 * devices: each device holds one shard of the output-layer weight and runs
 *   aclnnFusedLinearOnlineMaxSum            -> local max / sum-exp / predicted logit and the mask
 * the host all-reduces those (what HCCL does on hardware), then
 *   aclnnFusedCrossEntropyLossWithMaxSum     -> the loss (device 0)
 *   aclnnFusedLinearCrossEntropyLossGrad     -> each shard's input and weight gradients
 * and the host sums the input gradients. Usage: vocab_parallel_cross_entropy [N]  (default 4).
 * The printed loss and gradient checksums equal the N = 1 run up to fp16 rounding.
 */
#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <iostream>
#include <vector>
#include "acl/acl.h"
#include "aclnn/opdev/fp16_t.h"
#include "aclnnop/aclnn_fused_cross_entropy_loss_with_max_sum.h"
#include "aclnnop/aclnn_fused_linear_cross_entropy_loss_grad.h"
#include "aclnnop/aclnn_fused_linear_online_max_sum.h"

#define CHECK_RET(cond, return_expr) \
    do {                             \
        if (!(cond)) {               \
            return_expr;             \
        }                            \
    } while (0)

#define LOG_PRINT(message, ...)         \
    do {                                \
        printf(message, ##__VA_ARGS__); \
    } while (0)

static const int64_t BT = 37;  // not a multiple of 8: the last mask byte is padded
static const int64_t H = 64;
static const int64_t V = 1000;

// Device memory holding `bytes` (copied from `host` when given) and an ND tensor over it.
struct DeviceTensor {
    void* addr = nullptr;
    aclTensor* tensor = nullptr;
    int Create(const std::vector<int64_t>& shape, aclDataType dtype, size_t elementSize, const void* host)
    {
        int64_t count = 1;
        for (auto d : shape) {
            count *= d;
        }
        size_t bytes = std::max<size_t>(count * elementSize, 1);
        auto ret = aclrtMalloc(&addr, bytes, ACL_MEM_MALLOC_HUGE_FIRST);
        CHECK_RET(ret == ACL_SUCCESS, LOG_PRINT("aclrtMalloc failed. ERROR: %d\n", ret); return ret);
        if (host != nullptr) {
            ret = aclrtMemcpy(addr, bytes, host, bytes, ACL_MEMCPY_HOST_TO_DEVICE);
            CHECK_RET(ret == ACL_SUCCESS, LOG_PRINT("aclrtMemcpy failed. ERROR: %d\n", ret); return ret);
        }
        std::vector<int64_t> strides(shape.size(), 1);
        for (int64_t i = static_cast<int64_t>(shape.size()) - 2; i >= 0; i--) {
            strides[i] = shape[i + 1] * strides[i + 1];
        }
        tensor = aclCreateTensor(shape.data(), shape.size(), dtype, strides.data(), 0, aclFormat::ACL_FORMAT_ND,
                                 shape.data(), shape.size(), addr);
        return tensor == nullptr ? -1 : 0;
    }
    int Read(void* host, size_t bytes) const
    {
        return aclrtMemcpy(host, bytes, addr, bytes, ACL_MEMCPY_DEVICE_TO_HOST);
    }
    void Release()
    {
        aclDestroyTensor(tensor);
        aclrtFree(addr);
    }
};

// Runs phase 2 with a workspace of the size phase 1 asked for, on `stream`, and waits.
template <typename Phase2>
int Launch(const char* name, uint64_t workspaceSize, aclOpExecutor* executor, aclrtStream stream, Phase2 phase2)
{
    void* workspace = nullptr;
    if (workspaceSize > 0) {
        auto ret = aclrtMalloc(&workspace, workspaceSize, ACL_MEM_MALLOC_HUGE_FIRST);
        CHECK_RET(ret == ACL_SUCCESS, LOG_PRINT("allocate workspace failed. ERROR: %d\n", ret); return ret);
    }
    auto ret = phase2(workspace, workspaceSize, executor, stream);
    CHECK_RET(ret == ACL_SUCCESS, LOG_PRINT("%s failed. ERROR: %d\n", name, ret); return ret);
    ret = aclrtSynchronizeStream(stream);
    CHECK_RET(ret == ACL_SUCCESS, LOG_PRINT("aclrtSynchronizeStream failed. ERROR: %d\n", ret); return ret);
    if (workspace != nullptr) {
        aclrtFree(workspace);
    }
    return 0;
}

struct Shard {
    int32_t device = 0;
    aclrtStream stream = nullptr;
    int64_t start = 0, end = 0;
    DeviceTensor input, weight, target, logitsMax, sumExp, predicted, targetMask, maskedTarget;
    DeviceTensor grad, globalMax, globalSumExp, inputGrad, weightGrad;
    std::vector<float> localMax, localSumExp, localPredicted;
    std::vector<uint8_t> mask;
};

int main(int argc, char** argv)
{
    int32_t devices = argc > 1 ? atoi(argv[1]) : 4;
    auto ret = aclInit(nullptr);
    CHECK_RET(ret == ACL_SUCCESS, LOG_PRINT("aclInit failed. ERROR: %d\n", ret); return ret);

    // Data shared by every device: input [BT, H], targets over the whole vocabulary, the weight [V, H].
    std::vector<op::fp16_t> inputHost(BT * H, 0), weightHost(V * H, 0);
    for (int64_t i = 0; i < BT * H; i++) {
        inputHost[i] = 0.05f * static_cast<float>((i * 37 + 11) % 41 - 20);
    }
    for (int64_t i = 0; i < V * H; i++) {
        weightHost[i] = 0.01f * static_cast<float>((i * 53 + 7) % 61 - 30);
    }
    std::vector<int64_t> targetHost(BT);
    for (int64_t b = 0; b < BT; b++) {
        targetHost[b] = (b * 271 + 13) % V;
    }

    // 1. Forward, per device: its vocabulary shard [start, end).
    std::vector<Shard> shards(devices);
    for (int32_t d = 0; d < devices; d++) {
        Shard& s = shards[d];
        s.device = d;
        s.start = V * d / devices;
        s.end = V * (d + 1) / devices;
        int64_t n = s.end - s.start;
        ret = aclrtSetDevice(d);
        CHECK_RET(ret == ACL_SUCCESS, LOG_PRINT("aclrtSetDevice failed. ERROR: %d\n", ret); return ret);
        ret = aclrtCreateStream(&s.stream);
        CHECK_RET(ret == ACL_SUCCESS, LOG_PRINT("aclrtCreateStream failed. ERROR: %d\n", ret); return ret);
        CHECK_RET(s.input.Create({BT, H}, ACL_FLOAT16, 2, inputHost.data()) == 0, return 1);
        CHECK_RET(s.weight.Create({n, H}, ACL_FLOAT16, 2, weightHost.data() + s.start * H) == 0, return 1);
        CHECK_RET(s.target.Create({BT}, ACL_INT64, 8, targetHost.data()) == 0, return 1);
        CHECK_RET(s.logitsMax.Create({BT}, ACL_FLOAT, 4, nullptr) == 0, return 1);
        CHECK_RET(s.sumExp.Create({BT}, ACL_FLOAT, 4, nullptr) == 0, return 1);
        CHECK_RET(s.predicted.Create({BT}, ACL_FLOAT, 4, nullptr) == 0, return 1);
        CHECK_RET(s.targetMask.Create({(BT + 7) / 8}, ACL_UINT8, 1, nullptr) == 0, return 1);
        CHECK_RET(s.maskedTarget.Create({BT}, ACL_INT64, 8, nullptr) == 0, return 1);
        uint64_t workspaceSize = 0;
        aclOpExecutor* executor = nullptr;
        ret = aclnnFusedLinearOnlineMaxSumGetWorkspaceSize(
            s.input.tensor, s.weight.tensor, s.target.tensor, s.start, s.end, s.logitsMax.tensor, s.sumExp.tensor,
            s.predicted.tensor, s.targetMask.tensor, s.maskedTarget.tensor, nullptr, &workspaceSize, &executor);
        CHECK_RET(ret == ACL_SUCCESS,
                  LOG_PRINT("aclnnFusedLinearOnlineMaxSumGetWorkspaceSize failed. ERROR: %d\n", ret); return ret);
        ret = Launch("aclnnFusedLinearOnlineMaxSum", workspaceSize, executor, s.stream, aclnnFusedLinearOnlineMaxSum);
        CHECK_RET(ret == 0, return ret);
        s.localMax.resize(BT);
        s.localSumExp.resize(BT);
        s.localPredicted.resize(BT);
        s.mask.resize((BT + 7) / 8);
        s.logitsMax.Read(s.localMax.data(), BT * sizeof(float));
        s.sumExp.Read(s.localSumExp.data(), BT * sizeof(float));
        s.predicted.Read(s.localPredicted.data(), BT * sizeof(float));
        s.targetMask.Read(s.mask.data(), s.mask.size());
    }

    // 2. All-reduce on the host: global max, rescaled sum of exponentials, predicted logit.
    std::vector<float> globalMax(BT, -INFINITY), globalSumExp(BT, 0), globalPredicted(BT, 0);
    for (auto& s : shards) {
        for (int64_t b = 0; b < BT; b++) {
            globalMax[b] = std::max(globalMax[b], s.localMax[b]);
        }
    }
    for (auto& s : shards) {
        for (int64_t b = 0; b < BT; b++) {
            globalSumExp[b] += s.localSumExp[b] * std::exp(s.localMax[b] - globalMax[b]);
            bool inShard = ((s.mask[b / 8] >> (b % 8)) & 1) == 0;
            if (inShard) {
                globalPredicted[b] += s.localPredicted[b] + s.localMax[b] - globalMax[b];
            }
        }
    }

    // 3. The loss, on device 0.
    Shard& first = shards[0];
    aclrtSetDevice(first.device);
    DeviceTensor maxT, sumT, predT, lossT;
    CHECK_RET(maxT.Create({BT}, ACL_FLOAT, 4, globalMax.data()) == 0, return 1);
    CHECK_RET(sumT.Create({BT}, ACL_FLOAT, 4, globalSumExp.data()) == 0, return 1);
    CHECK_RET(predT.Create({BT}, ACL_FLOAT, 4, globalPredicted.data()) == 0, return 1);
    CHECK_RET(lossT.Create({BT}, ACL_FLOAT, 4, nullptr) == 0, return 1);
    uint64_t workspaceSize = 0;
    aclOpExecutor* executor = nullptr;
    ret = aclnnFusedCrossEntropyLossWithMaxSumGetWorkspaceSize(maxT.tensor, sumT.tensor, predT.tensor, 0.0f, nullptr,
                                                               nullptr, nullptr, lossT.tensor, nullptr, &workspaceSize,
                                                               &executor);
    CHECK_RET(ret == ACL_SUCCESS,
              LOG_PRINT("aclnnFusedCrossEntropyLossWithMaxSumGetWorkspaceSize failed. ERROR: %d\n", ret); return ret);
    ret = Launch("aclnnFusedCrossEntropyLossWithMaxSum", workspaceSize, executor, first.stream,
                 aclnnFusedCrossEntropyLossWithMaxSum);
    CHECK_RET(ret == 0, return ret);
    std::vector<float> loss(BT);
    lossT.Read(loss.data(), BT * sizeof(float));
    double meanLoss = 0;
    for (auto l : loss) {
        meanLoss += l / BT;
    }

    // 4. Backward of the mean loss, per device, in the memory-saving mode (no softmax kept).
    std::vector<float> gradHost(BT, 1.0f / BT);
    std::vector<double> inputGradSum(BT * H, 0);
    double weightGradChecksum = 0, weightGradAbs = 0;
    for (auto& s : shards) {
        int64_t n = s.end - s.start;
        aclrtSetDevice(s.device);
        CHECK_RET(s.grad.Create({BT}, ACL_FLOAT, 4, gradHost.data()) == 0, return 1);
        CHECK_RET(s.globalMax.Create({BT}, ACL_FLOAT, 4, globalMax.data()) == 0, return 1);
        CHECK_RET(s.globalSumExp.Create({BT}, ACL_FLOAT, 4, globalSumExp.data()) == 0, return 1);
        CHECK_RET(s.inputGrad.Create({BT, H}, ACL_FLOAT16, 2, nullptr) == 0, return 1);
        CHECK_RET(s.weightGrad.Create({n, H}, ACL_FLOAT16, 2, nullptr) == 0, return 1);
        ret = aclnnFusedLinearCrossEntropyLossGradGetWorkspaceSize(
            s.grad.tensor, s.input.tensor, s.weight.tensor, s.targetMask.tensor, s.maskedTarget.tensor, 0.0f,
            s.globalMax.tensor, s.globalSumExp.tensor, nullptr, s.inputGrad.tensor, s.weightGrad.tensor,
            &workspaceSize, &executor);
        CHECK_RET(ret == ACL_SUCCESS,
                  LOG_PRINT("aclnnFusedLinearCrossEntropyLossGradGetWorkspaceSize failed. ERROR: %d\n", ret);
                  return ret);
        ret = Launch("aclnnFusedLinearCrossEntropyLossGrad", workspaceSize, executor, s.stream,
                     aclnnFusedLinearCrossEntropyLossGrad);
        CHECK_RET(ret == 0, return ret);
        std::vector<op::fp16_t> inputGrad(BT * H), weightGrad(n * H);
        s.inputGrad.Read(inputGrad.data(), inputGrad.size() * 2);
        s.weightGrad.Read(weightGrad.data(), weightGrad.size() * 2);
        for (int64_t i = 0; i < BT * H; i++) {
            inputGradSum[i] += static_cast<float>(inputGrad[i]);  // the all-reduce of input gradients
        }
        for (auto g : weightGrad) {
            weightGradChecksum += static_cast<float>(g);
            weightGradAbs += std::fabs(static_cast<float>(g));
        }
    }
    double inputGradChecksum = 0, inputGradAbs = 0;
    for (auto g : inputGradSum) {
        inputGradChecksum += g;
        inputGradAbs += std::fabs(g);
    }
    LOG_PRINT("devices: %d\n", devices);
    LOG_PRINT("loss: %.6f\n", meanLoss);
    LOG_PRINT("input grad checksum: %.6f abs %.6f\n", inputGradChecksum, inputGradAbs);
    LOG_PRINT("weight grad checksum: %.6f abs %.6f\n", weightGradChecksum, weightGradAbs);

    // 5. Release everything, device by device.
    maxT.Release();
    sumT.Release();
    predT.Release();
    lossT.Release();
    for (auto& s : shards) {
        aclrtSetDevice(s.device);
        for (DeviceTensor* t : {&s.input, &s.weight, &s.target, &s.logitsMax, &s.sumExp, &s.predicted, &s.targetMask,
                                &s.maskedTarget, &s.grad, &s.globalMax, &s.globalSumExp, &s.inputGrad, &s.weightGrad}) {
            t->Release();
        }
        aclrtDestroyStream(s.stream);
        aclrtResetDeviceForce(s.device);  // aclrtSetDevice was called more than once per device
    }
    aclFinalize();
    return 0;
}
