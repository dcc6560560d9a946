// mcdnnLRNCrossChannelForward / mcdnnLRNCrossChannelBackward: n=5 across 6 channels of a 1x6x1x2 tensor.
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
    const int n = 1, c = 6, h = 1, w = 2, count = n * c * h * w;
    std::vector<float> x(count), dy(count, 1.0f), y(count), dx(count);
    for (int i = 0; i < count; i++)
        x[i] = 0.5f * (float)(i - 5);

    mcdnnHandle_t handle;
    CHECK_MCDNN(mcdnnCreate(&handle));
    mcdnnTensorDescriptor_t desc;
    CHECK_MCDNN(mcdnnCreateTensorDescriptor(&desc));
    CHECK_MCDNN(mcdnnSetTensor4dDescriptor(desc, MCDNN_TENSOR_NCHW, MCDNN_DATA_FLOAT, n, c, h, w));
    mcdnnLRNDescriptor_t lrn;
    CHECK_MCDNN(mcdnnCreateLRNDescriptor(&lrn));
    CHECK_MCDNN(mcdnnSetLRNDescriptor(lrn, 5, 1e-1, 0.75, 2.0));

    void *dX, *dY, *dDY, *dDX;
    size_t bytes = count * sizeof(float);
    CHECK_MC(mcMalloc(&dX, bytes));
    CHECK_MC(mcMalloc(&dY, bytes));
    CHECK_MC(mcMalloc(&dDY, bytes));
    CHECK_MC(mcMalloc(&dDX, bytes));
    CHECK_MC(mcMemcpy(dX, x.data(), bytes, mcMemcpyHostToDevice));
    CHECK_MC(mcMemcpy(dDY, dy.data(), bytes, mcMemcpyHostToDevice));

    float alpha = 1.0f, beta = 0.0f;
    CHECK_MCDNN(mcdnnLRNCrossChannelForward(handle, lrn, MCDNN_LRN_CROSS_CHANNEL_DIM1, &alpha, desc, dX, &beta, desc, dY));
    CHECK_MCDNN(mcdnnLRNCrossChannelBackward(handle, lrn, MCDNN_LRN_CROSS_CHANNEL_DIM1, &alpha, desc, dY, desc, dDY,
                                             desc, dX, &beta, desc, dDX));
    CHECK_MC(mcDeviceSynchronize());
    CHECK_MC(mcMemcpy(y.data(), dY, bytes, mcMemcpyDeviceToHost));
    CHECK_MC(mcMemcpy(dx.data(), dDX, bytes, mcMemcpyDeviceToHost));

    for (int i = 0; i < count; i++)
        printf("c=%d w=%d  x = %5.2f  lrn = %+.6f  grad = %+.6f\n", i / w, i % w, x[i], y[i], dx[i]);

    mcFree(dX);
    mcFree(dY);
    mcFree(dDY);
    mcFree(dDX);
    mcdnnDestroyLRNDescriptor(lrn);
    mcdnnDestroyTensorDescriptor(desc);
    mcdnnDestroy(handle);
    return 0;
}
