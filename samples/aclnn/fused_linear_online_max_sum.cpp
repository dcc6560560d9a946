#include <iostream>
#include <vector>
#include "acl/acl.h"
#include "aclnn/opdev/fp16_t.h"
#include "aclnnop/aclnn_fused_linear_online_max_sum.h"
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
    // 2. 构造输入与输出: 本卡词表分片为 [vocabStartIndex, vocabEndIndex)
    int64_t m = 10;
    int64_t n = 8;
    int64_t k = 16;
    int64_t vocabStartIndex = 8;
    int64_t vocabEndIndex = 16;
    std::vector<int64_t> inputShape = {m, k};
    std::vector<int64_t> weightShape = {n, k};
    std::vector<int64_t> targetShape = {m};
    std::vector<int64_t> statShape = {m};
    std::vector<int64_t> targetMaskShape = {(m + 7) / 8};
    void *inputDeviceAddr = nullptr, *weightDeviceAddr = nullptr, *targetDeviceAddr = nullptr;
    void *logitsMaxDeviceAddr = nullptr, *sumExpDeviceAddr = nullptr, *predictedDeviceAddr = nullptr;
    void *targetMaskDeviceAddr = nullptr, *maskedTargetDeviceAddr = nullptr;
    aclTensor *input = nullptr, *weight = nullptr, *target = nullptr;
    aclTensor *logitsMax = nullptr, *sumExp = nullptr, *predicted = nullptr, *targetMask = nullptr, *maskedTarget = nullptr;
    // input[i][j] = 0.01 * ((i * 7 + j * 3) % 11), weight[v][j] = 0.02 * ((v * 5 + j) % 7)
    std::vector<op::fp16_t> inputHostData(m * k, 0);
    std::vector<op::fp16_t> weightHostData(n * k, 0);
    for (int64_t i = 0; i < m * k; i++) {
        inputHostData[i] = 0.01f * static_cast<float>(((i / k) * 7 + (i % k) * 3) % 11);
    }
    for (int64_t i = 0; i < n * k; i++) {
        weightHostData[i] = 0.02f * static_cast<float>(((i / k) * 5 + (i % k)) % 7);
    }
    std::vector<int32_t> targetHostData = {3, 8, 9, 15, 16, 12, 0, 10, 11, 7};
    std::vector<float> statHostData(m, 0);
    std::vector<uint8_t> targetMaskHostData((m + 7) / 8, 0);
    std::vector<int32_t> maskedTargetHostData(m, 0);
    ret = CreateAclTensor(inputHostData, inputShape, &inputDeviceAddr, aclDataType::ACL_FLOAT16, &input);
    CHECK_RET(ret == ACL_SUCCESS, return ret);
    ret = CreateAclTensor(weightHostData, weightShape, &weightDeviceAddr, aclDataType::ACL_FLOAT16, &weight);
    CHECK_RET(ret == ACL_SUCCESS, return ret);
    ret = CreateAclTensor(targetHostData, targetShape, &targetDeviceAddr, aclDataType::ACL_INT32, &target);
    CHECK_RET(ret == ACL_SUCCESS, return ret);
    ret = CreateAclTensor(statHostData, statShape, &logitsMaxDeviceAddr, aclDataType::ACL_FLOAT, &logitsMax);
    CHECK_RET(ret == ACL_SUCCESS, return ret);
    ret = CreateAclTensor(statHostData, statShape, &sumExpDeviceAddr, aclDataType::ACL_FLOAT, &sumExp);
    CHECK_RET(ret == ACL_SUCCESS, return ret);
    ret = CreateAclTensor(statHostData, statShape, &predictedDeviceAddr, aclDataType::ACL_FLOAT, &predicted);
    CHECK_RET(ret == ACL_SUCCESS, return ret);
    ret = CreateAclTensor(targetMaskHostData, targetMaskShape, &targetMaskDeviceAddr, aclDataType::ACL_UINT8,
                          &targetMask);
    CHECK_RET(ret == ACL_SUCCESS, return ret);
    ret = CreateAclTensor(maskedTargetHostData, targetShape, &maskedTargetDeviceAddr, aclDataType::ACL_INT32,
                          &maskedTarget);
    CHECK_RET(ret == ACL_SUCCESS, return ret);
    // 3. 调用CANN算子库API
    uint64_t workspaceSize = 0;
    aclOpExecutor *executor;
    ret = aclnnFusedLinearOnlineMaxSumGetWorkspaceSize(input, weight, target, vocabStartIndex, vocabEndIndex, logitsMax,
                                                       sumExp, predicted, targetMask, maskedTarget, nullptr,
                                                       &workspaceSize, &executor);
    CHECK_RET(ret == ACL_SUCCESS,
              LOG_PRINT("aclnnFusedLinearOnlineMaxSumGetWorkspaceSize failed. ERROR: %d\n", ret); return ret);
    void *workspaceAddr = nullptr;
    if (workspaceSize > 0) {
        ret = aclrtMalloc(&workspaceAddr, workspaceSize, ACL_MEM_MALLOC_HUGE_FIRST);
        CHECK_RET(ret == ACL_SUCCESS, LOG_PRINT("allocate workspace failed. ERROR: %d\n", ret); return ret);
    }
    ret = aclnnFusedLinearOnlineMaxSum(workspaceAddr, workspaceSize, executor, stream);
    CHECK_RET(ret == ACL_SUCCESS, LOG_PRINT("aclnnFusedLinearOnlineMaxSum failed. ERROR: %d\n", ret); return ret);
    // 4. (固定写法)同步等待任务执行结束
    ret = aclrtSynchronizeStream(stream);
    CHECK_RET(ret == ACL_SUCCESS, LOG_PRINT("aclrtSynchronizeStream failed. ERROR: %d\n", ret); return ret);
    // 5. 获取输出的值
    std::vector<float> maxResult(m), sumResult(m), predictedResult(m);
    std::vector<uint8_t> maskResult((m + 7) / 8);
    std::vector<int32_t> maskedResult(m);
    aclrtMemcpy(maxResult.data(), m * sizeof(float), logitsMaxDeviceAddr, m * sizeof(float), ACL_MEMCPY_DEVICE_TO_HOST);
    aclrtMemcpy(sumResult.data(), m * sizeof(float), sumExpDeviceAddr, m * sizeof(float), ACL_MEMCPY_DEVICE_TO_HOST);
    aclrtMemcpy(predictedResult.data(), m * sizeof(float), predictedDeviceAddr, m * sizeof(float),
                ACL_MEMCPY_DEVICE_TO_HOST);
    aclrtMemcpy(maskResult.data(), maskResult.size(), targetMaskDeviceAddr, maskResult.size(),
                ACL_MEMCPY_DEVICE_TO_HOST);
    aclrtMemcpy(maskedResult.data(), m * sizeof(int32_t), maskedTargetDeviceAddr, m * sizeof(int32_t),
                ACL_MEMCPY_DEVICE_TO_HOST);
    for (int64_t i = 0; i < m; i++) {
        LOG_PRINT("row %ld: logitsMax %f sumExpLogits %f predictedLogits %f maskedTarget %d\n", i, maxResult[i],
                  sumResult[i], predictedResult[i], maskedResult[i]);
    }
    for (size_t i = 0; i < maskResult.size(); i++) {
        LOG_PRINT("targetMask[%zu] is: %u\n", i, maskResult[i]);
    }
    // 6. 释放aclTensor和device资源
    aclDestroyTensor(input);
    aclDestroyTensor(weight);
    aclDestroyTensor(target);
    aclDestroyTensor(logitsMax);
    aclDestroyTensor(sumExp);
    aclDestroyTensor(predicted);
    aclDestroyTensor(targetMask);
    aclDestroyTensor(maskedTarget);
    aclrtFree(inputDeviceAddr);
    aclrtFree(weightDeviceAddr);
    aclrtFree(targetDeviceAddr);
    aclrtFree(logitsMaxDeviceAddr);
    aclrtFree(sumExpDeviceAddr);
    aclrtFree(predictedDeviceAddr);
    aclrtFree(targetMaskDeviceAddr);
    aclrtFree(maskedTargetDeviceAddr);
    if (workspaceSize > 0) {
        aclrtFree(workspaceAddr);
    }
    aclrtDestroyStream(stream);
    aclrtResetDevice(deviceId);
    aclFinalize();
    return 0;
}
