// mcdnnNormalization* with the fused residual add and ReLU (MCDNN_NORM_OPS_NORM_ADD_ACTIVATION) on an NHWC
// 2x8x3x3 float tensor: y = relu(BN(x) + z). The reserve space carries the activation mask from the forward
// to the backward, which returns dx, dz and the parameter gradients.
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

template <typename T> static void *upload(const std::vector<T> &host)
{
    void *p = nullptr;
    if (mcMalloc(&p, host.size() * sizeof(T)) != mcSuccess)
        return nullptr;
    mcMemcpy(p, host.data(), host.size() * sizeof(T), mcMemcpyHostToDevice);
    return p;
}

int main()
{
    const int n = 2, c = 8, h = 3, w = 3, count = n * c * h * w;
    std::vector<float> x(count), z(count), dy(count, 1.0f);
    for (int i = 0; i < count; i++) {  // NHWC: the channel is the fastest index
        x[i] = (float)((i * 29) % 17) / 4.0f - 2.0f;
        z[i] = (float)((i * 13) % 5) / 2.0f - 1.0f;
    }
    std::vector<float> scale(c, 1.0f), bias(c, 0.0f), stats(c, 0.0f), ones(c, 1.0f);

    mcdnnHandle_t handle;
    CHECK_MCDNN(mcdnnCreate(&handle));
    mcdnnTensorDescriptor_t xDesc, scaleBiasDesc, meanVarDesc;
    CHECK_MCDNN(mcdnnCreateTensorDescriptor(&xDesc));
    CHECK_MCDNN(mcdnnCreateTensorDescriptor(&scaleBiasDesc));
    CHECK_MCDNN(mcdnnCreateTensorDescriptor(&meanVarDesc));
    CHECK_MCDNN(mcdnnSetTensor4dDescriptor(xDesc, MCDNN_TENSOR_NHWC, MCDNN_DATA_FLOAT, n, c, h, w));
    CHECK_MCDNN(mcdnnDeriveNormTensorDescriptor(scaleBiasDesc, meanVarDesc, xDesc, MCDNN_NORM_PER_CHANNEL, 1));
    mcdnnActivationDescriptor_t relu;
    CHECK_MCDNN(mcdnnCreateActivationDescriptor(&relu));
    CHECK_MCDNN(mcdnnSetActivationDescriptor(relu, MCDNN_ACTIVATION_RELU, MCDNN_NOT_PROPAGATE_NAN, 0.0));

    const mcdnnNormMode_t mode = MCDNN_NORM_PER_CHANNEL;
    const mcdnnNormOps_t ops = MCDNN_NORM_OPS_NORM_ADD_ACTIVATION;
    const mcdnnNormAlgo_t algo = MCDNN_NORM_ALGO_PERSIST;
    size_t forward_bytes = 0, backward_bytes = 0, reserve_bytes = 0;
    CHECK_MCDNN(mcdnnGetNormalizationForwardTrainingWorkspaceSize(handle, mode, ops, algo, xDesc, xDesc, xDesc,
                                                                  scaleBiasDesc, relu, meanVarDesc, &forward_bytes,
                                                                  1));
    CHECK_MCDNN(mcdnnGetNormalizationBackwardWorkspaceSize(handle, mode, ops, algo, xDesc, xDesc, xDesc, xDesc,
                                                           xDesc, scaleBiasDesc, relu, meanVarDesc,
                                                           &backward_bytes, 1));
    CHECK_MCDNN(mcdnnGetNormalizationTrainingReserveSpaceSize(handle, mode, ops, algo, relu, xDesc,
                                                              &reserve_bytes, 1));
    printf("workspace %zu / %zu bytes, reserve space %zu bytes (the ReLU mask, one bit per element)\n",
           forward_bytes, backward_bytes, reserve_bytes);

    void *dX = upload(x), *dZ = upload(z), *dDY = upload(dy), *dY = upload(x), *dDX = upload(x), *dDZ = upload(x);
    void *dScale = upload(scale), *dBias = upload(bias), *dRunMean = upload(stats), *dRunVar = upload(ones);
    void *dSaveMean = upload(stats), *dSaveInv = upload(stats), *dDScale = upload(stats), *dDBias = upload(stats);
    void *workspace = nullptr, *reserve = nullptr;
    CHECK_MC(mcMalloc(&workspace, forward_bytes > backward_bytes ? forward_bytes : backward_bytes));
    CHECK_MC(mcMalloc(&reserve, reserve_bytes));

    const float one = 1.0f, zero = 0.0f;
    const double epsilon = 1e-5;
    CHECK_MCDNN(mcdnnNormalizationForwardTraining(handle, mode, ops, algo, &one, &zero, xDesc, dX, scaleBiasDesc,
                                                  dScale, dBias, 1.0, meanVarDesc, dRunMean, dRunVar, epsilon,
                                                  dSaveMean, dSaveInv, relu, xDesc, dZ, xDesc, dY, workspace,
                                                  forward_bytes, reserve, reserve_bytes, 1));
    CHECK_MCDNN(mcdnnNormalizationBackward(handle, mode, ops, algo, &one, &zero, &one, &zero, xDesc, dX, xDesc, dY,
                                           xDesc, dDY, xDesc, dDZ, xDesc, dDX, scaleBiasDesc, dScale, dBias,
                                           dDScale, dDBias, epsilon, meanVarDesc, dSaveMean, dSaveInv, relu,
                                           workspace, backward_bytes, reserve, reserve_bytes, 1));
    CHECK_MC(mcDeviceSynchronize());

    std::vector<float> y(count), dz(count), dscale(c), dbias(c);
    CHECK_MC(mcMemcpy(y.data(), dY, count * sizeof(float), mcMemcpyDeviceToHost));
    CHECK_MC(mcMemcpy(dz.data(), dDZ, count * sizeof(float), mcMemcpyDeviceToHost));
    CHECK_MC(mcMemcpy(dscale.data(), dDScale, c * sizeof(float), mcMemcpyDeviceToHost));
    CHECK_MC(mcMemcpy(dbias.data(), dDBias, c * sizeof(float), mcMemcpyDeviceToHost));
    int active = 0, consistent = 1;
    for (int i = 0; i < count; i++) {
        active += y[i] > 0;
        consistent &= (y[i] > 0) == (dz[i] == 1.0f);  // dz = dy where the ReLU let the value through
    }
    printf("%d of %d outputs active; dz follows the ReLU mask: %s\n", active, count, consistent ? "yes" : "no");
    for (int k = 0; k < c; k++)
        printf("c=%d  dScale %+.6f  dBias %.1f\n", k, dscale[k], dbias[k]);

    for (void *p : {dX, dZ, dDY, dY, dDX, dDZ, dScale, dBias, dRunMean, dRunVar, dSaveMean, dSaveInv, dDScale,
                    dDBias, workspace, reserve})
        mcFree(p);
    mcdnnDestroyActivationDescriptor(relu);
    mcdnnDestroyTensorDescriptor(meanVarDesc);
    mcdnnDestroyTensorDescriptor(scaleBiasDesc);
    mcdnnDestroyTensorDescriptor(xDesc);
    mcdnnDestroy(handle);
    return 0;
}
