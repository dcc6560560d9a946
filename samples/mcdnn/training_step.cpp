// One training step of a tiny classifier head, forward and backward, all in mcDNN:
//   x (4x3x8x8) -> batch normalization (training) -> ReLU -> 2x2 max pooling -> log-softmax over the
//   3x4x4 = 48 values of each image -> cross-entropy with one label per image.
// The backward chain (softmax, pooling, activation, batch normalization) ends in the gradients of the BN
// scale and bias, printed with the loss.
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

static void *device_buffer(size_t count, const float *init = nullptr)
{
    void *p = nullptr;
    if (mcMalloc(&p, count * sizeof(float)) != mcSuccess)
        return nullptr;
    if (init)
        mcMemcpy(p, init, count * sizeof(float), mcMemcpyHostToDevice);
    return p;
}

int main()
{
    const int n = 4, c = 3, h = 8, w = 8, ph = 4, pw = 4;
    const int count = n * c * h * w, pooled = n * c * ph * pw, classes = c * ph * pw;
    std::vector<float> x(count), scale(c), bias(c), zeros(c, 0.0f), ones(c, 1.0f);
    for (int i = 0; i < count; i++)
        x[i] = (float)((i * 37) % 101) / 25.0f - 2.0f;
    for (int k = 0; k < c; k++) {
        scale[k] = 1.0f + 0.1f * (float)k;
        bias[k] = 0.05f * (float)k;
    }
    std::vector<int> label(n);
    std::vector<float> dlogp(pooled, 0.0f);  // d(mean loss)/d(log-softmax) = -1/n at each image's label
    for (int i = 0; i < n; i++) {
        label[i] = (i * 7 + 3) % classes;
        dlogp[i * classes + label[i]] = -1.0f / (float)n;
    }

    mcdnnHandle_t handle;
    CHECK_MCDNN(mcdnnCreate(&handle));
    mcdnnTensorDescriptor_t xDesc, bnDesc, pDesc;
    CHECK_MCDNN(mcdnnCreateTensorDescriptor(&xDesc));
    CHECK_MCDNN(mcdnnCreateTensorDescriptor(&bnDesc));
    CHECK_MCDNN(mcdnnCreateTensorDescriptor(&pDesc));
    CHECK_MCDNN(mcdnnSetTensor4dDescriptor(xDesc, MCDNN_TENSOR_NCHW, MCDNN_DATA_FLOAT, n, c, h, w));
    CHECK_MCDNN(mcdnnDeriveBNTensorDescriptor(bnDesc, xDesc, MCDNN_BATCHNORM_SPATIAL));
    mcdnnActivationDescriptor_t relu;
    CHECK_MCDNN(mcdnnCreateActivationDescriptor(&relu));
    CHECK_MCDNN(mcdnnSetActivationDescriptor(relu, MCDNN_ACTIVATION_RELU, MCDNN_NOT_PROPAGATE_NAN, 0.0));
    mcdnnPoolingDescriptor_t pool;
    CHECK_MCDNN(mcdnnCreatePoolingDescriptor(&pool));
    CHECK_MCDNN(mcdnnSetPooling2dDescriptor(pool, MCDNN_POOLING_MAX, MCDNN_NOT_PROPAGATE_NAN, 2, 2, 0, 0, 2, 2));
    int on, oc, oh, ow;
    CHECK_MCDNN(mcdnnGetPooling2dForwardOutputDim(pool, xDesc, &on, &oc, &oh, &ow));
    CHECK_MCDNN(mcdnnSetTensor4dDescriptor(pDesc, MCDNN_TENSOR_NCHW, MCDNN_DATA_FLOAT, on, oc, oh, ow));

    void *dX = device_buffer(count, x.data()), *dBN = device_buffer(count), *dAct = device_buffer(count);
    void *dPool = device_buffer(pooled), *dLogp = device_buffer(pooled), *dDLogp = device_buffer(pooled, dlogp.data());
    void *dDPool = device_buffer(pooled), *dDAct = device_buffer(count), *dDBN = device_buffer(count);
    void *dDX = device_buffer(count);
    void *dScale = device_buffer(c, scale.data()), *dBias = device_buffer(c, bias.data());
    void *dRunMean = device_buffer(c, zeros.data()), *dRunVar = device_buffer(c, ones.data());
    void *dSaveMean = device_buffer(c), *dSaveInv = device_buffer(c);
    void *dDScale = device_buffer(c), *dDBias = device_buffer(c);

    const float one = 1.0f, zero = 0.0f;
    const double epsilon = 1e-5;
    // forward
    CHECK_MCDNN(mcdnnBatchNormalizationForwardTraining(handle, MCDNN_BATCHNORM_SPATIAL, &one, &zero, xDesc, dX,
                                                       xDesc, dBN, bnDesc, dScale, dBias, 0.1, dRunMean, dRunVar,
                                                       epsilon, dSaveMean, dSaveInv));
    CHECK_MCDNN(mcdnnActivationForward(handle, relu, &one, xDesc, dBN, &zero, xDesc, dAct));
    CHECK_MCDNN(mcdnnPoolingForward(handle, pool, &one, xDesc, dAct, &zero, pDesc, dPool));
    CHECK_MCDNN(mcdnnSoftmaxForward(handle, MCDNN_SOFTMAX_LOG, MCDNN_SOFTMAX_MODE_INSTANCE, &one, pDesc, dPool, &zero,
                                    pDesc, dLogp));
    // backward
    CHECK_MCDNN(mcdnnSoftmaxBackward(handle, MCDNN_SOFTMAX_LOG, MCDNN_SOFTMAX_MODE_INSTANCE, &one, pDesc, dLogp,
                                     pDesc, dDLogp, &zero, pDesc, dDPool));
    CHECK_MCDNN(mcdnnPoolingBackward(handle, pool, &one, pDesc, dPool, pDesc, dDPool, xDesc, dAct, &zero, xDesc,
                                     dDAct));
    CHECK_MCDNN(mcdnnActivationBackward(handle, relu, &one, xDesc, dAct, xDesc, dDAct, xDesc, dBN, &zero, xDesc,
                                        dDBN));
    CHECK_MCDNN(mcdnnBatchNormalizationBackward(handle, MCDNN_BATCHNORM_SPATIAL, &one, &zero, &one, &zero, xDesc,
                                                dX, xDesc, dDBN, xDesc, dDX, bnDesc, dScale, dDScale, dDBias,
                                                epsilon, dSaveMean, dSaveInv));
    CHECK_MC(mcDeviceSynchronize());

    std::vector<float> logp(pooled), dscale(c), dbias(c), dx(count), running_mean(c);
    CHECK_MC(mcMemcpy(logp.data(), dLogp, pooled * sizeof(float), mcMemcpyDeviceToHost));
    CHECK_MC(mcMemcpy(dscale.data(), dDScale, c * sizeof(float), mcMemcpyDeviceToHost));
    CHECK_MC(mcMemcpy(dbias.data(), dDBias, c * sizeof(float), mcMemcpyDeviceToHost));
    CHECK_MC(mcMemcpy(dx.data(), dDX, count * sizeof(float), mcMemcpyDeviceToHost));
    CHECK_MC(mcMemcpy(running_mean.data(), dRunMean, c * sizeof(float), mcMemcpyDeviceToHost));
    double loss = 0;
    for (int i = 0; i < n; i++)
        loss -= logp[i * classes + label[i]];
    loss /= n;
    double dx_sum = 0;
    for (float v : dx)
        dx_sum += v;
    printf("loss %.6f\n", loss);
    for (int k = 0; k < c; k++)
        printf("c=%d  dScale %+.6f  dBias %+.6f  running mean %+.6f\n", k, dscale[k], dbias[k], running_mean[k]);
    printf("sum of dx %+.6f (BN gradients sum to 0 per channel)\n", dx_sum);

    for (void *p : {dX, dBN, dAct, dPool, dLogp, dDLogp, dDPool, dDAct, dDBN, dDX, dScale, dBias, dRunMean, dRunVar,
                    dSaveMean, dSaveInv, dDScale, dDBias})
        mcFree(p);
    mcdnnDestroyPoolingDescriptor(pool);
    mcdnnDestroyActivationDescriptor(relu);
    mcdnnDestroyTensorDescriptor(pDesc);
    mcdnnDestroyTensorDescriptor(bnDesc);
    mcdnnDestroyTensorDescriptor(xDesc);
    mcdnnDestroy(handle);
    return 0;
}
