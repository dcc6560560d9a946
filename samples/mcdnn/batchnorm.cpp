// Spatial batch normalization of a 2x3x4x4 float tensor: mcdnnBatchNormalizationForwardTrainingEx as a
// framework calls it (bnOps BN, workspace and reserve space from their size queries), the backward, and
// inference with the running statistics the training call updated.
#include <cmath>
#include <cstdio>
#include <vector>
#include <mc_runtime.h>
#include <mcdnn/mcdnn.h>

#define CHECK_MC(call)                                                                            \
    do {                                                                                          \
        mcError_t err_ = (call);                                                                  \
        if (err_ != mcSuccess) {                                                                  \
            printf("%s failed: %s (%d)\n", #call, mcGetErrorString(err_), (int)err_);             \
            return 1;                                                                             \
        }                                                                                         \
    } while (0)
#define CHECK_MCDNN(call)                                                                         \
    do {                                                                                          \
        mcdnnStatus_t status_ = (call);                                                           \
        if (status_ != MCDNN_STATUS_SUCCESS) {                                                    \
            printf("%s failed: %s\n", #call, mcdnnGetErrorString(status_));                       \
            return 1;                                                                             \
        }                                                                                         \
    } while (0)

static void *device_copy(const std::vector<float> &host)
{
    void *p = nullptr;
    if (mcMalloc(&p, host.size() * sizeof(float)) != mcSuccess)
        return nullptr;
    mcMemcpy(p, host.data(), host.size() * sizeof(float), mcMemcpyHostToDevice);
    return p;
}

static std::vector<float> host_copy(const void *device, size_t count)
{
    std::vector<float> host(count);
    mcMemcpy(host.data(), device, count * sizeof(float), mcMemcpyDeviceToHost);
    return host;
}

int main()
{
    const int n = 2, c = 3, h = 4, w = 4, count = n * c * h * w;
    std::vector<float> x(count), dy(count);
    for (int i = 0; i < count; i++) {
        x[i] = 0.5f * (float)((i * 37) % 23) - 4.0f + (float)(i / (h * w) % c);  // channel-dependent offset
        dy[i] = 0.25f * (float)((i * 11) % 7) - 0.75f;
    }
    std::vector<float> scale = {1.0f, 0.5f, 2.0f}, bias = {0.0f, 1.0f, -1.0f};
    std::vector<float> running_mean(c, 0.0f), running_var(c, 1.0f);

    mcdnnHandle_t handle;
    CHECK_MCDNN(mcdnnCreate(&handle));
    mcdnnTensorDescriptor_t xDesc, bnDesc;
    CHECK_MCDNN(mcdnnCreateTensorDescriptor(&xDesc));
    CHECK_MCDNN(mcdnnCreateTensorDescriptor(&bnDesc));
    CHECK_MCDNN(mcdnnSetTensor4dDescriptor(xDesc, MCDNN_TENSOR_NCHW, MCDNN_DATA_FLOAT, n, c, h, w));
    const mcdnnBatchNormMode_t mode = MCDNN_BATCHNORM_SPATIAL_PERSISTENT;
    CHECK_MCDNN(mcdnnDeriveBNTensorDescriptor(bnDesc, xDesc, mode));

    size_t workspace_bytes = 0, backward_bytes = 0, reserve_bytes = 0;
    CHECK_MCDNN(mcdnnGetBatchNormalizationForwardTrainingExWorkspaceSize(
        handle, mode, MCDNN_BATCHNORM_OPS_BN, xDesc, nullptr, xDesc, bnDesc, nullptr, &workspace_bytes));
    CHECK_MCDNN(mcdnnGetBatchNormalizationBackwardExWorkspaceSize(handle, mode, MCDNN_BATCHNORM_OPS_BN, xDesc,
                                                                  nullptr, xDesc, nullptr, xDesc, bnDesc, nullptr,
                                                                  &backward_bytes));
    CHECK_MCDNN(mcdnnGetBatchNormalizationTrainingExReserveSpaceSize(handle, mode, MCDNN_BATCHNORM_OPS_BN, nullptr,
                                                                      xDesc, &reserve_bytes));
    printf("workspace %zu bytes (backward %zu), reserve space %zu bytes\n", workspace_bytes, backward_bytes,
           reserve_bytes);

    void *dX = device_copy(x), *dDY = device_copy(dy), *dY = device_copy(x), *dDX = device_copy(x);
    void *dScale = device_copy(scale), *dBias = device_copy(bias);
    void *dRunMean = device_copy(running_mean), *dRunVar = device_copy(running_var);
    void *dSaveMean = device_copy(running_mean), *dSaveInv = device_copy(running_var);
    void *dDScale = device_copy(scale), *dDBias = device_copy(bias);
    void *workspace = nullptr, *reserve = nullptr;
    size_t scratch = workspace_bytes > backward_bytes ? workspace_bytes : backward_bytes;
    CHECK_MC(mcMalloc(&workspace, scratch));
    if (reserve_bytes > 0)
        CHECK_MC(mcMalloc(&reserve, reserve_bytes));

    const float one = 1.0f, zero = 0.0f;
    const double epsilon = 1e-5, momentum = 0.1;
    CHECK_MCDNN(mcdnnBatchNormalizationForwardTrainingEx(
        handle, mode, MCDNN_BATCHNORM_OPS_BN, &one, &zero, xDesc, dX, nullptr, nullptr, xDesc, dY, bnDesc, dScale,
        dBias, momentum, dRunMean, dRunVar, epsilon, dSaveMean, dSaveInv, nullptr, workspace, workspace_bytes,
        reserve, reserve_bytes));
    CHECK_MCDNN(mcdnnBatchNormalizationBackwardEx(
        handle, mode, MCDNN_BATCHNORM_OPS_BN, &one, &zero, &one, &zero, xDesc, dX, nullptr, nullptr, xDesc, dDY,
        nullptr, nullptr, xDesc, dDX, bnDesc, dScale, nullptr, dDScale, dDBias, epsilon, dSaveMean, dSaveInv,
        nullptr, workspace, backward_bytes, reserve, reserve_bytes));
    CHECK_MC(mcDeviceSynchronize());

    std::vector<float> y = host_copy(dY, count), dx = host_copy(dDX, count);
    std::vector<float> rm = host_copy(dRunMean, c), rv = host_copy(dRunVar, c);
    std::vector<float> sm = host_copy(dSaveMean, c), si = host_copy(dSaveInv, c);
    std::vector<float> ds = host_copy(dDScale, c), db = host_copy(dDBias, c);
    for (int k = 0; k < c; k++) {
        double mean = 0, square = 0;
        for (int i = 0; i < n; i++)
            for (int j = 0; j < h * w; j++) {
                double v = y[(i * c + k) * h * w + j];
                mean += v;
                square += v * v;
            }
        mean /= n * h * w;
        double std_y = std::sqrt(square / (n * h * w) - mean * mean);
        printf("c=%d  batch mean %.4f  inv std %.4f  running mean %.4f  running var %.4f  "
               "y mean %.4f (bias %.1f)  y std %.4f (scale %.1f)\n",
               k, sm[k], si[k], rm[k], rv[k], mean, bias[k], std_y, scale[k]);
    }
    for (int k = 0; k < c; k++)
        printf("c=%d  dScale %.6f  dBias %.6f\n", k, ds[k], db[k]);
    printf("dx[0..3] = %.6f %.6f %.6f %.6f\n", dx[0], dx[1], dx[2], dx[3]);

    // inference with the running statistics
    CHECK_MCDNN(mcdnnBatchNormalizationForwardInference(handle, MCDNN_BATCHNORM_SPATIAL, &one, &zero, xDesc, dX,
                                                        xDesc, dY, bnDesc, dScale, dBias, dRunMean, dRunVar,
                                                        epsilon));
    CHECK_MC(mcDeviceSynchronize());
    y = host_copy(dY, count);
    printf("inference y[0] = %.6f (expected %.6f)\n", y[0],
           scale[0] * (x[0] - rm[0]) / std::sqrt(rv[0] + epsilon) + bias[0]);

    for (void *p : {dX, dDY, dY, dDX, dScale, dBias, dRunMean, dRunVar, dSaveMean, dSaveInv, dDScale, dDBias,
                    workspace, reserve})
        mcFree(p);
    mcdnnDestroyTensorDescriptor(bnDesc);
    mcdnnDestroyTensorDescriptor(xDesc);
    mcdnnDestroy(handle);
    return 0;
}
