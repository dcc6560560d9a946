#include <iostream>
#include <vector>
#include "acl/acl.h"
#include <cmath>
#include "aclnnop/aclnn_fused_cross_entropy_loss_with_max_sum.h"
#define CHECK_RET(cond, return_expr) \
    do \
{ \
        if (!(cond)) \
{ \
            return_expr; \
        } \
    } while (0)
#define LOG_PRINT(message, ...) \
    do \
{ \
        printf(message, ##__VA_ARGS__); \
    } while (0)
int64_t GetShapeSize(const std::vector<int64_t> &shape)
{
    int64_t shapeSize = 1;
    for (auto i : shape) {
        shapeSize *= i;
    }
    return shapeSize;
}
int Init(int32_t deviceId, aclrtStream *stream)
{
    // 固定写法,资源初始化
    auto ret = aclInit(nullptr);
    CHECK_RET(ret == ACL_SUCCESS, LOG_PRINT("aclInit failed. ERROR: %d\n", ret); return ret);
    ret = aclrtSetDevice(deviceId);
    CHECK_RET(ret == ACL_SUCCESS, LOG_PRINT("aclrtSetDevice failed. ERROR: %d\n", ret); return ret);
    ret = aclrtCreateStream(stream);
    CHECK_RET(ret == ACL_SUCCESS, LOG_PRINT("aclrtCreateStream failed. ERROR: %d\n", ret); return ret);
    return 0;
}
template <typename T>
std::vector<T> GenZeroVector(const std::vector<int64_t>& shape)
{
    // 1. 计算总元素数量
    size_t total = 1;
    for (auto dim : shape) {
        total *= dim;
    }
    // 2. 填充0
    std::vector<T> vec(total);
    for (auto& elem : vec) {
        elem = 0;
    }
    return vec;
}
template <typename T>
int CreateAclTensor(const std::vector<T> &hostData, const std::vector<int64_t> &shape, void **deviceAddr,
                    aclDataType dataType, aclTensor **tensor)
{
    auto size = GetShapeSize(shape) * sizeof(T);
    // 调用aclrtMalloc申请device侧内存
    auto ret = aclrtMalloc(deviceAddr, size, ACL_MEM_MALLOC_HUGE_FIRST);
    CHECK_RET(ret == ACL_SUCCESS, LOG_PRINT("aclrtMalloc failed. ERROR: %d\n", ret); return ret);
    // 调用aclrtMemcpy将host侧数据拷贝到device侧内存上
    ret = aclrtMemcpy(*deviceAddr, size, hostData.data(), size, ACL_MEMCPY_HOST_TO_DEVICE);
    CHECK_RET(ret == ACL_SUCCESS, LOG_PRINT("aclrtMemcpy failed. ERROR: %d\n", ret); return ret);
    // 计算连续tensor的strides
    std::vector<int64_t> strides(shape.size(), 1);
    for (int64_t i = shape.size() - 2; i >= 0; i--) {
        strides[i] = shape[i + 1] * strides[i + 1];
    }
    // 调用aclCreateTensor接口创建aclTensor
    *tensor = aclCreateTensor(shape.data(), shape.size(), dataType, strides.data(), 0, aclFormat::ACL_FORMAT_ND,
                              shape.data(), shape.size(), *deviceAddr);
    return 0;
}
int main()
{
    // 1. (固定写法)device/stream初始化,参考acl对外接口列表
    int32_t deviceId = 0;
    aclrtStream stream;
    auto ret = Init(deviceId, &stream);
    CHECK_RET(ret == ACL_SUCCESS, LOG_PRINT("Init acl failed. ERROR: %d\n", ret); return ret);
    // 2. 构造输入与输出: 全局 logits 的 max / sumExp / predicted(通信后), 以及本卡的 logits
    int64_t BT = 4;
    int64_t V = 6;
    std::vector<int64_t> rowShape = {BT};
    std::vector<int64_t> logitsShape = {BT, V};
    std::vector<float> logitsHostData(BT * V);
    for (int64_t i = 0; i < BT * V; i++) {
        logitsHostData[i] = 0.25f * static_cast<float>((i * 5) % 9) - 1.0f;
    }
    std::vector<float> logitsMaxHostData(BT), sumExpHostData(BT), predictedHostData(BT);
    std::vector<int64_t> target = {1, 5, 0, 3};
    for (int64_t b = 0; b < BT; b++) {
        float mx = logitsHostData[b * V];
        for (int64_t v = 1; v < V; v++) {
            mx = std::max(mx, logitsHostData[b * V + v]);
        }
        float s = 0;
        for (int64_t v = 0; v < V; v++) {
            s += std::exp(logitsHostData[b * V + v] - mx);
        }
        logitsMaxHostData[b] = mx;
        sumExpHostData[b] = s;
        predictedHostData[b] = logitsHostData[b * V + target[b]] - mx;
    }
    std::vector<float> zeros(BT * V, 0);
    void *logitsMaxDeviceAddr = nullptr, *sumExpDeviceAddr = nullptr, *predictedDeviceAddr = nullptr;
    void *logitsDeviceAddr = nullptr, *lossDeviceAddr = nullptr, *softmaxDeviceAddr = nullptr;
    void *inputDeviceAddr = nullptr, *weightDeviceAddr = nullptr;
    aclTensor *logitsMax = nullptr, *sumExp = nullptr, *predicted = nullptr, *logits = nullptr;
    aclTensor *loss = nullptr, *softmax = nullptr, *input = nullptr, *weight = nullptr;
    ret = CreateAclTensor(logitsMaxHostData, rowShape, &logitsMaxDeviceAddr, aclDataType::ACL_FLOAT, &logitsMax);
    CHECK_RET(ret == ACL_SUCCESS, return ret);
    ret = CreateAclTensor(sumExpHostData, rowShape, &sumExpDeviceAddr, aclDataType::ACL_FLOAT, &sumExp);
    CHECK_RET(ret == ACL_SUCCESS, return ret);
    ret = CreateAclTensor(predictedHostData, rowShape, &predictedDeviceAddr, aclDataType::ACL_FLOAT, &predicted);
    CHECK_RET(ret == ACL_SUCCESS, return ret);
    ret = CreateAclTensor(logitsHostData, logitsShape, &logitsDeviceAddr, aclDataType::ACL_FLOAT, &logits);
    CHECK_RET(ret == ACL_SUCCESS, return ret);
    ret = CreateAclTensor(zeros, rowShape, &lossDeviceAddr, aclDataType::ACL_FLOAT, &loss);
    CHECK_RET(ret == ACL_SUCCESS, return ret);
    ret = CreateAclTensor(zeros, logitsShape, &softmaxDeviceAddr, aclDataType::ACL_FLOAT, &softmax);
    CHECK_RET(ret == ACL_SUCCESS, return ret);
    // 官方示例在 inputOptional/weightOptional 也传入了 tensor: 算子不读取它们
    ret = CreateAclTensor(zeros, logitsShape, &inputDeviceAddr, aclDataType::ACL_FLOAT, &input);
    CHECK_RET(ret == ACL_SUCCESS, return ret);
    ret = CreateAclTensor(zeros, logitsShape, &weightDeviceAddr, aclDataType::ACL_FLOAT, &weight);
    CHECK_RET(ret == ACL_SUCCESS, return ret);
    // 3. 调用CANN算子库API
    uint64_t workspaceSize = 0;
    aclOpExecutor *executor;
    ret = aclnnFusedCrossEntropyLossWithMaxSumGetWorkspaceSize(logitsMax, sumExp, predicted, 0.0f, input, weight, logits,
                                                               loss, softmax, &workspaceSize, &executor);
    CHECK_RET(ret == ACL_SUCCESS,
              LOG_PRINT("aclnnFusedCrossEntropyLossWithMaxSumGetWorkspaceSize failed. ERROR: %d\n", ret);
              return ret);
    void *workspaceAddr = nullptr;
    if (workspaceSize > 0) {
        ret = aclrtMalloc(&workspaceAddr, workspaceSize, ACL_MEM_MALLOC_HUGE_FIRST);
        CHECK_RET(ret == ACL_SUCCESS, LOG_PRINT("allocate workspace failed. ERROR: %d\n", ret); return ret);
    }
    ret = aclnnFusedCrossEntropyLossWithMaxSum(workspaceAddr, workspaceSize, executor, stream);
    CHECK_RET(ret == ACL_SUCCESS, LOG_PRINT("aclnnFusedCrossEntropyLossWithMaxSum failed. ERROR: %d\n", ret);
              return ret);
    // 4. (固定写法)同步等待任务执行结束
    ret = aclrtSynchronizeStream(stream);
    CHECK_RET(ret == ACL_SUCCESS, LOG_PRINT("aclrtSynchronizeStream failed. ERROR: %d\n", ret); return ret);
    // 5. 获取输出的值
    std::vector<float> lossResult(BT), softmaxResult(BT * V);
    aclrtMemcpy(lossResult.data(), BT * sizeof(float), lossDeviceAddr, BT * sizeof(float), ACL_MEMCPY_DEVICE_TO_HOST);
    aclrtMemcpy(softmaxResult.data(), BT * V * sizeof(float), softmaxDeviceAddr, BT * V * sizeof(float),
                ACL_MEMCPY_DEVICE_TO_HOST);
    for (int64_t b = 0; b < BT; b++) {
        LOG_PRINT("loss[%ld] is: %f\n", b, lossResult[b]);
    }
    for (int64_t i = 0; i < BT * V; i++) {
        LOG_PRINT("softmax[%ld] is: %f\n", i, softmaxResult[i]);
    }
    // 6. 释放aclTensor和device资源
    aclDestroyTensor(logitsMax);
    aclDestroyTensor(sumExp);
    aclDestroyTensor(predicted);
    aclDestroyTensor(logits);
    aclDestroyTensor(loss);
    aclDestroyTensor(softmax);
    aclDestroyTensor(input);
    aclDestroyTensor(weight);
    aclrtFree(logitsMaxDeviceAddr);
    aclrtFree(sumExpDeviceAddr);
    aclrtFree(predictedDeviceAddr);
    aclrtFree(logitsDeviceAddr);
    aclrtFree(lossDeviceAddr);
    aclrtFree(softmaxDeviceAddr);
    aclrtFree(inputDeviceAddr);
    aclrtFree(weightDeviceAddr);
    if (workspaceSize > 0) {
        aclrtFree(workspaceAddr);
    }
    aclrtDestroyStream(stream);
    aclrtResetDevice(deviceId);
    aclFinalize();
    return 0;
}
