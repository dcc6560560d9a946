// mcdnnSoftmaxForward / mcdnnSoftmaxBackward: channel softmax of a 2x4x1x1 float tensor.
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
    const int n = 2, c = 4, count = n * c;
    std::vector<float> x = {1.0f, 2.0f, 3.0f, 4.0f, -1.0f, 0.0f, 1.0f, 0.5f};
    std::vector<float> dy = {0.1f, -0.2f, 0.3f, 0.0f, 1.0f, 0.0f, 0.0f, 0.0f}, y(count), dx(count);

    mcdnnHandle_t handle;
    CHECK_MCDNN(mcdnnCreate(&handle));
    mcdnnTensorDescriptor_t desc;
    CHECK_MCDNN(mcdnnCreateTensorDescriptor(&desc));
    CHECK_MCDNN(mcdnnSetTensor4dDescriptor(desc, MCDNN_TENSOR_NCHW, MCDNN_DATA_FLOAT, n, c, 1, 1));

    void *dX, *dY, *dDY, *dDX;
    size_t bytes = count * sizeof(float);
    CHECK_MC(mcMalloc(&dX, bytes));
    CHECK_MC(mcMalloc(&dY, bytes));
    CHECK_MC(mcMalloc(&dDY, bytes));
    CHECK_MC(mcMalloc(&dDX, bytes));
    CHECK_MC(mcMemcpy(dX, x.data(), bytes, mcMemcpyHostToDevice));
    CHECK_MC(mcMemcpy(dDY, dy.data(), bytes, mcMemcpyHostToDevice));

    float alpha = 1.0f, beta = 0.0f;
    CHECK_MCDNN(mcdnnSoftmaxForward(handle, MCDNN_SOFTMAX_ACCURATE, MCDNN_SOFTMAX_MODE_CHANNEL, &alpha, desc, dX,
                                    &beta, desc, dY));
    CHECK_MCDNN(mcdnnSoftmaxBackward(handle, MCDNN_SOFTMAX_ACCURATE, MCDNN_SOFTMAX_MODE_CHANNEL, &alpha, desc, dY,
                                     desc, dDY, &beta, desc, dDX));
    CHECK_MC(mcDeviceSynchronize());
    CHECK_MC(mcMemcpy(y.data(), dY, bytes, mcMemcpyDeviceToHost));
    CHECK_MC(mcMemcpy(dx.data(), dDX, bytes, mcMemcpyDeviceToHost));

    for (int b = 0; b < n; b++) {
        float sum = 0;
        for (int i = 0; i < c; i++) {
            printf("n=%d c=%d  x = %5.2f  softmax = %.6f  grad = %+.6f\n", b, i, x[b * c + i], y[b * c + i], dx[b * c + i]);
            sum += y[b * c + i];
        }
        printf("n=%d  sum of softmax = %.6f\n", b, sum);
    }

    mcFree(dX);
    mcFree(dY);
    mcFree(dDY);
    mcFree(dDX);
    mcdnnDestroyTensorDescriptor(desc);
    mcdnnDestroy(handle);
    return 0;
}
