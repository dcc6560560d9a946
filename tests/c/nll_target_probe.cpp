// The situation of the vendor's aclnnNLLLoss2d example: a 1x2x3x2 input (C = 2) whose target holds a
// 2 at pixel 4. The A2/A3 kernel does not validate targets, so the call succeeds and that pixel's
// loss comes from the memory past self and weight. Prints the per-pixel losses; exit status 0 when
// every call succeeded.
#include <cstdio>
#include <vector>
#include "acl/acl.h"
#include "aclnnop/aclnn_nll_loss2d.h"

template <typename T>
static aclTensor* device_tensor(const std::vector<T>& host, const std::vector<int64_t>& shape, aclDataType type,
                                void** address)
{
    size_t bytes = host.size() * sizeof(T);
    if (aclrtMalloc(address, bytes, ACL_MEM_MALLOC_HUGE_FIRST) != ACL_SUCCESS ||
        aclrtMemcpy(*address, bytes, host.data(), bytes, ACL_MEMCPY_HOST_TO_DEVICE) != ACL_SUCCESS)
        return nullptr;
    std::vector<int64_t> strides(shape.size(), 1);
    for (int i = (int)shape.size() - 2; i >= 0; i--)
        strides[i] = strides[i + 1] * shape[i + 1];
    return aclCreateTensor(shape.data(), shape.size(), type, strides.data(), 0, ACL_FORMAT_ND, shape.data(),
                           shape.size(), *address);
}

int main()
{
    aclrtStream stream;
    if (aclInit(nullptr) != ACL_SUCCESS || aclrtSetDevice(0) != ACL_SUCCESS || aclrtCreateStream(&stream) != ACL_SUCCESS)
        return 1;
    std::vector<float> x = {0.1f, 1.1f, 2.1f, 3.1f, 4.1f, 5.1f, 6.1f, 7.1f, 8.1f, 9.1f, 10.1f, 11.1f};
    std::vector<int32_t> target = {1, 0, 1, 1, 2, 1};
    std::vector<float> weight = {1.1f, 1.2f}, out(6, 0.0f), total = {0.0f};
    void *addresses[5];
    aclTensor* self = device_tensor(x, {1, 2, 3, 2}, ACL_FLOAT, &addresses[0]);
    aclTensor* t = device_tensor(target, {1, 3, 2}, ACL_INT32, &addresses[1]);
    aclTensor* w = device_tensor(weight, {2}, ACL_FLOAT, &addresses[2]);
    aclTensor* o = device_tensor(out, {1, 3, 2}, ACL_FLOAT, &addresses[3]);
    aclTensor* tw = device_tensor(total, {1}, ACL_FLOAT, &addresses[4]);
    uint64_t workspaceSize = 0;
    aclOpExecutor* executor;
    int status = aclnnNLLLoss2dGetWorkspaceSize(self, t, w, 0, -100, o, tw, &workspaceSize, &executor);
    if (status == ACL_SUCCESS)
        status = aclnnNLLLoss2d(nullptr, 0, executor, stream);
    if (status == ACL_SUCCESS)
        status = aclrtSynchronizeStream(stream);
    if (status == ACL_SUCCESS)
        status = aclrtMemcpy(out.data(), 6 * sizeof(float), addresses[3], 6 * sizeof(float), ACL_MEMCPY_DEVICE_TO_HOST);
    for (size_t i = 0; status == ACL_SUCCESS && i < out.size(); i++)
        printf("out[%zu] = %f\n", i, out[i]);
    aclTensor* tensors[] = {self, t, w, o, tw};
    for (int i = 0; i < 5; i++) {
        aclDestroyTensor(tensors[i]);
        aclrtFree(addresses[i]);
    }
    aclrtDestroyStream(stream);
    aclrtResetDevice(0);
    aclFinalize();
    printf("status %d\n", status);
    return status == ACL_SUCCESS ? 0 : 1;
}
