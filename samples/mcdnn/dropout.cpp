// Dropout with p = 0.25 on a 4x16x8x8 float tensor: RNG states initialised by mcdnnSetDropoutDescriptor, the
// mask kept in the reserve space between mcdnnDropoutForward and mcdnnDropoutBackward, and the same mask
// again after restoring a saved copy of the states.
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
    const int n = 4, c = 16, h = 8, w = 8, count = n * c * h * w;
    const float p = 0.25f;
    const unsigned long long seed = 2024;
    std::vector<float> x(count, 1.0f), dy(count, 2.0f), y(count), y2(count), dx(count);

    mcdnnHandle_t handle;
    CHECK_MCDNN(mcdnnCreate(&handle));
    mcdnnTensorDescriptor_t desc;
    CHECK_MCDNN(mcdnnCreateTensorDescriptor(&desc));
    CHECK_MCDNN(mcdnnSetTensor4dDescriptor(desc, MCDNN_TENSOR_NCHW, MCDNN_DATA_FLOAT, n, c, h, w));

    size_t states_bytes = 0, reserve_bytes = 0;
    CHECK_MCDNN(mcdnnDropoutGetStatesSize(handle, &states_bytes));
    CHECK_MCDNN(mcdnnDropoutGetReserveSpaceSize(desc, &reserve_bytes));
    printf("states %zu bytes, reserve space %zu bytes for %d elements\n", states_bytes, reserve_bytes, count);

    void *states, *saved, *reserve, *dX, *dY, *dDY, *dDX;
    CHECK_MC(mcMalloc(&states, states_bytes));
    CHECK_MC(mcMalloc(&saved, states_bytes));
    CHECK_MC(mcMalloc(&reserve, reserve_bytes));
    CHECK_MC(mcMalloc(&dX, count * sizeof(float)));
    CHECK_MC(mcMalloc(&dY, count * sizeof(float)));
    CHECK_MC(mcMalloc(&dDY, count * sizeof(float)));
    CHECK_MC(mcMalloc(&dDX, count * sizeof(float)));
    CHECK_MC(mcMemcpy(dX, x.data(), count * sizeof(float), mcMemcpyHostToDevice));
    CHECK_MC(mcMemcpy(dDY, dy.data(), count * sizeof(float), mcMemcpyHostToDevice));

    mcdnnDropoutDescriptor_t dropout;
    CHECK_MCDNN(mcdnnCreateDropoutDescriptor(&dropout));
    CHECK_MCDNN(mcdnnSetDropoutDescriptor(dropout, handle, p, states, states_bytes, seed));
    CHECK_MC(mcMemcpy(saved, states, states_bytes, mcMemcpyDeviceToDevice));  // in stream order

    CHECK_MCDNN(mcdnnDropoutForward(handle, dropout, desc, dX, desc, dY, reserve, reserve_bytes));
    CHECK_MCDNN(mcdnnDropoutBackward(handle, dropout, desc, dDY, desc, dDX, reserve, reserve_bytes));
    CHECK_MC(mcDeviceSynchronize());
    CHECK_MC(mcMemcpy(y.data(), dY, count * sizeof(float), mcMemcpyDeviceToHost));
    CHECK_MC(mcMemcpy(dx.data(), dDX, count * sizeof(float), mcMemcpyDeviceToHost));
    int kept = 0, backward_matches = 1;
    for (int i = 0; i < count; i++) {
        kept += y[i] != 0.0f;
        backward_matches &= dx[i] == (y[i] != 0.0f ? 2.0f / (1.0f - p) : 0.0f);
    }
    printf("kept %d of %d (%.3f, expected %.3f); kept values = %.4f = 1/(1-p)\n", kept, count,
           (double)kept / count, 1.0 - p, y[0] != 0.0f ? y[0] : y[1]);
    printf("backward: dy/(1-p) where kept, 0 elsewhere: %s\n", backward_matches ? "yes" : "no");

    // a second descriptor on the saved copy of the states draws the same mask
    mcdnnDropoutDescriptor_t restored;
    CHECK_MCDNN(mcdnnCreateDropoutDescriptor(&restored));
    CHECK_MCDNN(mcdnnRestoreDropoutDescriptor(restored, handle, p, saved, states_bytes, seed));
    CHECK_MCDNN(mcdnnDropoutForward(handle, restored, desc, dX, desc, dY, reserve, reserve_bytes));
    CHECK_MC(mcDeviceSynchronize());
    CHECK_MC(mcMemcpy(y2.data(), dY, count * sizeof(float), mcMemcpyDeviceToHost));
    int same = 1;
    for (int i = 0; i < count; i++)
        same &= y[i] == y2[i];
    printf("restored states reproduce the mask: %s\n", same ? "yes" : "no");

    float got_p;
    void *got_states;
    unsigned long long got_seed;
    CHECK_MCDNN(mcdnnGetDropoutDescriptor(dropout, handle, &got_p, &got_states, &got_seed));
    printf("descriptor: dropout %.2f, seed %llu, states %s\n", got_p, got_seed,
           got_states == states ? "ours" : "other");

    for (void *ptr : {states, saved, reserve, dX, dY, dDY, dDX})
        mcFree(ptr);
    mcdnnDestroyDropoutDescriptor(restored);
    mcdnnDestroyDropoutDescriptor(dropout);
    mcdnnDestroyTensorDescriptor(desc);
    mcdnnDestroy(handle);
    return 0;
}
