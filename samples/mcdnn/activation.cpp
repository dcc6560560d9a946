// mcdnnActivationForward / mcdnnActivationBackward: ReLU on a 1x2x2x3 float tensor.
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

int main()
{
    const int n = 1, c = 2, h = 2, w = 3, count = n * c * h * w;
    std::vector<float> x = {-2.0f, -1.0f, 0.0f, 1.0f, 2.0f, 3.0f, 0.5f, -0.5f, 1.5f, -1.5f, 2.5f, -2.5f};
    std::vector<float> dy(count, 1.0f), y(count), dx(count);

    mcdnnHandle_t handle;
    mcStream_t stream;
    CHECK_MC(mcStreamCreate(&stream));
    CHECK_MCDNN(mcdnnCreate(&handle));
    CHECK_MCDNN(mcdnnSetStream(handle, stream));

    mcdnnTensorDescriptor_t desc;
    CHECK_MCDNN(mcdnnCreateTensorDescriptor(&desc));
    CHECK_MCDNN(mcdnnSetTensor4dDescriptor(desc, MCDNN_TENSOR_NCHW, MCDNN_DATA_FLOAT, n, c, h, w));
    mcdnnActivationDescriptor_t act;
    CHECK_MCDNN(mcdnnCreateActivationDescriptor(&act));
    CHECK_MCDNN(mcdnnSetActivationDescriptor(act, MCDNN_ACTIVATION_RELU, MCDNN_NOT_PROPAGATE_NAN, 0.0));

    void *dX, *dY, *dDY, *dDX;
    size_t bytes = count * sizeof(float);
    CHECK_MC(mcMalloc(&dX, bytes));
    CHECK_MC(mcMalloc(&dY, bytes));
    CHECK_MC(mcMalloc(&dDY, bytes));
    CHECK_MC(mcMalloc(&dDX, bytes));
    CHECK_MC(mcMemcpy(dX, x.data(), bytes, mcMemcpyHostToDevice));
    CHECK_MC(mcMemcpy(dDY, dy.data(), bytes, mcMemcpyHostToDevice));

    float alpha = 1.0f, beta = 0.0f;
    CHECK_MCDNN(mcdnnActivationForward(handle, act, &alpha, desc, dX, &beta, desc, dY));
    CHECK_MCDNN(mcdnnActivationBackward(handle, act, &alpha, desc, dY, desc, dDY, desc, dX, &beta, desc, dDX));
    CHECK_MC(mcStreamSynchronize(stream));
    CHECK_MC(mcMemcpy(y.data(), dY, bytes, mcMemcpyDeviceToHost));
    CHECK_MC(mcMemcpy(dx.data(), dDX, bytes, mcMemcpyDeviceToHost));

    for (int i = 0; i < count; i++)
        printf("x[%2d] = %5.2f  relu = %5.2f  grad = %4.1f\n", i, x[i], y[i], dx[i]);

    mcFree(dX);
    mcFree(dY);
    mcFree(dDY);
    mcFree(dDX);
    mcdnnDestroyActivationDescriptor(act);
    mcdnnDestroyTensorDescriptor(desc);
    mcdnnDestroy(handle);
    mcStreamDestroy(stream);
    return 0;
}
