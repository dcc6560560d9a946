// mcdnnDivisiveNormalizationForward / Backward: 3x3 spatial window, with precomputed means, on 1x1x3x3.
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
    const int n = 1, c = 1, h = 3, w = 3, count = n * c * h * w;
    std::vector<float> x = {1, 2, 3, 4, 5, 6, 7, 8, 9}, means(count, 5.0f), dy(count, 1.0f), y(count), dx(count),
                       dmeans(count);

    mcdnnHandle_t handle;
    CHECK_MCDNN(mcdnnCreate(&handle));
    mcdnnTensorDescriptor_t desc;
    CHECK_MCDNN(mcdnnCreateTensorDescriptor(&desc));
    CHECK_MCDNN(mcdnnSetTensor4dDescriptor(desc, MCDNN_TENSOR_NCHW, MCDNN_DATA_FLOAT, n, c, h, w));
    mcdnnLRNDescriptor_t norm;
    CHECK_MCDNN(mcdnnCreateLRNDescriptor(&norm));
    CHECK_MCDNN(mcdnnSetLRNDescriptor(norm, 3, 1.0, 0.5, 1.0));

    void *dX, *dMeans, *dY, *dDY, *dDX, *dDMeans, *temp, *temp2;
    size_t bytes = count * sizeof(float);
    void **buffers[] = {&dX, &dMeans, &dY, &dDY, &dDX, &dDMeans, &temp, &temp2};
    for (void **b : buffers)
        CHECK_MC(mcMalloc(b, bytes));
    CHECK_MC(mcMemcpy(dX, x.data(), bytes, mcMemcpyHostToDevice));
    CHECK_MC(mcMemcpy(dMeans, means.data(), bytes, mcMemcpyHostToDevice));
    CHECK_MC(mcMemcpy(dDY, dy.data(), bytes, mcMemcpyHostToDevice));

    float alpha = 1.0f, beta = 0.0f;
    CHECK_MCDNN(mcdnnDivisiveNormalizationForward(handle, norm, MCDNN_DIVNORM_PRECOMPUTED_MEANS, &alpha, desc, dX,
                                                  dMeans, temp, temp2, &beta, desc, dY));
    CHECK_MCDNN(mcdnnDivisiveNormalizationBackward(handle, norm, MCDNN_DIVNORM_PRECOMPUTED_MEANS, &alpha, desc, dX,
                                                   dMeans, dDY, temp, temp2, &beta, desc, dDX, dDMeans));
    CHECK_MC(mcDeviceSynchronize());
    CHECK_MC(mcMemcpy(y.data(), dY, bytes, mcMemcpyDeviceToHost));
    CHECK_MC(mcMemcpy(dx.data(), dDX, bytes, mcMemcpyDeviceToHost));
    CHECK_MC(mcMemcpy(dmeans.data(), dDMeans, bytes, mcMemcpyDeviceToHost));

    for (int i = 0; i < count; i++)
        printf("(%d,%d)  x = %3.0f  y = %+.6f  dx = %+.6f  dmeans = %+.6f\n", i / w, i % w, x[i], y[i], dx[i], dmeans[i]);

    for (void **b : buffers)
        mcFree(*b);
    mcdnnDestroyLRNDescriptor(norm);
    mcdnnDestroyTensorDescriptor(desc);
    mcdnnDestroy(handle);
    return 0;
}
